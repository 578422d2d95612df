// The shared device state's file on Windows (state_mapping.hpp): a file mapping, locked with
// LockFileEx. A process is dead when OpenProcess fails or its handle is signalled.
#include <windows.h>

#include <cstdio>
#include <cstdlib>

#include "state_mapping.hpp"

namespace pinbench::driver_double {
namespace {

[[noreturn]] void fail(const std::string& what) {
    std::fprintf(stderr, "pinbench driver double: %s: Windows error %lu\n", what.c_str(), ::GetLastError());
    std::abort();
}

// A handle closed when it goes.
class Handle {
public:
    explicit Handle(HANDLE h = nullptr) : h_(h == INVALID_HANDLE_VALUE ? nullptr : h) {}
    ~Handle() {
        if (h_ != nullptr) ::CloseHandle(h_);
    }
    Handle(const Handle&) = delete;
    Handle& operator=(const Handle&) = delete;
    HANDLE get() const { return h_; }
    void reset(HANDLE h) {
        if (h_ != nullptr) ::CloseHandle(h_);
        h_ = h == INVALID_HANDLE_VALUE ? nullptr : h;
    }

private:
    HANDLE h_;
};

}  // namespace

struct StateMapping::Os {
    Handle file;  // none: this process's own memory
    Handle mapping;
};

StateMapping::StateMapping(const std::string& path) : os_(std::make_unique<Os>()) {
    if (path.empty()) {
        void* p = ::VirtualAlloc(nullptr, sizeof(Layout), MEM_RESERVE | MEM_COMMIT, PAGE_READWRITE);
        if (p == nullptr) fail("VirtualAlloc of the device state");
        layout_ = static_cast<Layout*>(p);
        return;
    }
    // Every process of a test opens the same file: share everything, delete included.
    os_->file.reset(::CreateFileA(path.c_str(), GENERIC_READ | GENERIC_WRITE,
                                  FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, nullptr,
                                  OPEN_ALWAYS, FILE_ATTRIBUTE_NORMAL, nullptr));
    if (os_->file.get() == nullptr) fail("cannot open the state file " + path);
    lock();
    // A mapping larger than the file extends it; a new file reads as zeros.
    os_->mapping.reset(
        ::CreateFileMappingA(os_->file.get(), nullptr, PAGE_READWRITE, 0, sizeof(Layout), nullptr));
    if (os_->mapping.get() == nullptr) fail("CreateFileMapping " + path);
    void* p = ::MapViewOfFile(os_->mapping.get(), FILE_MAP_ALL_ACCESS, 0, 0, sizeof(Layout));
    if (p == nullptr) fail("MapViewOfFile " + path);
    layout_ = static_cast<Layout*>(p);
    unlock();
}

// The view goes before its mapping and file handles (Os, after this body).
StateMapping::~StateMapping() {
    if (os_->mapping.get() == nullptr) {
        ::VirtualFree(layout_, 0, MEM_RELEASE);
    } else {
        ::UnmapViewOfFile(layout_);
    }
}

void StateMapping::lock() {
    if (os_->file.get() == nullptr) return;
    OVERLAPPED whole{};
    if (::LockFileEx(os_->file.get(), LOCKFILE_EXCLUSIVE_LOCK, 0, MAXDWORD, MAXDWORD, &whole) == 0) {
        fail("LockFileEx");
    }
}

void StateMapping::unlock() {
    if (os_->file.get() == nullptr) return;
    OVERLAPPED whole{};
    ::UnlockFileEx(os_->file.get(), 0, MAXDWORD, MAXDWORD, &whole);
}

std::int64_t current_pid() { return static_cast<std::int64_t>(::GetCurrentProcessId()); }

bool process_dead(std::int64_t pid) {
    const Handle process(::OpenProcess(SYNCHRONIZE, FALSE, static_cast<DWORD>(pid)));
    if (process.get() == nullptr) return ::GetLastError() == ERROR_INVALID_PARAMETER;
    return ::WaitForSingleObject(process.get(), 0) == WAIT_OBJECT_0;
}

}  // namespace pinbench::driver_double
