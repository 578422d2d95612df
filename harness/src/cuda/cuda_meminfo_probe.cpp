// cudaMemGetInfo, read in the process that holds the context: what it can still allocate.
#include <cuda_runtime_api.h>

#include "pinbench/device.hpp"

namespace pinbench {
namespace {

class CudaMemInfoProbe final : public Probe {
public:
    explicit CudaMemInfoProbe(int device) : device_(device) {}
    std::string name() const override { return "cuda"; }
    std::string source() const override {
        return "cudaMemGetInfo on CUDA device " + std::to_string(device_) + ", in the measuring process";
    }
    void read(Readings& out) override {
        std::size_t free = 0, total = 0;
        cudaError_t status = cudaSetDevice(device_);
        if (status == cudaSuccess) status = cudaMemGetInfo(&free, &total);
        if (status != cudaSuccess) {
            (void)cudaGetLastError();
            const std::string why = std::string("cudaMemGetInfo: ") + cudaGetErrorName(status);
            out["cuda.free"] = Reading::not_available(why);
            out["cuda.total"] = Reading::not_available(why);
            return;
        }
        out["cuda.free"] = Reading::of(static_cast<std::int64_t>(free));
        out["cuda.total"] = Reading::of(static_cast<std::int64_t>(total));
    }

private:
    int device_;
};

}  // namespace

std::unique_ptr<Probe> make_cuda_meminfo_probe(int device) {
    return std::make_unique<CudaMemInfoProbe>(device);
}

}  // namespace pinbench
