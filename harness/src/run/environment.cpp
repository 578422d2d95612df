#include "run/environment.hpp"

#include <algorithm>
#include <cstdlib>
#include <numeric>
#include <optional>
#include <vector>

#include "pinbench/cuda/device.hpp"
#include "pinbench/platform/utf8.hpp"
#include "pinbench/probes/platform_probes.hpp"
#include "run/measuring_probes.hpp"

namespace pinbench {
namespace {

Maybe<std::string> env_var(const char* name) {
    const std::optional<std::string> v = environment_variable(name);
    return v ? Maybe<std::string>::of(*v) : Maybe<std::string>::none("not set");
}

}  // namespace

EnvironmentRecord gather_environment(const Nvml* nvml, const std::string& nvml_why, int gpus) {
    EnvironmentRecord r;
    r.os = os_facts();
    r.cuda = cuda_facts();
    r.driver_release = nvml ? nvml->driver_version() : Maybe<std::string>::none("NVML: " + nvml_why);
    r.cuda_device_order = env_var("CUDA_DEVICE_ORDER");
    r.cuda_visible_devices = env_var("CUDA_VISIBLE_DEVICES");
    r.nvml_why = nvml ? std::string() : (nvml_why.empty() ? std::string("unavailable") : nvml_why);
    r.cuda_device_count = cuda_device_count(&r.cuda_device_count_why);
    r.nvml_device_count = nvml ? Maybe<unsigned>::of(nvml->device_count()) : Maybe<unsigned>::none(nvml_why);

    const int described = std::min(std::max(gpus, 1), r.cuda_device_count);
    std::vector<int> cuda_ids(static_cast<std::size_t>(std::max(described, 0)));
    std::iota(cuda_ids.begin(), cuda_ids.end(), 0);
    // CUDA index d and NVML index differ under CUDA_VISIBLE_DEVICES: match by UUID.
    const std::vector<std::optional<unsigned>> nvml_index =
        nvml ? nvml_indices_of(cuda_ids, *nvml) : std::vector<std::optional<unsigned>>(cuda_ids.size());
    for (int d = 0; d < described; ++d) {
        DeviceRecord dev;
        dev.cuda = cuda_device_facts(d);
        dev.nvml_index = nvml_index[d];
        dev.nvml = nvml && nvml_index[d]
                       ? Maybe<NvmlDeviceFacts>::of(nvml_device_facts(*nvml, *nvml_index[d]))
                       : Maybe<NvmlDeviceFacts>::none(
                             nvml ? "no NVML device has this GPU's UUID or PCI bus id" : nvml_why);
        r.devices.push_back(std::move(dev));
    }

    // Other compute processes: another process's allocations would move device-level probes.
    if (nvml) {
        const std::uint32_t self = current_process_id();
        for (int d = 0; d < described; ++d) {
            if (!nvml_index[d]) continue;
            const auto procs = nvml->compute_processes(*nvml_index[d]);
            if (!procs.value) continue;
            for (const auto& p : *procs.value) {
                if (p.pid != self) r.other_compute_processes.push_back({d, p.pid, p.used});
            }
        }
    }
    return r;
}

nlohmann::json collect_environment(const Nvml* nvml, const std::string& nvml_why, int gpus) {
    return environment_json(gather_environment(nvml, nvml_why, gpus));
}

}  // namespace pinbench
