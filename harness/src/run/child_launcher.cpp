#include "run/child_launcher.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <string_view>
#include <system_error>

#include "pinbench/platform/atomic_file.hpp"
#include "pinbench/platform/directory_claim.hpp"
#include "pinbench/platform/interrupt.hpp"
#include "pinbench/platform/utf8.hpp"
#include "pinbench/probes/platform_probes.hpp"
#include "pinbench/vocabulary/errors.hpp"
#include "platform/temp_directory.hpp"
#include "run/protocol.hpp"

namespace pinbench {

namespace fs = std::filesystem;

std::map<std::string, std::string> child_environment() { return {{"CUDA_DEVICE_ORDER", "PCI_BUS_ID"}}; }

namespace {

constexpr const char* kWorkDirPrefix = "pinbench-";
constexpr const char* kClaimFile = "claim";
// A directory of a pinbench from before claims, last written this long ago: no repeat lasts so
// long (each one writes its request there).
constexpr auto kUnclaimedAge = std::chrono::hours(24);

// "pinbench-<pid>-<8 hex>", as ChildLauncher names its work directories.
bool is_work_dir_name(std::string_view name) {
    if (!name.starts_with(kWorkDirPrefix)) return false;
    name.remove_prefix(std::string_view(kWorkDirPrefix).size());
    const std::size_t dash = name.find('-');
    if (dash == 0 || dash == std::string_view::npos || name.size() - dash - 1 != 8) return false;
    const auto digit = [](char c) { return c >= '0' && c <= '9'; };
    const auto hex = [&](char c) { return digit(c) || (c >= 'a' && c <= 'f'); };
    return std::ranges::all_of(name.substr(0, dash), digit) &&
           std::ranges::all_of(name.substr(dash + 1), hex);
}

}  // namespace

std::vector<std::string> remove_abandoned_work_dirs(const std::string& temp_dir, fs::file_time_type now) {
    std::vector<std::string> removed;
    // increment(walk), not a range-for (whose ++ throws): a sweep that fails must not fail the run.
    std::error_code walk;
    for (fs::directory_iterator it(path_from_utf8(temp_dir), walk), end; !walk && it != end;
         it.increment(walk)) {
        const fs::directory_entry& entry = *it;
        std::error_code ec;  // this entry's: another user's directory fails here, the walk goes on
        const std::string name = utf8_of(entry.path().filename());
        if (!is_work_dir_name(name) || !entry.is_directory(ec)) continue;
        const ClaimState state = claim_state(utf8_of(entry.path() / kClaimFile));
        const bool abandoned = state == ClaimState::abandoned ||
                               (state == ClaimState::absent &&
                                fs::last_write_time(entry.path(), ec) < now - kUnclaimedAge && !ec);
        if (abandoned && fs::remove_all(entry.path(), ec) > 0 && !ec) {
            removed.push_back(utf8_of(entry.path()));
        }
    }
    return removed;
}

ChildLauncher::ChildLauncher(std::string executable) : executable_(std::move(executable)) {
    const fs::path temp = path_from_utf8(temp_directory());
    // What runs killed outright (SIGKILL, a cancelled job) left: their requests and responses.
    remove_abandoned_work_dirs(utf8_of(temp));
    const fs::path dir = temp / path_from_utf8(kWorkDirPrefix + std::to_string(current_process_id()) + "-" +
                                               make_nonce().substr(0, 8));
    create_temp_folder(utf8_of(dir));
    work_dir_ = utf8_of(dir);
    claim_.emplace(utf8_of(dir / kClaimFile));
}

ChildLauncher::~ChildLauncher() {
    claim_.reset();  // Windows removes no file that is open
    std::error_code ignored;
    fs::remove_all(path_from_utf8(work_dir_), ignored);
}

std::unique_ptr<Subprocess> ChildLauncher::start_tied(const std::string& subcommand) {
    return std::make_unique<Subprocess>(
        std::vector<std::string>{executable_, subcommand, "--parent", std::to_string(current_process_id())},
        child_environment());
}

std::unique_ptr<Subprocess> ChildLauncher::start(nlohmann::json& request) {
    const int n = counter_++;
    request["protocol"] = child_protocol;
    request["nonce"] = make_nonce();
    request["parent_pid"] = current_process_id();  // the child dies with this process
    if (!request.contains("run_id")) request["run_id"] = "";
    if (!request.contains("repeat")) request["repeat"] = -1;
    const fs::path req = path_from_utf8(work_dir_) / path_from_utf8("request-" + std::to_string(n) + ".json");
    const fs::path resp =
        path_from_utf8(work_dir_) / path_from_utf8("response-" + std::to_string(n) + ".json");
    std::error_code ignored;
    fs::remove(resp, ignored);
    request["response_path"] = utf8_of(resp);
    write_file_atomically(utf8_of(req), request.dump());
    return std::make_unique<Subprocess>(
        std::vector<std::string>{executable_, "__child", "--request", utf8_of(req)}, child_environment());
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
    if (!fs::exists(path_from_utf8(resp_path), ec)) {
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
