#include "run/measuring_probes.hpp"

#include "pinbench/cuda/device.hpp"
#include "pinbench/probes/device_map.hpp"
#include "pinbench/probes/platform_probes.hpp"

namespace pinbench {

std::vector<std::optional<unsigned>> nvml_indices_of(const std::vector<int>& cuda_devices, const Nvml& nvml) {
    std::vector<DeviceIdentity> cuda, nv;
    for (int d : cuda_devices) cuda.push_back(device_identity(d));
    for (unsigned i = 0; i < nvml.device_count(); ++i) {
        nv.push_back({nvml.uuid(i).value.value_or(""), nvml.pci_bus_id(i).value.value_or("")});
    }
    return map_cuda_to_nvml(cuda, nv);
}

ProbeSet make_measuring_probes(const std::vector<int>& devices, const Nvml* nvml, NvmlScope scope) {
    ProbeSet set;
    set.add(make_cuda_meminfo_probe(devices.front()));
    const std::uint32_t pid = current_process_id();
    if (nvml != nullptr) {
        std::vector<int> cuda = devices;
        if (scope == NvmlScope::every_device) {
            cuda.clear();
            std::string why;
            for (int d = 0; d < cuda_device_count(&why); ++d) cuda.push_back(d);
        }
        // A CUDA device NVML cannot match has no NVML keys; the controls then say so.
        std::vector<unsigned> indices;
        for (const auto& i : nvml_indices_of(cuda, *nvml)) {
            if (i) indices.push_back(*i);
        }
        if (!indices.empty()) set.add(make_nvml_probe(*nvml, indices, pid));
    }
    for (auto& p : make_platform_probes(device_luid(devices.front()), pid)) set.add(std::move(p));
    return set;
}

}  // namespace pinbench
