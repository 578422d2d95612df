// The NVML memory probe. It only reads NVML, so it creates no CUDA context and can watch a
// device from a process that never touches CUDA (the parent of a run).
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "pinbench/cuda/nvml.hpp"

namespace pinbench {
namespace {

Reading to_reading(const Maybe<std::uint64_t>& m) {
    if (!m.value) return Reading::not_available(m.why);
    if (*m.value > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
        return Reading::not_available("value " + std::to_string(*m.value) + " out of range");
    }
    return Reading::of(static_cast<std::int64_t>(*m.value));
}

class NvmlProbe final : public Probe {
public:
    NvmlProbe(const Nvml& nvml, std::vector<unsigned> devices, std::uint32_t pid)
        : nvml_(nvml), devices_(std::move(devices)), pid_(pid) {}

    std::string name() const override { return "nvml"; }

    std::string source() const override {
        std::string list;
        for (unsigned i : devices_) list += (list.empty() ? "" : ",") + std::to_string(i);
        std::string s = "NVML nvmlDeviceGetMemoryInfo_v2 (device-wide) for NVML device(s) " + list;
        if (pid_ != 0) s += ", nvmlDeviceGetComputeRunningProcesses for pid " + std::to_string(pid_);
        return s;
    }

    void read(Readings& out) override {
        for (unsigned i : devices_) {
            const std::string prefix = "nvml." + std::to_string(i) + ".";
            const NvmlDeviceMemory m = nvml_.memory(i);
            out[prefix + "used"] = to_reading(m.used);
            out[prefix + "free"] = to_reading(m.free);
            out[prefix + "total"] = to_reading(m.total);
            out[prefix + "reserved"] = to_reading(m.reserved);
            if (pid_ != 0) out[prefix + "process_used"] = process_used(i);
        }
    }

private:
    // A pid can be listed more than once (one entry per MIG instance): the entries add up.
    Reading process_used(unsigned index) const {
        const auto processes = nvml_.compute_processes(index);
        if (!processes.value) return Reading::not_available(processes.why);
        bool found = false;
        std::uint64_t total = 0;
        for (const NvmlProcess& p : *processes.value) {
            if (p.pid != pid_) continue;
            if (!p.used.value) return Reading::not_available(p.used.why);
            found = true;
            total += *p.used.value;
        }
        if (!found) return Reading::not_available("pid not in the compute process list");
        return to_reading(Maybe<std::uint64_t>::of(total));
    }

    const Nvml& nvml_;  // outlives the probe: the caller owns both
    std::vector<unsigned> devices_;
    std::uint32_t pid_;
};

}  // namespace

std::unique_ptr<Probe> make_nvml_probe(const Nvml& nvml, std::vector<unsigned> devices, std::uint32_t pid) {
    return std::make_unique<NvmlProbe>(nvml, std::move(devices), pid);
}

}  // namespace pinbench
