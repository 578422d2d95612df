#include "run/driver_hold.hpp"

#include <chrono>
#include <istream>
#include <ostream>

#include "pinbench/cuda/initialised_driver.hpp"
#include "pinbench/platform/subprocess.hpp"
#include "pinbench/results/environment_record.hpp"
#include "run/child_launcher.hpp"
#include "scenario/kind_table.hpp"

namespace pinbench {
namespace {

// The holder's cuInit: 95 ms on the H100 with no other process holding the driver; a machine of
// many GPUs takes longer, a hung driver never answers.
constexpr std::chrono::milliseconds ready_limit{30000};
// After its stdin closes the holder only returns; its exit frees what cuInit took.
constexpr std::chrono::milliseconds exit_limit{10000};

// `text` on one line, at most 300 characters of it.
std::string one_line(std::string text) {
    if (text.size() > 300) text = text.substr(0, 300) + "...";
    for (char& c : text) {
        if (c == '\n' || c == '\r') c = ' ';
    }
    return text;
}

}  // namespace

int hold_driver_main(std::istream& in, std::ostream& out) {
    std::string why;
    const auto driver = cuda::InitialisedDriver::open(&why);
    if (driver == nullptr) {
        out << holder_not_ready << one_line(why) << std::endl;
        return 1;
    }
    out << holder_ready << std::endl;
    for (std::string line; std::getline(in, line);) {
    }
    return 0;
}

DriverHold::DriverHold() = default;
DriverHold::DriverHold(DriverHold&&) noexcept = default;
DriverHold& DriverHold::operator=(DriverHold&&) noexcept = default;

DriverHold::~DriverHold() {
    try {
        stop();
    } catch (...) {  // NOLINT(bugprone-empty-catch): the Subprocess's own destructor kills it
    }
}

bool DriverHold::holds_beside(const PlannedRun& run) {
    // On the H100 the workers (per process) and shared runs of nightly.yaml read 64 KiB more
    // residual and per-worker context beside a held driver, every repeat; one-process kinds read
    // the same to the byte (results/answer-in-a-minute/README.md).
    const KindSpec* kind = find_kind(run.kind);
    return kind == nullptr || !kind->starts_cuda_processes;
}

DriverHold DriverHold::for_plan(const nlohmann::json& environment, ChildLauncher& launcher, bool wanted) {
    DriverHold hold;
    if (!wanted) {
        hold.why_ = "off (--fresh-driver): every child initialises the driver alone";
        return hold;
    }
    // Measured on native Linux only (results/answer-in-a-minute/probe): under WDDM, TCC, MCDM
    // and WSL2 what an initialised process costs and saves is not known, so nothing changes there.
    const std::size_t devices = described_device_count(environment);
    for (std::size_t i = 0; i < devices; ++i) {
        if (const std::string model = driver_model_of(environment, i); model != "linux") {
            hold.why_ = "not held: device " + std::to_string(i) + " runs the " + model +
                        " driver model (measured on native Linux only)";
            return hold;
        }
    }
    if (devices == 0) {
        hold.why_ = "not held: no device described";
        return hold;
    }
    hold.launcher_ = &launcher;
    if (std::string why; !hold.start(&why)) {
        hold.launcher_ = nullptr;
        hold.why_ = "not held: " + why;
        return hold;
    }
    // On the H100 a child's cuInit took 95 ms and its exit 40 ms with no other process holding
    // the driver, 9 and 4 ms beside one; the holder's own 3.25 MiB (NVML's used, never in its
    // process list) is there before a run's first reading and does not move during the run, so
    // no cost does.
    hold.held_ = true;
    hold.why_ = std::string("held: a holder process (pinbench ") + holder_subcommand +
                ") initialised the driver (no context), so each child's start and exit skip the driver's "
                "own; stopped for the runs that start other CUDA processes (released_for)";
    return hold;
}

bool DriverHold::before_run(const PlannedRun& run) {
    if (launcher_ == nullptr) return false;
    if (failed_ || !holds_beside(run)) {
        released_for_.push_back(run.id);
        if (holder_ == nullptr) return false;
        stop();
        return true;
    }
    if (holder_ != nullptr) return false;
    if (std::string why; !start(&why)) {
        failed_ = true;
        why_ += "; not held from " + run.id + " on: " + why;
        released_for_.push_back(run.id);
    }
    return true;
}

void DriverHold::note(nlohmann::json& environment) const {
    if (launcher_ == nullptr) {
        note_parent_driver(environment, held_, why_, std::nullopt);
    } else {
        note_parent_driver(environment, held_, why_, released_for_);
    }
}

bool DriverHold::start(std::string* why) {
    try {
        holder_ = launcher_->start_tied(holder_subcommand);
    } catch (const std::exception& e) {
        *why = std::string("the holder process did not start: ") + e.what();
        return false;
    }
    const auto deadline = std::chrono::steady_clock::now() + ready_limit;
    std::string said;
    for (;;) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) break;
        const auto line = holder_->read_line(left);
        if (!line) break;  // its output ended, or the limit passed
        if (*line == holder_ready) return true;
        if (line->rfind(holder_not_ready, 0) == 0) {
            said = line->substr(std::char_traits<char>::length(holder_not_ready));
            break;
        }
    }
    const ProcessOutcome outcome = holder_->wait(exit_limit);
    holder_.reset();
    *why = !said.empty() ? said
                         : "the holder process gave no ready line within " +
                               std::to_string(ready_limit.count()) + " ms: " + one_line(outcome.output);
    return false;
}

void DriverHold::stop() {
    if (holder_ == nullptr) return;
    holder_->wait(exit_limit);  // closes its stdin first: the holder returns
    holder_.reset();
}

}  // namespace pinbench
