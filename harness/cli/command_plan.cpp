// `pinbench plan FILE`: a scenario file expanded into runs, printed; no GPU is touched.
#include <iostream>
#include <string>

#include "command.hpp"
#include "installed_files.hpp"
#include "pinbench/results/metric_catalog.hpp"
#include "pinbench/scenario/plan.hpp"
#include "pinbench/scenario/scenario.hpp"
#include "pinbench/vocabulary/errors.hpp"
#include "validators.hpp"

namespace pinbench::cli {
namespace {

class PlanCommand : public Command {
public:
    explicit PlanCommand(CLI::App& app)
        : Command(app.add_subcommand("plan",
                                     "Expand a scenario file into runs and print them (no GPU is touched)")) {
        app_->add_option("FILE", scenario_path_,
                         "Scenario file (YAML), or a packaged one by name (quick, nightly)")
            ->required()
            ->transform(PackagedFile(kScenarios, ".yaml"));
    }

    int run() override {
        const ScenarioFile file = load_scenario_file(scenario_path_, unknown_metric_reason);
        std::cout << describe(expand(file));
        return exit_code::ok;
    }

private:
    std::string scenario_path_;
};

}  // namespace

void add_plan_command(CLI::App& app, Commands& commands) {
    commands.push_back(std::make_unique<PlanCommand>(app));
}

}  // namespace pinbench::cli
