// `pinbench doctor`: the environment and every control; exits non-zero when a control fails.
#include <cstdint>
#include <iostream>
#include <optional>
#include <string>

#include "command.hpp"
#include "output_path.hpp"
#include "pinbench/platform/interrupt.hpp"
#include "pinbench/platform/subprocess.hpp"
#include "pinbench/vocabulary/units.hpp"
#include "run/doctor.hpp"
#include "validators.hpp"

namespace pinbench::cli {
namespace {

class DoctorCommand : public Command {
public:
    explicit DoctorCommand(CLI::App& app)
        : Command(app.add_subcommand("doctor",
                                     "Check this machine: print the environment and run every control")) {
        app_->add_option("--bundle", bundle_,
                         "Also write everything it found as JSON here, to attach to a bug report (a folder: "
                         "pinbench-doctor.json inside it)");
        app_->add_option("--control-size", size_, "Positive control allocation")
            ->check(SizeValidator())
            ->capture_default_str();
        app_->add_flag("--allow-busy-gpu", allow_busy_gpu_,
                       "Run the controls even beside a leftover pinbench process on the GPU");
        app_->add_option("--tolerance", tolerance_, "How far a probe may miss a known allocation")
            ->check(SizeValidator())
            ->capture_default_str();
    }

    int run() override {
        DoctorOptions options;
        options.executable = current_executable_path();
        // Checked (and its folders made) before anything is measured.
        std::optional<PreparedOutput> bundle;
        if (app_->count("--bundle") > 0) {
            bundle.emplace(prepare_output(bundle_, kDefaultBundle, {}));
            options.bundle_path = bundle->path();
        }
        options.controls.positive_bytes = parse_size(size_);
        options.controls.tolerance = static_cast<std::int64_t>(parse_size(tolerance_));
        options.allow_busy_gpu = allow_busy_gpu_;
        const StopOnSignals stop;  // a cancelled doctor ends its control child and exits 128+N
        return run_doctor(options, std::cout, std::cerr);
    }

private:
    static constexpr const char* kDefaultBundle = "pinbench-doctor.json";
    std::string bundle_;
    std::string size_ = "1GiB";
    bool allow_busy_gpu_ = false;
    std::string tolerance_ = "2MiB";
};

}  // namespace

void add_doctor_command(CLI::App& app, Commands& commands) {
    commands.push_back(std::make_unique<DoctorCommand>(app));
}

}  // namespace pinbench::cli
