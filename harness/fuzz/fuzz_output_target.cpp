// libFuzzer target: the output-target rule and its invariant (fuzz_output_target.hpp). Built
// with -DPINBENCH_FUZZ=ON; run by ci/fuzz.sh.
#include "fuzz_entries.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    pinbench::fuzz::output_target(data, size);
    return 0;
}
