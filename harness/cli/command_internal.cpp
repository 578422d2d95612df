// The hidden subcommands pinbench starts itself with: a traced program tied to its tracer
// (__exec), one isolated measurement (__child), a worker process of the workers and shared kinds
// (__worker, kinds/worker_group.hpp), the process that keeps the driver initialised beside the
// children (__hold-driver, run/driver_hold.hpp).
#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

#include "budget/budget_child.hpp"
#include "command.hpp"
#include "kinds/worker_group.hpp"
#include "pinbench/platform/interrupt.hpp"
#include "pinbench/platform/subprocess.hpp"
#include "pinbench/vocabulary/api_variant.hpp"
#include "pinbench/vocabulary/errors.hpp"
#include "run/child.hpp"
#include "run/driver_hold.hpp"

namespace pinbench::cli {
namespace {

class ExecCommand : public Command {
public:
    explicit ExecCommand(CLI::App& app) : Command(app.add_subcommand("__exec", "")) {
        app_->add_option("--parent", parent_);
        app_->add_option("ARGV", argv_)->required();
        app_->group("");
    }

    int run() override { return exec_tied(parent_, argv_); }

private:
    std::uint32_t parent_ = 0;
    std::vector<std::string> argv_;
};

class ChildCommand : public Command {
public:
    explicit ChildCommand(CLI::App& app) : Command(app.add_subcommand("__child", "")) {
        app_->group("");
        app_->add_option("--request", request_path_)->required();
    }

    int run() override {
        // The modes of the stages above the runner: the pin budget's phases (docs/budget.md).
        static constexpr ChildMode more[] = {{kBudgetChildMode, budget_phase}};
        return child_main(request_path_, more);
    }

private:
    std::string request_path_;
};

class WorkerCommand : public Command {
public:
    explicit WorkerCommand(CLI::App& app) : Command(app.add_subcommand("__worker", "")) {
        app_->group("");
        app_->add_option("--api", api_)->required();
        app_->add_option("--bytes", bytes_)->required();
        app_->add_flag("--no-cuda", no_cuda_);
        app_->add_option("--parent", parent_);
        app_->add_option("--shared", shared_);
    }

    int run() override {
        std::string why;
        const auto api = parse_api_variant(api_, &why);
        if (!api) throw InputError("__worker --api: " + why);
        die_with_parent(parent_);
        return kinds::worker_main({*api, bytes_, !no_cuda_, shared_});
    }

private:
    std::string api_, shared_;
    std::uint64_t bytes_ = 0;
    bool no_cuda_ = false;
    std::uint32_t parent_ = 0;
};

class HoldDriverCommand : public Command {
public:
    explicit HoldDriverCommand(CLI::App& app) : Command(app.add_subcommand(holder_subcommand, "")) {
        app_->group("");
        app_->add_option("--parent", parent_);
    }

    int run() override {
        die_with_parent(parent_);
        return hold_driver_main(std::cin, std::cout);
    }

private:
    std::uint32_t parent_ = 0;
};

}  // namespace

void add_internal_commands(CLI::App& app, Commands& commands) {
    commands.push_back(std::make_unique<ExecCommand>(app));
    commands.push_back(std::make_unique<ChildCommand>(app));
    commands.push_back(std::make_unique<WorkerCommand>(app));
    commands.push_back(std::make_unique<HoldDriverCommand>(app));
}

}  // namespace pinbench::cli
