// The CUDA core of a host-only build (-DPINBENCH_CUDA=OFF): every entry point of the CUDA
// core's public headers (device, host_buffer, transfers, device_capacity) exists and says
// "this build has no CUDA". Nothing is measured: `pinbench run --backend cuda` stops before it
// starts (exit 3), the environment record reads "unavailable" with this reason, and a child
// asked to measure fails with it. Plan, replay, store, the child protocol and the OS probes are
// the same code as in a CUDA build. A function added to those headers needs a line here, or
// the host-only build (ci/check_windows.sh) stops linking.
#include <nlohmann/json.hpp>

#include "pinbench/device.hpp"
#include "pinbench/device_capacity.hpp"
#include "pinbench/errors.hpp"
#include "pinbench/host_buffer.hpp"
#include "pinbench/transfers.hpp"

namespace pinbench {
namespace {

constexpr const char* kNoCuda = "this build has no CUDA (built with -DPINBENCH_CUDA=OFF)";

[[noreturn]] void no_cuda(const char* what) { throw UnsupportedError(std::string(what) + ": " + kNoCuda); }

class NoCudaProbe final : public Probe {
public:
    std::string name() const override { return "cuda"; }
    std::string source() const override { return std::string("cudaMemGetInfo: ") + kNoCuda; }
    void read(Readings& out) override {
        out["cuda.free"] = Reading::not_available(kNoCuda);
        out["cuda.total"] = Reading::not_available(kNoCuda);
    }
};

}  // namespace

// --- device.hpp ------------------------------------------------------------------------------
DeviceContext::DeviceContext(int device) : device_(device) { no_cuda("DeviceContext"); }
void DeviceContext::synchronize() const { no_cuda("DeviceContext::synchronize"); }
MemInfo DeviceContext::mem_info() const { no_cuda("DeviceContext::mem_info"); }

DeviceBuffer::DeviceBuffer(std::size_t) { no_cuda("DeviceBuffer"); }
DeviceBuffer::~DeviceBuffer() = default;

GpuUseWorkspace::GpuUseWorkspace(std::size_t copy_chunk)
    : copy_target_(copy_chunk), result_(sizeof(std::uint64_t)) {}

void first_gpu_use(const HostBuffer&, const GpuUseWorkspace&) { no_cuda("first_gpu_use"); }
std::string verify_round_trip(const HostBuffer&, const GpuUseWorkspace&, std::uint32_t) {
    no_cuda("verify_round_trip");
}

int cuda_device_count(std::string* why) {
    if (why != nullptr) *why = kNoCuda;
    return 0;
}

CudaFacts cuda_facts() {
    const auto none = Maybe<int>::none(kNoCuda);
    return {none, none, none, Maybe<std::string>::none(kNoCuda)};
}

CudaDeviceFacts cuda_device_facts(int device) {
    CudaDeviceFacts d;
    d.cuda_index = device;
    d.properties = Maybe<CudaDeviceProperties>::none(kNoCuda);
    return d;
}

DeviceIdentity device_identity(int) { return {}; }

std::optional<std::array<std::uint8_t, 8>> device_luid(int) { return std::nullopt; }

std::unique_ptr<Probe> make_cuda_meminfo_probe(int) { return std::make_unique<NoCudaProbe>(); }

// --- host_buffer.hpp -------------------------------------------------------------------------
nlohmann::json HostBuffer::backing() const { return {{"page_size", host_page_size()}, {"verified", false}}; }

std::unique_ptr<HostBuffer> allocate_host_buffer(ApiVariant, std::size_t) { no_cuda("allocate_host_buffer"); }

std::size_t host_page_size() { return 4096; }  // as the CUDA core's host_buffers.cpp

// --- transfers.hpp ---------------------------------------------------------------------------
HostRegistration::HostRegistration(void* data, std::size_t, unsigned) : data_(data) {
    no_cuda("HostRegistration");
}
HostRegistration::~HostRegistration() = default;
void HostRegistration::release() { no_cuda("HostRegistration::release"); }

double timed_h2d_copy_ms(const void*, std::size_t, const GpuUseWorkspace&) { no_cuda("timed_h2d_copy_ms"); }

void enable_peer_access(const std::vector<int>&) { no_cuda("enable_peer_access"); }

// --- device_capacity.hpp ---------------------------------------------------------------------
BlockSearch largest_device_block(std::uint64_t, std::uint64_t, bool) { no_cuda("largest_device_block"); }

double device_read_gbps(std::uint64_t) { no_cuda("device_read_gbps"); }

DeviceFiller::DeviceFiller(std::uint64_t, std::uint64_t) { no_cuda("DeviceFiller"); }
DeviceFiller::~DeviceFiller() = default;
std::string DeviceFiller::intact() const { no_cuda("DeviceFiller::intact"); }

}  // namespace pinbench
