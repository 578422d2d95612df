// libFuzzer target: the results reader (fuzz_entries.hpp). Built with -DPINBENCH_FUZZ=ON; run by ci/fuzz.sh.
#include "fuzz_entries.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    pinbench::fuzz::results(data, size);
    return 0;
}
