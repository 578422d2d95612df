// One HostBuffer implementation per API family. Each frees through the API that allocated it.
// The API variants keep the runtime's names; each is the driver call the runtime makes for it
// (docs/kinds.md, "Which driver call each API variant is").
#include <chrono>
#include <cstring>
#include <new>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <utility>

#include "cuda/driver_api.hpp"
#include "cuda/host_allocators.hpp"
#include "pinbench/cuda/host_buffer.hpp"
#include "platform/huge_pages.hpp"

namespace pinbench {
namespace {

// 4 KiB is the smallest page on every platform we support; the real size only matters for
// touching (one write per page) and register alignment, where a smaller step is still correct.
std::size_t page_size_guess() { return 4096; }

// cudaHostAlloc's flags are the driver's CU_MEMHOSTALLOC_* values.
unsigned host_alloc_flags(unsigned flags) {
    unsigned f = 0;
    if (flags & flag_portable) f |= CU_MEMHOSTALLOC_PORTABLE;
    if (flags & flag_mapped) f |= CU_MEMHOSTALLOC_DEVICEMAP;
    if (flags & flag_write_combined) f |= CU_MEMHOSTALLOC_WRITECOMBINED;
    return f;
}

void* mapped_device_pointer(void* host, ApiVariant api) {
    if (!has_device_pointer(api)) return nullptr;
    const cuda::DriverApi& d = cuda::driver();
    CUdeviceptr dev = 0;
    d.call(d.mem_host_get_device_pointer, &dev, host, 0u);
    return reinterpret_cast<void*>(dev);  // NOLINT(performance-no-int-to-ptr)
}

// Writes one byte per page so the OS backs every page before the driver sees the memory:
// first touch is the OS's cost, not the driver's (and is slow on some VMs).
void touch_pages(std::byte* p, std::size_t bytes) {
    const std::size_t step = page_size_guess();
    for (std::size_t off = 0; off < bytes; off += step) p[off] = std::byte{1};
    if (bytes > 0) p[bytes - 1] = std::byte{1};
}

// Page-aligned ordinary memory, touched. RAII over aligned operator new.
class AlignedMemory {
public:
    explicit AlignedMemory(std::size_t bytes)
        : size_(bytes),
          ptr_(static_cast<std::byte*>(
              ::operator new (bytes == 0 ? 1 : bytes, std::align_val_t{page_size_guess()}))) {
        const auto start = std::chrono::steady_clock::now();
        touch_pages(ptr_, size_);
        touch_ms_ =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    }
    ~AlignedMemory() { ::operator delete (ptr_, std::align_val_t{page_size_guess()}); }
    AlignedMemory(const AlignedMemory&) = delete;
    AlignedMemory& operator=(const AlignedMemory&) = delete;
    std::byte* data() const { return ptr_; }
    double touch_ms() const { return touch_ms_; }

private:
    std::size_t size_;
    std::byte* ptr_;
    double touch_ms_ = 0;
};

class PageableBuffer final : public HostBuffer {
public:
    explicit PageableBuffer(std::size_t bytes) : memory_(bytes), size_(bytes) {}
    ApiVariant api() const override { return {ApiFamily::pageable, flag_none}; }
    std::byte* data() const override { return memory_.data(); }
    std::size_t size() const override { return size_; }
    void* device_pointer() const override { return nullptr; }
    double first_touch_ms() const override { return memory_.touch_ms(); }
    nlohmann::json backing() const override {
        return platform::verified_backing(data(), size_, PageKind::standard);
    }

private:
    AlignedMemory memory_;
    std::size_t size_;
};

// cudaMallocHost and cudaHostAlloc: the driver allocates and pins. Both are cuMemHostAlloc, as
// the runtime calls it (cudaMallocHost with flags 0; the trace shows it arriving so).
class DriverPinnedBuffer final : public HostBuffer {
public:
    DriverPinnedBuffer(ApiVariant api, std::size_t bytes) : api_(api), size_(bytes) {
        const cuda::DriverApi& d = cuda::driver();
        (void)cuda::current_device();
        void* p = nullptr;
        const unsigned flags = api.family == ApiFamily::malloc_host ? 0u : host_alloc_flags(api.flags);
        d.call(d.mem_host_alloc, &p, bytes, flags);
        ptr_ = static_cast<std::byte*>(p);
        try {
            device_ptr_ = mapped_device_pointer(p, api);
        } catch (...) {
            (void)d.status(d.mem_free_host, p);
            throw;
        }
    }
    ~DriverPinnedBuffer() override {
        cuda::call_quietly(&cuda::DriverApi::mem_free_host, static_cast<void*>(ptr_));
    }
    ApiVariant api() const override { return api_; }
    std::byte* data() const override { return ptr_; }
    std::size_t size() const override { return size_; }
    void* device_pointer() const override { return device_ptr_; }
    nlohmann::json backing() const override {
        return platform::verified_backing(ptr_, size_, PageKind::standard);
    }

private:
    ApiVariant api_;
    std::size_t size_;
    std::byte* ptr_ = nullptr;
    void* device_ptr_ = nullptr;
};

// cudaHostRegister on page-aligned, pre-touched memory: AlignedMemory for standard pages,
// platform::PageMemory for a huge page kind (which throws UnsupportedError where the OS has none).
template <class Memory>
class RegisteredBuffer final : public HostBuffer {
public:
    template <class... MemoryArgs>
    RegisteredBuffer(ApiVariant api, std::size_t bytes, MemoryArgs&&... memory_args)
        : api_(api), memory_(std::forward<MemoryArgs>(memory_args)...), size_(bytes) {
        const cuda::DriverApi& d = cuda::driver();
        (void)cuda::current_device();
        d.call(d.mem_host_register, static_cast<void*>(memory_.data()), bytes,
               cuda::host_register_flags(api.flags));
        try {
            device_ptr_ = mapped_device_pointer(memory_.data(), api);
        } catch (...) {
            (void)d.status(d.mem_host_unregister, static_cast<void*>(memory_.data()));
            throw;
        }
    }
    ~RegisteredBuffer() override {
        cuda::call_quietly(&cuda::DriverApi::mem_host_unregister, static_cast<void*>(memory_.data()));
    }
    ApiVariant api() const override { return api_; }
    std::byte* data() const override { return memory_.data(); }
    std::size_t size() const override { return size_; }
    void* device_pointer() const override { return device_ptr_; }
    double first_touch_ms() const override { return memory_.touch_ms(); }
    nlohmann::json backing() const override {
        return platform::verified_backing(memory_.data(), size_, api_.pages);
    }

private:
    ApiVariant api_;
    Memory memory_;
    std::size_t size_;
    void* device_ptr_ = nullptr;
};

}  // namespace

// cudaHostRegister's flags are the driver's CU_MEMHOSTREGISTER_* values.
unsigned cuda::host_register_flags(unsigned flags) {
    unsigned f = 0;
    if (flags & flag_portable) f |= CU_MEMHOSTREGISTER_PORTABLE;
    if (flags & flag_mapped) f |= CU_MEMHOSTREGISTER_DEVICEMAP;
    return f;
}

std::size_t host_page_size() { return page_size_guess(); }

nlohmann::json HostBuffer::backing() const { return {{"page_size", host_page_size()}, {"verified", false}}; }

std::unique_ptr<HostBuffer> allocate_host_buffer(ApiVariant api, std::size_t bytes) {
    switch (api.family) {
        case ApiFamily::pageable:
            return std::make_unique<PageableBuffer>(bytes);
        case ApiFamily::malloc_host:
        case ApiFamily::host_alloc:
            return std::make_unique<DriverPinnedBuffer>(api, bytes);
        case ApiFamily::host_register:
            if (api.pages == PageKind::standard) {
                return std::make_unique<RegisteredBuffer<AlignedMemory>>(api, bytes, bytes);
            }
            return std::make_unique<RegisteredBuffer<platform::PageMemory>>(api, bytes, api.pages, bytes);
        case ApiFamily::vmm_host:
            return cuda::allocate_vmm_host_buffer(api, bytes);
        case ApiFamily::pool_host:
            return cuda::allocate_pool_host_buffer(api, bytes);
    }
    throw std::invalid_argument("unknown api family");
}

}  // namespace pinbench
