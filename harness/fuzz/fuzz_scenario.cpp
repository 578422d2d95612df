// libFuzzer target: the scenario reader (fuzz_entries.hpp). Built with -DPINBENCH_FUZZ=ON; run by ci/fuzz.sh.
#include "fuzz_entries.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    pinbench::fuzz::scenario(data, size);
    return 0;
}
