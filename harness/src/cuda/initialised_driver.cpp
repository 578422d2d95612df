#include "pinbench/cuda/initialised_driver.hpp"

#include "cuda/driver_api.hpp"

namespace pinbench::cuda {

InitialisedDriver::InitialisedDriver(std::unique_ptr<DriverApi> api) : api_(std::move(api)) {}

InitialisedDriver::~InitialisedDriver() = default;

std::unique_ptr<InitialisedDriver> InitialisedDriver::open(std::string* why) {
    auto api = DriverApi::load(why);
    if (api == nullptr) return nullptr;
    try {
        api->call(api->init, 0u);
    } catch (const std::exception& e) {
        if (why != nullptr) *why = e.what();
        return nullptr;
    }
    return std::unique_ptr<InitialisedDriver>(new InitialisedDriver(std::move(api)));
}

}  // namespace pinbench::cuda
