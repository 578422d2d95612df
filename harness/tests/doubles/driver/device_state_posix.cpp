// The shared device state on POSIX: a file mmap'd MAP_SHARED, changed under flock.
#include "device_state.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

#include "device_state_layout.hpp"

namespace pinbench::driver_double {
namespace {

[[noreturn]] void fail(const std::string& what) {
    std::fprintf(stderr, "pinbench driver double: %s: %s\n", what.c_str(), std::strerror(errno));
    std::abort();
}

// Gone, or a zombie nobody reaped yet: a real driver frees a process's memory when it dies.
bool dead(std::int64_t pid) {
    if (::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) return true;
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string text;
    std::getline(stat, text);
    const auto paren = text.rfind(')');
    return paren != std::string::npos && paren + 2 < text.size() && text[paren + 2] == 'Z';
}

}  // namespace

struct DeviceState::Impl {
    int fd = -1;
    Layout* layout = nullptr;
    std::uint64_t reserved = 0;
    std::uint64_t total = 0;

    // flock for the scope; removes dead processes' entries first.
    class Locked {
    public:
        explicit Locked(Impl& impl) : impl_(impl) {
            if (impl_.fd >= 0 && ::flock(impl_.fd, LOCK_EX) != 0) fail("flock");
            for (ProcessEntry& p : impl_.layout->processes) {
                if (p.pid != 0 && p.pid != ::getpid() && dead(p.pid)) p = ProcessEntry{};
            }
        }
        ~Locked() {
            if (impl_.fd >= 0) ::flock(impl_.fd, LOCK_UN);
        }
        Locked(const Locked&) = delete;
        Locked& operator=(const Locked&) = delete;

    private:
        Impl& impl_;
    };

    ProcessEntry* own(bool create) { return own_entry(*layout, ::getpid(), create); }
    std::uint64_t used_locked(int device) const { return used_by_all(*layout, reserved, device); }
};

DeviceState::DeviceState(const Script& script) : impl_(std::make_unique<Impl>()) {
    impl_->reserved = script.reserved_memory;
    impl_->total = script.total_memory;
    void* mapped = nullptr;
    if (script.state_path.empty()) {
        mapped = ::mmap(nullptr, sizeof(Layout), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    } else {
        impl_->fd = ::open(script.state_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        if (impl_->fd < 0) fail("cannot open the state file " + script.state_path);
        if (::flock(impl_->fd, LOCK_EX) != 0) fail("flock");
        if (::lseek(impl_->fd, 0, SEEK_END) < static_cast<off_t>(sizeof(Layout)) &&
            ::ftruncate(impl_->fd, sizeof(Layout)) != 0) {
            fail("ftruncate " + script.state_path);
        }
        mapped = ::mmap(nullptr, sizeof(Layout), PROT_READ | PROT_WRITE, MAP_SHARED, impl_->fd, 0);
    }
    if (mapped == MAP_FAILED) fail("mmap of the device state");
    impl_->layout = static_cast<Layout*>(mapped);
    if (impl_->layout->magic == 0) impl_->layout->magic = state_magic;  // a new file reads as zeros
    if (impl_->layout->magic != state_magic) {
        errno = EINVAL;
        fail("not a device state file: " + script.state_path);
    }
    if (impl_->fd >= 0) ::flock(impl_->fd, LOCK_UN);
}

// Unmapping leaves this process's entry: NVML maps the same state in a process and must not take
// away what its CUDA side holds (the CUDA side leaves, driver.cpp).
DeviceState::~DeviceState() {
    ::munmap(impl_->layout, sizeof(Layout));
    if (impl_->fd >= 0) ::close(impl_->fd);
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
