// `pinbench metrics`: every metric a results file can hold, in one of the formats below.
#include <iostream>
#include <ostream>
#include <string>
#include <vector>

#include "command.hpp"
#include "pinbench/results/metric_catalog.hpp"
#include "pinbench/vocabulary/errors.hpp"

namespace pinbench::cli {
namespace {

void write_text(std::ostream& out) {
    for (const MetricSpec& m : metric_catalog()) {
        out << m.pattern << "  [" << m.unit << ", " << m.direction << (m.headline ? ", headline" : "") << "] "
            << m.kinds << ": " << m.what << "\n";
    }
}

void write_json(std::ostream& out) { out << metric_catalog_json().dump(1) << "\n"; }

struct Format {
    const char* name;
    const char* help;  // of its flag, --NAME
    void (*write)(std::ostream&);
};

// The first is written unless another's flag is given: a new format is one line here.
constexpr Format formats[] = {
    {"text", "", write_text},
    {"json", "As JSON (what pinreport reads)", write_json},
};

class MetricsCommand : public Command {
public:
    explicit MetricsCommand(CLI::App& app)
        : Command(app.add_subcommand(
              "metrics",
              "List every metric a results file can hold: pattern, kinds, unit, which way is worse")) {
        for (std::size_t i = 1; i < std::size(formats); ++i) {
            flags_.push_back(app_->add_flag(std::string("--") + formats[i].name, formats[i].help));
        }
        // One format at a time (nothing to say while there is one flag).
        for (CLI::Option* a : flags_) {
            for (CLI::Option* b : flags_) {
                if (a != b) a->excludes(b);
            }
        }
    }

    int run() override {
        const Format* chosen = &formats[0];
        for (std::size_t i = 0; i < flags_.size(); ++i) {
            if (flags_[i]->count() > 0) chosen = &formats[i + 1];
        }
        chosen->write(std::cout);
        return exit_code::ok;
    }

private:
    std::vector<CLI::Option*> flags_;  // formats[1..]
};

}  // namespace

void add_metrics_command(CLI::App& app, Commands& commands) {
    commands.push_back(std::make_unique<MetricsCommand>(app));
}

}  // namespace pinbench::cli
