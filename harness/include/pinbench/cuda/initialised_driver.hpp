// The CUDA driver loaded and initialised (cuInit) in this process, never a context: what the
// driver holder process (`pinbench __hold-driver`, run/driver_hold.hpp) holds to keep the driver
// ready for the children measuring beside it. Held as long as the object lives.
#pragma once

#include <memory>
#include <string>

namespace pinbench::cuda {

class DriverApi;

class InitialisedDriver {
public:
    // The driver loaded and cuInit called; nullptr with *why when either fails.
    static std::unique_ptr<InitialisedDriver> open(std::string* why);
    ~InitialisedDriver();
    InitialisedDriver(const InitialisedDriver&) = delete;
    InitialisedDriver& operator=(const InitialisedDriver&) = delete;

private:
    explicit InitialisedDriver(std::unique_ptr<DriverApi> api);
    std::unique_ptr<DriverApi> api_;
};

}  // namespace pinbench::cuda
