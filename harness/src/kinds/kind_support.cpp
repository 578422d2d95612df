#include "kinds/kind_support.hpp"

#include <new>

#include "pinbench/probes/platform_probes.hpp"
#include "pinbench/vocabulary/errors.hpp"
#include "pinbench/vocabulary/units.hpp"

namespace pinbench::kinds {

namespace {
const nlohmann::json& param(const PlannedRun& run, const char* name) {
    const auto it = run.params.find(name);
    if (it == run.params.end()) {
        throw InputError("run " + run.id + ": kind " + run.kind + " needs the parameter '" + name + "'");
    }
    return *it;
}
[[noreturn]] void mistyped(const PlannedRun& run, const char* name, const char* want) {
    throw InputError("run " + run.id + ": parameter '" + name + "' must be " + want + ", got " +
                     param(run, name).dump());
}
}  // namespace

std::uint64_t param_bytes(const PlannedRun& run, const char* name) {
    const auto& v = param(run, name);
    if (!v.is_number_unsigned()) mistyped(run, name, "a size in bytes");
    return v.get<std::uint64_t>();
}
int param_int(const PlannedRun& run, const char* name) {
    const auto& v = param(run, name);
    if (!v.is_number_integer()) mistyped(run, name, "an integer");
    return v.get<int>();
}
double param_number(const PlannedRun& run, const char* name) {
    const auto& v = param(run, name);
    if (!v.is_number()) mistyped(run, name, "a number");
    return v.get<double>();
}
std::string param_choice(const PlannedRun& run, const char* name) {
    const auto& v = param(run, name);
    if (!v.is_string()) mistyped(run, name, "a name");
    return v.get<std::string>();
}

namespace {
bool has_param(const PlannedRun& run, const char* name) {
    return run.params.contains(name) && !run.params[name].is_null();
}
}  // namespace

std::uint64_t param_bytes_or(const PlannedRun& run, const char* name, std::uint64_t fallback) {
    return has_param(run, name) ? param_bytes(run, name) : fallback;
}
std::string param_choice_or(const PlannedRun& run, const char* name, const char* fallback) {
    return has_param(run, name) ? param_choice(run, name) : fallback;
}

std::optional<std::string> free_target_not_below(const MemInfo& info, std::uint64_t free_target) {
    if (free_target >= info.total) {
        return "free_target " + size_label(free_target) + " is not below device 0's memory (" +
               size_label(info.total) + ")";
    }
    if (free_target >= info.free) {
        return "free_target " + size_label(free_target) + " is not below device 0's free memory (" +
               size_label(info.free) + ") after creating the context";
    }
    return std::nullopt;
}

Machine with_device0(const PlannedRun& run, const Devices& devices) {
    return Machine{run.gpus, devices.contexts.front()->mem_info()};
}

void throw_if_waived(const std::optional<std::string>& why) {
    if (why) throw UnsupportedError(*why);
}

std::vector<std::unique_ptr<HostBuffer>> pin_buffers(ApiVariant api, std::uint64_t bytes, int count) {
    std::vector<std::unique_ptr<HostBuffer>> buffers;
    try {
        for (int i = 0; i < count; ++i) buffers.push_back(allocate_host_buffer(api, bytes));
    } catch (const CudaError& e) {
        if (!e.is_out_of_memory()) throw;
        throw UnsupportedError(std::string(e.what()) + " at buffer " + std::to_string(buffers.size() + 1) +
                               " of " + std::to_string(count) + ": more than this machine can pin");
    } catch (const std::bad_alloc&) {
        throw UnsupportedError("host allocation failed at buffer " + std::to_string(buffers.size() + 1) +
                               ": more memory than this machine has");
    }
    return buffers;
}

nlohmann::json backing_of(const std::vector<std::unique_ptr<HostBuffer>>& buffers) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& b : buffers) out.push_back(b->backing());
    return out;
}

}  // namespace pinbench::kinds
