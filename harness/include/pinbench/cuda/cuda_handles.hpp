// RAII owners of CUDA runtime streams and events, and a guard that restores the current device.
// For the runtime programs built with nvcc (benchmarks/cuda/); the harness has driver-API ones
// (harness/src/cuda/driver_handles.hpp).
#pragma once

#include <cuda_runtime_api.h>

#include <utility>

#include "pinbench/cuda/cuda_check.hpp"

namespace pinbench::cuda {

// A non-blocking stream: it does not synchronise with the legacy default stream, so work
// the caller puts there does not serialise with ours.
class Stream {
public:
    Stream() { PINBENCH_CUDA(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
    ~Stream() {
        if (stream_ != nullptr) cudaStreamDestroy(stream_);
    }
    Stream(Stream&& o) noexcept : stream_(std::exchange(o.stream_, nullptr)) {}
    Stream& operator=(Stream&& o) noexcept {
        std::swap(stream_, o.stream_);
        return *this;
    }
    Stream(const Stream&) = delete;
    Stream& operator=(const Stream&) = delete;
    cudaStream_t get() const { return stream_; }

private:
    cudaStream_t stream_ = nullptr;
};

class Event {
public:
    // timing = false: cudaEventDisableTiming, the cheapest event for synchronisation only.
    explicit Event(bool timing) {
        PINBENCH_CUDA(cudaEventCreateWithFlags(&event_, timing ? cudaEventDefault : cudaEventDisableTiming));
    }
    ~Event() {
        if (event_ != nullptr) cudaEventDestroy(event_);
    }
    Event(Event&& o) noexcept : event_(std::exchange(o.event_, nullptr)) {}
    Event& operator=(Event&& o) noexcept {
        std::swap(event_, o.event_);
        return *this;
    }
    Event(const Event&) = delete;
    Event& operator=(const Event&) = delete;
    cudaEvent_t get() const { return event_; }

private:
    cudaEvent_t event_ = nullptr;
};

// Makes `device` current for a scope and restores the caller's device afterwards, so a
// library call does not change the caller's state.
class DeviceGuard {
public:
    explicit DeviceGuard(int device) {
        PINBENCH_CUDA(cudaGetDevice(&previous_));
        if (previous_ != device) {
            PINBENCH_CUDA(cudaSetDevice(device));
            changed_ = true;
        }
    }
    ~DeviceGuard() {
        if (changed_) cudaSetDevice(previous_);
    }
    DeviceGuard(const DeviceGuard&) = delete;
    DeviceGuard& operator=(const DeviceGuard&) = delete;

private:
    int previous_ = 0;
    bool changed_ = false;
};

}  // namespace pinbench::cuda
