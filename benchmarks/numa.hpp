// Placing the benchmark on the GPU's NUMA node: the calling thread is bound to the CPUs
// local to the GPU's PCI device, before any host memory or CUDA context exists, so that
// every later thread (copy threads, CUDA's own) inherits the binding and every buffer is
// first touched, and therefore allocated, on that node. One header; numa_posix.cpp and
// numa_win32.cpp implement it.
#pragma once

#include <string>

namespace pinbench::bench {

struct NumaPlacement {
    bool placed = false;
    std::string gpu_node;    // the device's NUMA node as the OS reports it, or why unknown
    std::string local_cpus;  // the CPU list bound to, or why none
    std::string detail;      // how placement was done, or why it was not ("not placed: ...")
};

// `sysfs_address`: the device's PCI address as sysfs spells it ("0000:3b:00.0"); empty when
// unknown (then nothing is placed). Never throws.
NumaPlacement place_near_pci_device(const std::string& sysfs_address);

}  // namespace pinbench::bench
