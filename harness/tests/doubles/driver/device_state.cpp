// The shared device state's bookkeeping (device_state.hpp), the same on every platform: each
// change under the lock of the mapped state file (state_mapping.hpp), after removing the entries
// of processes that died.
#include "device_state.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "state_mapping.hpp"

namespace pinbench::driver_double {

struct DeviceState::Impl {
    explicit Impl(const Script& script)
        : mapping(script.state_path), reserved(script.reserved_memory), total(script.total_memory) {}

    StateMapping mapping;
    std::uint64_t reserved = 0;
    std::uint64_t total = 0;

    // Locked for the scope; removes dead processes' entries first.
    class Locked {
    public:
        explicit Locked(Impl& impl) : impl_(impl) {
            impl_.mapping.lock();
            for (ProcessEntry& p : impl_.mapping.layout().processes) {
                if (p.pid != 0 && p.pid != current_pid() && process_dead(p.pid)) p = ProcessEntry{};
            }
        }
        ~Locked() { impl_.mapping.unlock(); }
        Locked(const Locked&) = delete;
        Locked& operator=(const Locked&) = delete;

    private:
        Impl& impl_;
    };

    ProcessEntry* own(bool create) { return own_entry(mapping.layout(), current_pid(), create); }
    std::uint64_t used_locked(int device) { return used_by_all(mapping.layout(), reserved, device); }
};

DeviceState::DeviceState(const Script& script) : impl_(std::make_unique<Impl>(script)) {
    Layout& layout = impl_->mapping.layout();
    impl_->mapping.lock();
    if (earlier_state_magic(layout.magic)) layout = Layout{};
    if (layout.magic == 0) layout.magic = state_magic;  // a new file reads as zeros
    const bool ours = layout.magic == state_magic;
    impl_->mapping.unlock();
    if (!ours) {
        std::fprintf(stderr, "pinbench driver double: not a device state file: %s\n",
                     script.state_path.c_str());
        std::abort();
    }
}

// Unmapping leaves this process's entry: NVML maps the same state in a process and must not take
// away what its CUDA side holds (the CUDA side leaves, driver.cpp).
DeviceState::~DeviceState() = default;

bool DeviceState::charge(int device, std::uint64_t bytes) {
    const Impl::Locked lock(*impl_);
    if (impl_->used_locked(device) + bytes > impl_->total) return false;
    impl_->own(true)->bytes[device] += bytes;
    return true;
}

bool DeviceState::charge_unlisted(int device, std::uint64_t bytes) {
    const Impl::Locked lock(*impl_);
    if (impl_->used_locked(device) + bytes > impl_->total) return false;
    impl_->own(true)->unlisted[device] += bytes;
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
    return processes_on(impl_->mapping.layout(), device);
}

std::uint64_t DeviceState::count_call(std::size_t index) {
    const Impl::Locked lock(*impl_);
    return ++impl_->mapping.layout().calls[index];
}

void DeviceState::leave() {
    const Impl::Locked lock(*impl_);
    if (ProcessEntry* p = impl_->own(false)) *p = ProcessEntry{};
}

}  // namespace pinbench::driver_double
