// Starts `pinbench __child` processes: writes the request, waits with a timeout, accepts only
// the response that carries the request's nonce. Owns a private work directory (RAII), claimed
// (pinbench/platform/directory_claim.hpp) so that the next launcher removes it if this process is killed.
#pragma once

#include <chrono>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "pinbench/platform/directory_claim.hpp"
#include "pinbench/platform/subprocess.hpp"

namespace pinbench {

class ChildLauncher {
public:
    explicit ChildLauncher(std::string executable);
    ~ChildLauncher();  // removes the work directory
    ChildLauncher(const ChildLauncher&) = delete;
    ChildLauncher& operator=(const ChildLauncher&) = delete;

    struct Result {
        std::optional<nlohmann::json> response;  // present when a matching response arrived
        ProcessOutcome outcome;
        std::string problem;  // why there is no response (crash, timeout, mismatch, exit code)
    };

    // Runs one request to completion. Fills in nonce, response_path and protocol.
    Result run(nlohmann::json request, std::chrono::milliseconds timeout);

    // For handshakes: prepares the request and starts the child; collect() reads the response
    // after the caller waited for the process.
    std::unique_ptr<Subprocess> start(nlohmann::json& request);
    Result collect(const nlohmann::json& request, ProcessOutcome outcome);

    // Starts `pinbench <subcommand> --parent <this process>`: a hidden subcommand that dies with
    // this process and runs until its stdin closes (the driver holder, run/driver_hold.hpp).
    std::unique_ptr<Subprocess> start_tied(const std::string& subcommand);

private:
    std::string executable_;
    std::string work_dir_;
    std::optional<DirectoryClaim> claim_;
    int counter_ = 0;
};

// Removes the work directories under `temp_dir` that no live pinbench claims, and unclaimed
// ones (an older pinbench's) last written over a day before `now`; returns their paths. Another
// user's directories, and anything not named as a launcher names its own, are left alone.
std::vector<std::string> remove_abandoned_work_dirs(
    const std::string& temp_dir,
    std::filesystem::file_time_type now = std::filesystem::file_time_type::clock::now());

// Environment every child gets: CUDA device indices in PCI order, so they match NVML's.
std::map<std::string, std::string> child_environment();

}  // namespace pinbench
