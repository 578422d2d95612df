// RAII owners of driver streams and events, and a guard that restores the current device.
// CUDA core only (harness/src/cuda/), through the driver table.
#pragma once

#include <utility>

#include "cuda/driver_api.hpp"

namespace pinbench::cuda {

// A non-blocking stream: it does not synchronise with the legacy default stream, so work
// the caller puts there does not serialise with ours.
class Stream {
public:
    Stream() {
        const DriverApi& d = driver();
        d.call(d.stream_create, &stream_, static_cast<unsigned>(CU_STREAM_NON_BLOCKING));
    }
    ~Stream() {
        if (stream_ != nullptr) call_quietly(&DriverApi::stream_destroy, stream_);
    }
    Stream(const Stream&) = delete;
    Stream& operator=(const Stream&) = delete;
    CUstream get() const { return stream_; }

private:
    CUstream stream_ = nullptr;
};

class Event {
public:
    // timing = false: CU_EVENT_DISABLE_TIMING, the cheapest event for synchronisation only.
    explicit Event(bool timing) {
        const DriverApi& d = driver();
        d.call(d.event_create, &event_,
               static_cast<unsigned>(timing ? CU_EVENT_DEFAULT : CU_EVENT_DISABLE_TIMING));
    }
    ~Event() {
        if (event_ != nullptr) call_quietly(&DriverApi::event_destroy, event_);
    }
    Event(const Event&) = delete;
    Event& operator=(const Event&) = delete;
    CUevent get() const { return event_; }

private:
    CUevent event_ = nullptr;
};

// Makes `device`'s primary context current for a scope and restores the caller's context
// afterwards, so a library call does not change the caller's state.
class DeviceGuard {
public:
    explicit DeviceGuard(int device) {
        const DriverApi& d = driver();
        d.call(d.ctx_get_current, &previous_);
        make_current(device);
    }
    ~DeviceGuard() { call_quietly(&DriverApi::ctx_set_current, previous_); }
    DeviceGuard(const DeviceGuard&) = delete;
    DeviceGuard& operator=(const DeviceGuard&) = delete;

private:
    CUcontext previous_ = nullptr;
};

}  // namespace pinbench::cuda
