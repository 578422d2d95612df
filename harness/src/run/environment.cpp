#include "run/environment.hpp"

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <vector>

#include "pinbench/device.hpp"
#include "pinbench/platform_probes.hpp"
#include "run/measuring_probes.hpp"

namespace pinbench {
namespace {

nlohmann::json unavailable(const std::string& why) { return {{"unavailable", why}}; }

nlohmann::json env_var(const char* name) {
    const char* v = std::getenv(name);
    return v ? nlohmann::json(v) : unavailable("not set");
}

template <typename T>
nlohmann::json maybe_json(const Maybe<T>& m) {
    return m.value ? nlohmann::json(*m.value) : unavailable(m.why);
}

}  // namespace

nlohmann::json collect_environment(const Nvml* nvml, const std::string& nvml_why, int gpus) {
    nlohmann::json env;
    env["os"] = os_environment();
    const std::string platform = env["os"].value("platform", "unknown");
    env["platform"] = platform;

    const nlohmann::json cuda0 = describe_cuda(-1);
    nlohmann::json driver;
    driver["release"] = nvml ? maybe_json(nvml->driver_version()) : unavailable("NVML: " + nvml_why);
    driver["release_source"] = "nvmlSystemGetDriverVersion";
    driver["cuda_driver_version"] = cuda0["cuda_driver_version"];
    driver["cuda_runtime_version"] = cuda0["cuda_runtime_version"];
    driver["cuda_runtime_built"] = cuda0["cuda_runtime_built"];
    env["driver"] = driver;
    env["cuda_module_loading"] = cuda0["cuda_module_loading"];
    env["cuda_device_order"] = env_var("CUDA_DEVICE_ORDER");
    env["cuda_visible_devices"] = env_var("CUDA_VISIBLE_DEVICES");
    env["nvml"] = nvml ? nlohmann::json({{"available", true}})
                       : nlohmann::json({{"available", false}, {"why", nvml_why}});

    std::string why;
    const int cuda_count = cuda_device_count(&why);
    env["cuda_device_count"] = cuda_count;
    if (cuda_count == 0) env["cuda_device_count_why"] = why;
    env["nvml_device_count"] = nvml ? nlohmann::json(nvml->device_count()) : unavailable(nvml_why);

    nlohmann::json devices = nlohmann::json::array();
    const int described = std::min(std::max(gpus, 1), cuda_count);
    std::vector<int> cuda_ids;
    for (int d = 0; d < described; ++d) cuda_ids.push_back(d);
    // CUDA index d and NVML index differ under CUDA_VISIBLE_DEVICES: match by UUID.
    const std::vector<std::optional<unsigned>> nvml_index =
        nvml ? nvml_indices_of(cuda_ids, *nvml) : std::vector<std::optional<unsigned>>(cuda_ids.size());
    for (int d = 0; d < described; ++d) {
        nlohmann::json dev = describe_cuda(d)["device"];
        if (nvml && nvml_index[d]) {
            dev["nvml_index"] = *nvml_index[d];
            dev["nvml"] = describe_device(*nvml, *nvml_index[d]);
        } else {
            dev["nvml_index"] = nullptr;
            dev["nvml"] = unavailable(nvml ? "no NVML device has this GPU's UUID or PCI bus id" : nvml_why);
        }
        // The driver model is a Windows notion; on Linux the model is "linux".
        nlohmann::json model = dev["nvml"].is_object() && dev["nvml"].contains("driver_model")
                                   ? dev["nvml"]["driver_model"]
                                   : nlohmann::json::object();
        if (platform == "linux") model = {{"current", "linux"}, {"pending", "linux"}};
        if (!model.contains("current")) model["current"] = "unknown";
        dev["driver_model"] = model;
        devices.push_back(dev);
    }
    env["devices"] = devices;

    // Other compute processes: another process's allocations would move device-level probes.
    nlohmann::json others = nlohmann::json::array();
    if (nvml) {
        const std::uint32_t self = current_process_id();
        for (int d = 0; d < described; ++d) {
            if (!nvml_index[d]) continue;
            const auto procs = nvml->compute_processes(*nvml_index[d]);
            if (!procs.value) continue;
            for (const auto& p : *procs.value) {
                if (p.pid == self) continue;
                others.push_back({{"device", d}, {"pid", p.pid}, {"used", maybe_json(p.used)}});
            }
        }
    }
    env["other_compute_processes"] = others;
    return env;
}

std::string driver_model_of(const nlohmann::json& environment, std::size_t index) {
    const auto& devices = environment.value("devices", nlohmann::json::array());
    if (index >= devices.size()) return "unknown";
    const auto& m = devices[index].value("driver_model", nlohmann::json::object());
    return m.contains("current") && m["current"].is_string() ? m["current"].get<std::string>() : "unknown";
}

}  // namespace pinbench
