#include "context.hpp"

#include <exception>
#include <nlohmann/json.hpp>
#include <sstream>

#include "numa.hpp"
#include "os_memory.hpp"
#include "pinbench/cuda/nvml.hpp"
#include "pinbench/results/environment_record.hpp"
#include "topology.hpp"

namespace pinbench::bench {

namespace {

template <typename T>
std::string text(const Maybe<T>& m) {
    if (!m.value) return "not available: " + m.why;
    std::ostringstream s;
    s << *m.value;
    return s.str();
}

void add(const std::string& key, const std::string& value) { benchmark::AddCustomContext(key, value); }

// Facts read through NVML before CUDA starts (NVML creates no CUDA context).
struct NvmlFacts {
    std::string sysfs_address;  // empty when unknown
    std::string bus_id = "not available";
    std::optional<double> link;
};

NvmlFacts add_nvml_context(const Nvml* nvml, const std::string& why, unsigned index) {
    NvmlFacts f;
    if (nvml == nullptr) {
        const std::string na = "not available: " + why;
        for (const char* key :
             {"driver.release", "driver.model", "driver.model_pending", "driver.cuda_version", "gpu.name",
              "gpu.pci_bus_id", "pcie.gen_current", "pcie.gen_max", "pcie.width_current", "pcie.width_max",
              "pcie.link_bytes_per_second", "pcie.link_basis", "gpu.nvml"}) {
            add(key, na);
        }
        return f;
    }
    add("driver.release", text(nvml->driver_version()));
    add("driver.model", text(nvml->driver_model_current(index)));
    add("driver.model_pending", text(nvml->driver_model_pending(index)));
    add("driver.cuda_version", text(nvml->cuda_driver_version()));
    add("gpu.name", text(nvml->name(index)));
    const auto bus = nvml->pci_bus_id(index);
    f.bus_id = text(bus);
    add("gpu.pci_bus_id", f.bus_id);
    if (bus.value) f.sysfs_address = sysfs_pci_address(*bus.value).value_or("");
    const NvmlPcie pcie = nvml->pcie(index);
    add("pcie.gen_current", text(pcie.gen_current));
    add("pcie.gen_max", text(pcie.gen_max));
    add("pcie.width_current", text(pcie.width_current));
    add("pcie.width_max", text(pcie.width_max));
    // The maximum, not the current link: an idle GPU trains its link down to save power.
    if (pcie.gen_max.value && pcie.width_max.value) {
        const LinkRate rate = pcie_link_rate(*pcie.gen_max.value, *pcie.width_max.value);
        f.link = rate.bytes_per_second;
        add("pcie.link_bytes_per_second",
            rate.bytes_per_second ? std::to_string(*rate.bytes_per_second) : rate.basis);
        add("pcie.link_basis", rate.basis);
    } else {
        const std::string na =
            "not computed: " + (pcie.gen_max.value ? pcie.width_max.why : pcie.gen_max.why);
        add("pcie.link_bytes_per_second", na);
        add("pcie.link_basis", na);
    }
    add("gpu.nvml", nvml_device_json(nvml_device_facts(*nvml, index)).dump());
    return f;
}

// Whether CUDA's device `device` sits at the PCI address NVML gave for the same index.
std::string nvml_cuda_match(const nlohmann::json& cuda, const NvmlFacts& f) {
    const auto& d = cuda.value("device", nlohmann::json::object());
    const auto dom = d.value("pci_domain_id", nlohmann::json()),
               bus = d.value("pci_bus_id", nlohmann::json()),
               dev = d.value("pci_device_id", nlohmann::json());
    if (!dom.is_number() || !bus.is_number() || !dev.is_number() || f.sysfs_address.empty()) {
        return "unknown: a PCI address is not available";
    }
    return same_pci_device(f.sysfs_address, dom.get<unsigned>(), bus.get<unsigned>(), dev.get<unsigned>())
               ? "yes: NVML and CUDA name the same PCI device"
               : "NO: NVML index and CUDA index are different devices (set CUDA_DEVICE_ORDER=PCI_BUS_ID)";
}

}  // namespace

Machine prepare_machine(int device) {
    Machine m;
    m.device = device;
    add("pinbench.context_schema_version", std::to_string(context_schema_version));

    std::string nvml_why;
    const std::unique_ptr<Nvml> nvml = Nvml::open(&nvml_why);
    const NvmlFacts facts = add_nvml_context(nvml.get(), nvml_why, static_cast<unsigned>(device));
    m.link_bytes_per_second = facts.link;

    // Before any host allocation or CUDA context (see numa.hpp).
    const NumaPlacement numa = place_near_pci_device(facts.sysfs_address);
    add("numa.gpu_node", numa.gpu_node);
    add("numa.local_cpus", numa.local_cpus);
    add("numa.placed", numa.placed ? "yes" : "no");
    add("numa.placement", numa.detail);
    add("os.page_backing", page_backing_notes());

    std::string why;
    if (cuda_device_count(&why) <= device) {
        m.no_gpu_reason = "no CUDA device " + std::to_string(device) + ": " + why;
        add("cuda.environment", "not available: " + m.no_gpu_reason);
        add("gpu.nvml_cuda_match", "unknown: " + m.no_gpu_reason);
        return m;
    }
    try {
        m.context = std::make_unique<DeviceContext>(device);
        const CudaDeviceFacts device_facts = cuda_device_facts(device);
        const nlohmann::json cuda = cuda_environment_json(cuda_facts(), &device_facts);
        add("cuda.environment", cuda.dump());
        add("gpu.nvml_cuda_match", nvml_cuda_match(cuda, facts));
    } catch (const std::exception& e) {
        m.context.reset();
        m.no_gpu_reason =
            std::string("CUDA context on device ") + std::to_string(device) + " failed: " + e.what();
        add("cuda.environment", "not available: " + m.no_gpu_reason);
        add("gpu.nvml_cuda_match", "unknown: " + m.no_gpu_reason);
    }
    return m;
}

bool skip_without_gpu(benchmark::State& state, const Machine& machine) {
    if (machine.has_gpu()) return false;
    state.SkipWithError(machine.no_gpu_reason.c_str());
    return true;
}

void set_transfer_counters(benchmark::State& state, std::size_t bytes_per_iteration, const Machine& machine) {
    using benchmark::Counter;
    const double bytes = static_cast<double>(bytes_per_iteration);
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                            static_cast<std::int64_t>(bytes_per_iteration));
    state.counters["GBps"] = Counter(bytes / 1e9, Counter::kIsIterationInvariantRate);
    if (machine.link_bytes_per_second) {
        state.counters["fraction_of_link"] =
            Counter(bytes / *machine.link_bytes_per_second, Counter::kIsIterationInvariantRate);
    }
    state.counters["bytes"] = Counter(bytes);
}

void skip_with_exception(benchmark::State& state) {
    try {
        throw;
    } catch (const std::exception& e) {
        state.SkipWithError(e.what());
    } catch (...) {
        state.SkipWithError("unknown exception");
    }
}

}  // namespace pinbench::bench
