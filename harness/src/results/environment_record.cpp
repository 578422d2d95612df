// The environment record's keys, written and read here only (pinbench/results/environment_record.hpp).
#include "pinbench/results/environment_record.hpp"

#include <nlohmann/json.hpp>

#include "json/json_reader.hpp"
#include "pinbench/vocabulary/test_double.hpp"

namespace pinbench {
namespace {

using detail::find_member;
using detail::string_or_empty;
using nlohmann::json;

json unavailable(const std::string& why) { return {{"unavailable", why}}; }

template <typename T>
json fact(const Maybe<T>& m) {
    return m.value ? json(*m.value) : unavailable(m.why);
}

json os_json(const OsFacts& os) {
    json j = {{"platform", os.platform},
              {"os_name", fact(os.os_name)},
              {"os_build", fact(os.os_build)},
              {"hostname", fact(os.hostname)},
              {"host_ram_bytes", fact(os.host_ram_bytes)},
              {"cpu_count", fact(os.cpu_count)}};
    if (os.kernel) j["kernel"] = fact(*os.kernel);
    if (os.windows) {
        const OsFacts::Windows& w = *os.windows;
        j["os_edition"] = fact(w.os_edition);
        j["hardware_accelerated_gpu_scheduling"] = fact(w.hardware_accelerated_gpu_scheduling);
        j["session_id"] = fact(w.session_id);
        j["session0"] = w.session_id.value ? json(*w.session_id.value == 0) : j["session_id"];
        j["sysmem_fallback_policy"] = fact(w.sysmem_fallback_policy);
    }
    if (os.wsl) {
        j["wsl"] = {{"version", os.wsl->version},
                    {"signals", os.wsl->signals},
                    {"windows_build", fact(os.wsl->windows_build)}};
    }
    return j;
}

json cuda_device_json(const CudaDeviceFacts& d) {
    json j;
    j["cuda_index"] = d.cuda_index;
    if (const auto& p = d.properties.value) {
        j["name"] = p->name;
        j["uuid"] = p->uuid;
        j["total_global_mem"] = p->total_global_mem;
        j["luid"] = fact(p->luid);
        if (p->luid_device_node_mask) j["luid_device_node_mask"] = *p->luid_device_node_mask;
    } else {
        j["properties"] = unavailable(d.properties.why);
    }
    j["compute_capability"] = fact(d.compute_capability);
    j["tcc_driver"] = fact(d.tcc_driver);
    j["unified_addressing"] = fact(d.unified_addressing);
    j["can_map_host_memory"] = fact(d.can_map_host_memory);
    j["integrated"] = fact(d.integrated);
    j["pageable_memory_access"] = fact(d.pageable_memory_access);
    j["host_register_supported"] = fact(d.host_register_supported);
    j["async_engine_count"] = fact(d.async_engine_count);
    j["pci_domain_id"] = fact(d.pci_domain_id);
    j["pci_bus_id"] = fact(d.pci_bus_id);
    j["pci_device_id"] = fact(d.pci_device_id);
    j["numa_id"] = fact(d.numa_id);
    j["stack_limit_bytes"] = fact(d.stack_limit_bytes);
    return j;
}

// The driver model is a Windows notion; on Linux the model is "linux", under WSL2 the Windows
// driver's WDDM reached through /dev/dxg (kWsl2DriverModel), whatever NVML answers there.
json driver_model_json(const OsFacts& os, const Maybe<NvmlDeviceFacts>& nvml) {
    if (os.wsl && os.wsl->version == 2) return {{"current", kWsl2DriverModel}, {"pending", kWsl2DriverModel}};
    if (os.platform == "linux") return {{"current", "linux"}, {"pending", "linux"}};
    if (!nvml.value) return {{"current", "unknown"}};
    return {{"current", fact(nvml.value->driver_model_current)},
            {"pending", fact(nvml.value->driver_model_pending)}};
}

const json* device_at(const json& environment, std::size_t index) {
    const json* devices = find_member(environment, "devices");
    if (!devices || !devices->is_array() || index >= devices->size()) return nullptr;
    return &(*devices)[index];
}

}  // namespace

json cuda_environment_json(const CudaFacts& cuda, const CudaDeviceFacts* device) {
    json j = {{"cuda_driver_version", fact(cuda.driver_version)},
              {"cuda_runtime_version", fact(cuda.runtime_version)},
              {"cuda_runtime_built", fact(cuda.runtime_built)},
              {"cuda_module_loading", fact(cuda.module_loading)}};
    if (device) j["device"] = cuda_device_json(*device);
    return j;
}

json nvml_device_json(const NvmlDeviceFacts& n) {
    return {
        {"nvml_index", n.nvml_index},
        {"name", fact(n.name)},
        {"uuid", fact(n.uuid)},
        {"pci_bus_id", fact(n.pci_bus_id)},
        {"architecture", fact(n.architecture)},
        {"pcie",
         {{"gen_current", fact(n.pcie_gen_current)},
          {"gen_max", fact(n.pcie_gen_max)},
          {"width_current", fact(n.pcie_width_current)},
          {"width_max", fact(n.pcie_width_max)}}},
        {"numa_node", fact(n.numa_node)},
        {"persistence_mode", fact(n.persistence_mode)},
        {"compute_mode", fact(n.compute_mode)},
        {"display_active", fact(n.display_active)},
        {"ecc", fact(n.ecc)},
        {"mig", fact(n.mig)},
        {"driver_model",
         {{"current", fact(n.driver_model_current)}, {"pending", fact(n.driver_model_pending)}}},
        {"memory_total", fact(n.memory_total)},
    };
}

json environment_json(const EnvironmentRecord& r) {
    json env;
    env["os"] = os_json(r.os);
    env["platform"] = r.os.platform;
    env["driver"] = {{"release", fact(r.driver_release)},
                     {"release_source", "nvmlSystemGetDriverVersion"},
                     {"cuda_driver_version", fact(r.cuda.driver_version)},
                     {"cuda_runtime_version", fact(r.cuda.runtime_version)},
                     {"cuda_runtime_built", fact(r.cuda.runtime_built)}};
    env["cuda_module_loading"] = fact(r.cuda.module_loading);
    env["cuda_device_order"] = fact(r.cuda_device_order);
    env["cuda_visible_devices"] = fact(r.cuda_visible_devices);
    env["nvml"] =
        r.nvml_why.empty() ? json({{"available", true}}) : json({{"available", false}, {"why", r.nvml_why}});
    env["cuda_device_count"] = r.cuda_device_count;
    if (r.cuda_device_count == 0) env["cuda_device_count_why"] = r.cuda_device_count_why;
    env["nvml_device_count"] = fact(r.nvml_device_count);
    json devices = json::array();
    for (const DeviceRecord& d : r.devices) {
        json dev = cuda_device_json(d.cuda);
        dev["nvml_index"] = d.nvml_index ? json(*d.nvml_index) : json(nullptr);
        dev["nvml"] = d.nvml.value ? nvml_device_json(*d.nvml.value) : unavailable(d.nvml.why);
        dev["driver_model"] = driver_model_json(r.os, d.nvml);
        devices.push_back(std::move(dev));
    }
    env["devices"] = std::move(devices);
    json others = json::array();
    for (const OtherComputeProcess& p : r.other_compute_processes) {
        others.push_back({{"device", p.device}, {"pid", p.pid}, {"used", fact(p.used)}});
    }
    env["other_compute_processes"] = std::move(others);
    return env;
}

json replayed_environment(json environment, const std::optional<std::string>& driver_release,
                          const std::optional<std::string>& driver_model) {
    if (driver_release) environment["driver"]["release"] = *driver_release;
    if (driver_model && environment.contains("devices") && environment["devices"].is_array()) {
        for (json& device : environment["devices"]) {
            if (!device.is_object()) continue;
            device["driver_model"]["current"] = *driver_model;
            device["driver_model"]["pending"] = *driver_model;
        }
    }
    environment["replayed"] = true;
    return environment;
}

void note_busy_gpu_allowed(json& environment, const std::string& leftovers) {
    environment["busy_gpu_allowed"] = leftovers;
}

void note_parent_driver(json& environment, bool held, const std::string& why,
                        const std::optional<std::vector<std::string>>& released_for) {
    environment["parent_driver"] = {{"held", held}, {"why", why}};
    if (released_for) environment["parent_driver"]["released_for"] = *released_for;
}

std::string driver_model_family(const std::string& model) {
    return model == kWsl2DriverModel ? std::string("WDDM") : model;
}

std::string platform_of(const json& environment) { return string_or_empty(environment, "platform"); }

std::string driver_release_of(const json& environment) {
    const json* driver = find_member(environment, "driver");
    return driver ? string_or_empty(*driver, "release") : std::string();
}

std::optional<std::int64_t> cuda_device_count_of(const json& environment) {
    const json* count = find_member(environment, "cuda_device_count");
    if (!count || !count->is_number_integer()) return std::nullopt;
    return count->get<std::int64_t>();
}

std::size_t described_device_count(const json& environment) {
    const json* devices = find_member(environment, "devices");
    return devices && devices->is_array() ? devices->size() : 0;
}

std::string device_name_of(const json& environment, std::size_t index) {
    const json* device = device_at(environment, index);
    return device ? string_or_empty(*device, "name") : std::string();
}

bool produced_by_test_double(const json& environment) {
    if (names_test_double(driver_release_of(environment))) return true;
    for (std::size_t i = 0; i < described_device_count(environment); ++i) {
        if (names_test_double(device_name_of(environment, i))) return true;
    }
    return false;
}

std::string device_luid_of(const json& environment, std::size_t index) {
    const json* device = device_at(environment, index);
    return device ? string_or_empty(*device, "luid") : std::string();
}

std::string driver_model_of(const json& environment, std::size_t index) {
    const json* device = device_at(environment, index);
    const json* model = device ? find_member(*device, "driver_model") : nullptr;
    const std::string current = model ? string_or_empty(*model, "current") : std::string();
    return current.empty() ? "unknown" : current;
}

std::optional<unsigned> nvml_index_of(const json& environment, std::size_t index) {
    const json* device = device_at(environment, index);
    if (!device) return std::nullopt;
    const json* n = find_member(*device, "nvml_index");
    if (!n) {
        const json* nvml = find_member(*device, "nvml");
        n = nvml ? find_member(*nvml, "nvml_index") : nullptr;
    }
    if (!n || !n->is_number_integer() || n->get<std::int64_t>() < 0) return std::nullopt;
    return n->get<unsigned>();
}

std::optional<int> wsl_version_of(const json& environment) {
    const json* os = find_member(environment, "os");
    const json* wsl = os ? find_member(*os, "wsl") : nullptr;
    const json* version = wsl ? find_member(*wsl, "version") : nullptr;
    if (!version || !version->is_number_integer()) return std::nullopt;
    return version->get<int>();
}

std::string cuda_device_count_why_of(const json& environment) {
    return string_or_empty(environment, "cuda_device_count_why");
}

std::vector<std::pair<std::string, std::string>> machine_identity_of(const json& environment) {
    const std::optional<std::int64_t> count = cuda_device_count_of(environment);
    return {{"platform", platform_of(environment)},
            {"driver.release", driver_release_of(environment)},
            {"cuda_device_count", count ? std::to_string(*count) : std::string()},
            {"devices[0].name", device_name_of(environment, 0)},
            {"devices[0].driver_model", driver_model_of(environment, 0)}};
}

std::vector<std::pair<std::string, std::string>> environment_summary(const json& environment) {
    const auto text = [](const json* v, const char* otherwise) -> std::string {
        if (!v) return otherwise;
        if (v->is_string()) return v->get<std::string>();
        if (const json* why = find_member(*v, "unavailable"); why && why->is_string()) {
            return "not available (" + why->get<std::string>() + ")";
        }
        return v->dump();
    };
    const auto at = [](const json& j, const char* outer, const char* inner) -> const json* {
        const json* o = find_member(j, outer);
        return o ? find_member(*o, inner) : nullptr;
    };
    std::vector<std::pair<std::string, std::string>> lines;
    lines.emplace_back("platform", text(find_member(environment, "platform"), "unknown"));
    if (find_member(environment, "os")) lines.emplace_back("os", text(at(environment, "os", "os_name"), "?"));
    if (const std::optional<int> wsl = wsl_version_of(environment)) {
        const json* build = at(*find_member(environment, "os"), "wsl", "windows_build");
        lines.emplace_back(
            "wsl", "WSL" + std::to_string(*wsl) +
                       (build && build->is_string() ? ", Windows build " + build->get<std::string>()
                                                    : std::string(", Windows build not readable here")));
    }
    if (find_member(environment, "driver")) {
        lines.emplace_back("driver release", text(at(environment, "driver", "release"), "null"));
        lines.emplace_back("CUDA (driver)", text(at(environment, "driver", "cuda_driver_version"), "null"));
        lines.emplace_back("CUDA (runtime)", text(at(environment, "driver", "cuda_runtime_version"), "null"));
    }
    for (std::size_t i = 0; i < described_device_count(environment); ++i) {
        const json* device = device_at(environment, i);
        const json* index = find_member(*device, "cuda_index");
        const json* model = find_member(*device, "driver_model");
        lines.emplace_back(
            "device " + (index && index->is_number_integer() ? index->dump() : std::string("-1")),
            text(find_member(*device, "name"), "?") + ", driver model " +
                text(model ? find_member(*model, "current") : nullptr, "unknown"));
    }
    const json* others = find_member(environment, "other_compute_processes");
    lines.emplace_back("other compute procs",
                       std::to_string(others && others->is_array() ? others->size() : 0));
    return lines;
}

}  // namespace pinbench
