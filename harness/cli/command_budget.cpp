// `pinbench budget [-o BUDGET.json] [--held-only]`: how much host memory one process can pin
// here, now, per API family, and the safe budget to give a framework (docs/budget.md). Every pin
// is made in a child process; a signal ends the child and leaves nothing pinned.
#include <iostream>
#include <optional>
#include <string>

#include "budget/budget.hpp"
#include "budget/budget_console.hpp"
#include "command.hpp"
#include "output_path.hpp"
#include "pinbench/platform/atomic_file.hpp"
#include "pinbench/platform/interrupt.hpp"
#include "pinbench/platform/subprocess.hpp"
#include "pinbench/vocabulary/errors.hpp"
#include "pinbench/vocabulary/units.hpp"
#include "validators.hpp"

namespace pinbench::cli {
namespace {

// Above any host's memory today: a larger cap or keep-free is a typo, refused.
constexpr std::uint64_t kLargestSize = std::uint64_t{64} << 40;  // 64 TiB
constexpr double kLongestSeconds = 3600;

class BudgetCommand : public Command {
public:
    explicit BudgetCommand(CLI::App& app)
        : Command(app.add_subcommand("budget",
                                     "How much host memory can be pinned here now, per API family: "
                                     "the safe budget, whether a failure poisons, what it costs in VRAM")) {
        app_->add_option("-o,--out", out_, "Write the budget document (docs/budget.schema.json) here");
        // The values are checked in run(), not by CLI11, so that a bad one is refused in one line.
        app_->add_option("--cap", cap_,
                         "Never pin more than this, per search (2MiB to 64TiB; default 16GiB, on Windows "
                         "above the OS's limit for graphics: docs/budget.md)");
        app_->add_option("--chunk", chunk_,
                         "Pin size of the held-at-once search and the bisection's step (2MiB to the cap)")
            ->capture_default_str();
        app_->add_option("--keep-free", keep_free_,
                         "Memory never asked for below the host's available memory and each memory limit's "
                         "room, a container's or job's too (default: 10% of the smallest room, at least "
                         "the smaller of 4GiB and a quarter of it)");
        app_->add_option("--time-limit", time_limit_,
                         "Seconds for all the searches together (above 0, up to 3600)")
            ->capture_default_str();
        app_->add_flag("--held-only", held_only_,
                       "Only the held-at-once phase of each family (the safe budget, its VRAM cost, the "
                       "pin speed); no single-pin search: the largest single pin is not measured");
    }

    int run() override {
        const SizeValidator size(kSmallestChunk, kLargestSize);
        const FiniteNumber seconds(0.0, kLongestSeconds, true);
        if (!cap_.empty()) checked(size, "--cap", cap_);
        checked(size, "--chunk", chunk_);
        if (!keep_free_.empty()) checked(size, "--keep-free", keep_free_);
        checked(seconds, "--time-limit", time_limit_);
        BudgetOptions options;
        options.executable = current_executable_path();
        if (!cap_.empty()) options.cap = parse_size(cap_);
        options.chunk = parse_size(chunk_);
        // Against the default cap too (on Windows the cap derived from the OS is whole chunks).
        if (options.chunk > options.cap.value_or(kBudgetDefaultCap)) {
            throw InputError("pinbench budget: --chunk " + chunk_ + " is larger than --cap " +
                             (cap_.empty() ? format_bytes(kBudgetDefaultCap) + " (the default)" : cap_));
        }
        if (!keep_free_.empty()) options.keep_free = parse_size(keep_free_);
        options.time_limit_s = std::stod(time_limit_);
        options.held_only = held_only_;
        std::optional<PreparedOutput> output;
        if (!out_.empty()) {
            output.emplace(prepare_output(out_, "pinbench-budget.json", {}));  // before anything is pinned
            out_ = output->path();
        }
        const StopOnSignals stop;  // a signal ends the child (nothing stays pinned) and exits 128+N
        const nlohmann::json document = measure_budget(options, std::cerr);
        print_budget(document, std::cout);
        if (!out_.empty()) {
            write_file_atomically(out_, document.dump(2) + "\n");
            std::cout << "written: " << out_ << "\n";
        }
        return budget_exit_code(document);
    }

private:
    // InputError (exit 2, one line) naming the option unless `validator` accepts `value`.
    static void checked(const CLI::Validator& validator, const char* option, std::string value) {
        if (const std::string why = validator(value); !why.empty()) {
            throw InputError("pinbench budget: " + std::string(option) + ": " + why);
        }
    }

    static constexpr std::uint64_t kSmallestChunk = std::uint64_t{2} << 20;
    std::string out_;
    std::string cap_;  // empty: the default (budget.hpp's kBudgetDefaultCap, Windows' own)
    std::string chunk_ = "256MiB";
    std::string keep_free_;
    std::string time_limit_ = "60";
    bool held_only_ = false;
};

}  // namespace

void add_budget_command(CLI::App& app, Commands& commands) {
    commands.push_back(std::make_unique<BudgetCommand>(app));
}

}  // namespace pinbench::cli
