// GPU tests skip, with the reason, where no CUDA device is present.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "pinbench/cuda/device.hpp"

#define PINBENCH_REQUIRE_GPU()                           \
    do {                                                 \
        std::string why_;                                \
        if (::pinbench::cuda_device_count(&why_) == 0) { \
            GTEST_SKIP() << "no CUDA device: " << why_;  \
        }                                                \
    } while (0)
