#include "cuda/bench_timing.hpp"

#include <cuda_runtime_api.h>

#include "cuda/bench_kernels.hpp"
#include "pinbench/cuda/cuda_check.hpp"
#include "pinbench/cuda/cuda_handles.hpp"
#include "pinbench/cuda/device.hpp"

namespace pinbench::bench {

struct TimedStream::Impl {
    cuda::Stream stream;
    cuda::Event begin{true};
    cuda::Event end{true};
    DeviceBuffer sink{sizeof(unsigned long long)};
};

TimedStream::TimedStream() : impl_(std::make_unique<Impl>()) {}

TimedStream::~TimedStream() {
    if (impl_) cudaStreamSynchronize(impl_->stream.get());
}

void TimedStream::start() { PINBENCH_CUDA(cudaEventRecord(impl_->begin.get(), impl_->stream.get())); }

void TimedStream::copy(void* dst, const void* src, std::size_t bytes, Direction direction) {
    const cudaMemcpyKind kind =
        direction == Direction::host_to_device ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost;
    PINBENCH_CUDA(cudaMemcpyAsync(dst, src, bytes, kind, impl_->stream.get()));
}

void TimedStream::read_through(const void* device_pointer, std::size_t bytes) {
    PINBENCH_CUDA(cuda::launch_read_all(
        device_pointer, bytes, static_cast<unsigned long long*>(impl_->sink.data()), impl_->stream.get()));
}

double TimedStream::stop() {
    PINBENCH_CUDA(cudaEventRecord(impl_->end.get(), impl_->stream.get()));
    PINBENCH_CUDA(cudaEventSynchronize(impl_->end.get()));
    float ms = 0.0f;
    PINBENCH_CUDA(cudaEventElapsedTime(&ms, impl_->begin.get(), impl_->end.get()));
    return static_cast<double>(ms) * 1e-3;
}

}  // namespace pinbench::bench
