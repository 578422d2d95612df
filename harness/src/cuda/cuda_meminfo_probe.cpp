// cuMemGetInfo (the runtime's cudaMemGetInfo), read in the process that holds the context: what
// it can still allocate.
#include "cuda/driver_api.hpp"
#include "pinbench/cuda/device.hpp"

namespace pinbench {
namespace {

class CudaMemInfoProbe final : public Probe {
public:
    explicit CudaMemInfoProbe(int device) : device_(device) {}
    std::string name() const override { return "cuda"; }
    std::string source() const override {
        return "cuMemGetInfo on CUDA device " + std::to_string(device_) + ", in the measuring process";
    }
    void read(Readings& out) override {
        std::size_t free = 0, total = 0;
        std::string why;
        try {
            const cuda::DriverApi& d = cuda::driver();
            cuda::make_current(device_);
            const CUresult status = d.status(d.mem_get_info, &free, &total);
            if (status != CUDA_SUCCESS) why = std::string(d.mem_get_info.name) + ": " + d.error_name(status);
        } catch (const std::exception& e) {
            why = e.what();
        }
        if (!why.empty()) {
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
