// The shared device state on Windows: a file mapping of the state file, changed under LockFileEx.
#include "device_state.hpp"

#include <windows.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "device_state_layout.hpp"

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

private:
    HANDLE h_;
};

// Gone, or exited and not yet closed by its parent: a real driver frees a process's memory when
// it dies.
bool dead(std::int64_t pid) {
    const Handle process(::OpenProcess(SYNCHRONIZE, FALSE, static_cast<DWORD>(pid)));
    if (process.get() == nullptr) return ::GetLastError() == ERROR_INVALID_PARAMETER;
    return ::WaitForSingleObject(process.get(), 0) == WAIT_OBJECT_0;
}

std::int64_t self_pid() { return static_cast<std::int64_t>(::GetCurrentProcessId()); }

}  // namespace

struct DeviceState::Impl {
    HANDLE file = INVALID_HANDLE_VALUE;
    HANDLE mapping = nullptr;
    Layout* layout = nullptr;
    std::uint64_t reserved = 0;
    std::uint64_t total = 0;

    void lock() {
        if (file == INVALID_HANDLE_VALUE) return;
        OVERLAPPED whole{};
        if (::LockFileEx(file, LOCKFILE_EXCLUSIVE_LOCK, 0, MAXDWORD, MAXDWORD, &whole) == 0)
            fail("LockFileEx");
    }
    void unlock() {
        if (file == INVALID_HANDLE_VALUE) return;
        OVERLAPPED whole{};
        ::UnlockFileEx(file, 0, MAXDWORD, MAXDWORD, &whole);
    }

    // Locked for the scope; removes dead processes' entries first.
    class Locked {
    public:
        explicit Locked(Impl& impl) : impl_(impl) {
            impl_.lock();
            for (ProcessEntry& p : impl_.layout->processes) {
                if (p.pid != 0 && p.pid != self_pid() && dead(p.pid)) p = ProcessEntry{};
            }
        }
        ~Locked() { impl_.unlock(); }
        Locked(const Locked&) = delete;
        Locked& operator=(const Locked&) = delete;

    private:
        Impl& impl_;
    };

    ProcessEntry* own(bool create) { return own_entry(*layout, self_pid(), create); }
    std::uint64_t used_locked(int device) const { return used_by_all(*layout, reserved, device); }
};

DeviceState::DeviceState(const Script& script) : impl_(std::make_unique<Impl>()) {
    impl_->reserved = script.reserved_memory;
    impl_->total = script.total_memory;
    if (script.state_path.empty()) {
        void* p = ::VirtualAlloc(nullptr, sizeof(Layout), MEM_RESERVE | MEM_COMMIT, PAGE_READWRITE);
        if (p == nullptr) fail("VirtualAlloc of the device state");
        impl_->layout = static_cast<Layout*>(p);
    } else {
        // Every process of a test opens the same file: share everything, delete included.
        impl_->file = ::CreateFileA(script.state_path.c_str(), GENERIC_READ | GENERIC_WRITE,
                                    FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, nullptr,
                                    OPEN_ALWAYS, FILE_ATTRIBUTE_NORMAL, nullptr);
        if (impl_->file == INVALID_HANDLE_VALUE) fail("cannot open the state file " + script.state_path);
        impl_->lock();
        // A mapping larger than the file extends it; a new file reads as zeros.
        impl_->mapping =
            ::CreateFileMappingA(impl_->file, nullptr, PAGE_READWRITE, 0, sizeof(Layout), nullptr);
        if (impl_->mapping == nullptr) fail("CreateFileMapping " + script.state_path);
        void* p = ::MapViewOfFile(impl_->mapping, FILE_MAP_ALL_ACCESS, 0, 0, sizeof(Layout));
        if (p == nullptr) fail("MapViewOfFile " + script.state_path);
        impl_->layout = static_cast<Layout*>(p);
    }
    if (impl_->layout->magic == 0) impl_->layout->magic = state_magic;
    if (impl_->layout->magic != state_magic) {
        ::SetLastError(ERROR_INVALID_DATA);
        fail("not a device state file: " + script.state_path);
    }
    impl_->unlock();
}

// Unmapping leaves this process's entry: NVML maps the same state in a process and must not take
// away what its CUDA side holds (the CUDA side leaves, driver.cpp).
DeviceState::~DeviceState() {
    if (impl_->mapping == nullptr) {
        ::VirtualFree(impl_->layout, 0, MEM_RELEASE);
        return;
    }
    ::UnmapViewOfFile(impl_->layout);
    ::CloseHandle(impl_->mapping);
    ::CloseHandle(impl_->file);
}

bool DeviceState::charge(int device, std::uint64_t bytes) {
    const Impl::Locked lock(*impl_);
    if (impl_->used_locked(device) + bytes > impl_->total) return false;
    impl_->own(true)->bytes[device] += bytes;
    return true;
}

void DeviceState::release(int device, std::uint64_t bytes) {
    const Impl::Locked lock(*impl_);
    if (ProcessEntry* p = impl_->own(false)) p->bytes[device] -= std::min(bytes, p->bytes[device]);
}

void DeviceState::open_context(int device) {
    const Impl::Locked lock(*impl_);
    impl_->own(true)->contexts |= 1u << device;
}

void DeviceState::close_context(int device) {
    const Impl::Locked lock(*impl_);
    if (ProcessEntry* p = impl_->own(false)) p->contexts &= ~(1u << device);
}

std::uint64_t DeviceState::used(int device) {
    const Impl::Locked lock(*impl_);
    return impl_->used_locked(device);
}

std::vector<ProcessUse> DeviceState::processes(int device) {
    const Impl::Locked lock(*impl_);
    return processes_on(*impl_->layout, device);
}

std::uint64_t DeviceState::count_call(std::size_t index) {
    const Impl::Locked lock(*impl_);
    return ++impl_->layout->calls[index];
}

void DeviceState::leave() {
    const Impl::Locked lock(*impl_);
    if (ProcessEntry* p = impl_->own(false)) *p = ProcessEntry{};
}

}  // namespace pinbench::driver_double
