// Windows: not implemented; the context records that nothing was placed.
#include "numa.hpp"

namespace pinbench::bench {

NumaPlacement place_near_pci_device(const std::string&) {
    NumaPlacement p;
    p.gpu_node = "unknown: not read on Windows";
    p.local_cpus = "unknown: not read on Windows";
    p.detail = "not placed: NUMA placement is implemented for Linux only";
    return p;
}

}  // namespace pinbench::bench
