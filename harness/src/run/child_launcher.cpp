#include "run/child_launcher.hpp"

#include <filesystem>
#include <system_error>

#include "pinbench/atomic_file.hpp"
#include "pinbench/errors.hpp"
#include "pinbench/interrupt.hpp"
#include "pinbench/platform_probes.hpp"
#include "run/protocol.hpp"

namespace pinbench {

namespace fs = std::filesystem;

std::map<std::string, std::string> child_environment() { return {{"CUDA_DEVICE_ORDER", "PCI_BUS_ID"}}; }

ChildLauncher::ChildLauncher(std::string executable) : executable_(std::move(executable)) {
    const fs::path dir = fs::temp_directory_path() / ("pinbench-" + std::to_string(current_process_id()) +
                                                      "-" + make_nonce().substr(0, 8));
    fs::create_directories(dir);
    work_dir_ = dir.string();
}

ChildLauncher::~ChildLauncher() {
    std::error_code ignored;
    fs::remove_all(work_dir_, ignored);
}

std::unique_ptr<Subprocess> ChildLauncher::start(nlohmann::json& request) {
    const int n = counter_++;
    request["protocol"] = child_protocol;
    request["nonce"] = make_nonce();
    request["parent_pid"] = current_process_id();  // the child dies with this process
    if (!request.contains("run_id")) request["run_id"] = "";
    if (!request.contains("repeat")) request["repeat"] = -1;
    const fs::path req = fs::path(work_dir_) / ("request-" + std::to_string(n) + ".json");
    const fs::path resp = fs::path(work_dir_) / ("response-" + std::to_string(n) + ".json");
    std::error_code ignored;
    fs::remove(resp, ignored);
    request["response_path"] = resp.string();
    write_file_atomically(req.string(), request.dump());
    return std::make_unique<Subprocess>(
        std::vector<std::string>{executable_, "__child", "--request", req.string()}, child_environment());
}

ChildLauncher::Result ChildLauncher::collect(const nlohmann::json& request, ProcessOutcome outcome) {
    Result result;
    result.outcome = std::move(outcome);
    const auto& o = result.outcome;
    if (o.kind == ProcessOutcome::Kind::timed_out) {
        result.problem =
            "timed out after " + std::to_string(static_cast<long long>(o.wall_ms / 1000)) + " s; killed";
        return result;
    }
    if (o.kind == ProcessOutcome::Kind::interrupted) {
        result.problem = "interrupted (" + stop_signal_name(stop_signal()) + "); the child was ended";
        return result;
    }
    if (o.kind == ProcessOutcome::Kind::signalled) {
        result.problem = "child crashed (signal " + std::to_string(o.signal) + ")";
        return result;
    }
    const std::string resp_path = request.at("response_path").get<std::string>();
    std::error_code ec;
    if (!fs::exists(resp_path, ec)) {
        result.problem = "child exited with code " + std::to_string(o.exit_code) + " without a response";
        return result;
    }
    try {
        nlohmann::json response = nlohmann::json::parse(read_file(resp_path));
        if (auto why = response_mismatch(request, response); !why.empty()) {
            result.problem = why;
            return result;
        }
        result.response = std::move(response);
    } catch (const std::exception& e) {
        result.problem = std::string("unreadable response: ") + e.what();
    }
    return result;
}

ChildLauncher::Result ChildLauncher::run(nlohmann::json request, std::chrono::milliseconds timeout) {
    auto child = start(request);
    ProcessOutcome outcome = child->wait(timeout);
    return collect(request, std::move(outcome));
}

}  // namespace pinbench
