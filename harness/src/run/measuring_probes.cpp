#include "run/measuring_probes.hpp"

#include "pinbench/device.hpp"
#include "pinbench/platform_probes.hpp"

namespace pinbench {

ProbeSet make_measuring_probes(const std::vector<int>& devices, const Nvml* nvml) {
    ProbeSet set;
    set.add(make_cuda_meminfo_probe(devices.front()));
    const std::uint32_t pid = current_process_id();
    if (nvml != nullptr) {
        // Children run with CUDA_DEVICE_ORDER=PCI_BUS_ID, so CUDA index i is NVML index i.
        std::vector<unsigned> indices(devices.begin(), devices.end());
        set.add(make_nvml_probe(*nvml, indices, pid));
    }
    for (auto& p : make_platform_probes(device_luid(devices.front()), pid)) set.add(std::move(p));
    return set;
}

}  // namespace pinbench
