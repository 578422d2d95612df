// `pinbench store add RESULTS --store DIR`, `pinbench store list --store DIR` and `pinbench store
// upgrade --store DIR`: the per-driver-release baseline store (docs/store.md).
#include <iostream>
#include <string>
#include <vector>

#include "command.hpp"
#include "pinbench/results/results.hpp"
#include "pinbench/store/store.hpp"
#include "pinbench/vocabulary/errors.hpp"
#include "pinbench/vocabulary/terminal_text.hpp"
#include "validators.hpp"

namespace pinbench::cli {
namespace {

int list_store(const std::string& dir) {
    const Store store = Store::open_existing(dir);  // reading never creates: a typo is exit 2
    int code = exit_code::ok;
    for (const auto& e : store.list()) {
        if (!e.problem.empty()) {
            // One line per file; the reader's messages already start with the path.
            // Paths and problems quote the store's own names: escaped (terminal_text).
            std::cerr << terminal_text((e.problem.rfind(e.path, 0) == 0 ? "" : e.path + ": ") + e.problem)
                      << "\n";
            code = exit_code::bad_input;
            continue;
        }
        std::cout << terminal_text(e.relative_path) << (e.replay ? "  (replay)" : "") << "\n";
    }
    return code;
}

// Every stored night of an older results version rewritten in the current one (Store::upgrade):
// one line per file, then the count; unusable files are named as `store list` names them (exit 2).
int upgrade_store(const std::string& dir) {
    const Store store = Store::open_existing(dir);
    StoreLockOptions lock;
    lock.report = [](const std::string& line) { std::cerr << "store: " << line << "\n"; };
    const StoreUpgrade done = store.upgrade(lock);
    for (const auto& r : done.rewritten) {
        std::cout << "upgraded: " << terminal_text(r.from) << " -> " << terminal_text(r.to) << "\n";
    }
    for (const StoredEntry& e : done.problems) {
        std::cerr << terminal_text((e.problem.rfind(e.path, 0) == 0 ? "" : e.path + ": ") + e.problem)
                  << " (left as it is)\n";
    }
    std::cout << done.rewritten.size() << " stored file(s) rewritten in results schema version "
              << results_schema_version << "; " << done.current << " were in it already\n";
    return done.problems.empty() ? exit_code::ok : exit_code::bad_input;
}

class StoreAddCommand : public Command {
public:
    explicit StoreAddCommand(CLI::App& store)
        : Command(
              store.add_subcommand("add", "File results under their platform/model/GPU/count/release key")) {
        app_->add_option("RESULTS", files_, "Results files")->required()->check(ExistingFile());
        app_->add_option("--store", dir_, "Store directory (created when absent)")->required();
        app_->add_flag("--allow-incomplete", allow_incomplete_, "Also store results of an interrupted run");
    }

    int run() override { return add_to_store(dir_, files_, allow_incomplete_); }

private:
    std::vector<std::string> files_;
    std::string dir_;
    bool allow_incomplete_ = false;
};

class StoreListCommand : public Command {
public:
    explicit StoreListCommand(CLI::App& store)
        : Command(store.add_subcommand("list", "List the stored results and any unusable file")) {
        app_->add_option("--store", dir_, "Store directory")->required();
    }

    int run() override { return list_store(dir_); }

private:
    std::string dir_;
};

class StoreUpgradeCommand : public Command {
public:
    explicit StoreUpgradeCommand(CLI::App& store)
        : Command(store.add_subcommand(
              "upgrade", "Rewrite the stored nights of an older results schema version in the current one")) {
        app_->add_option("--store", dir_, "Store directory")->required();
    }

    int run() override { return upgrade_store(dir_); }

private:
    std::string dir_;
};

}  // namespace

int add_to_store(const std::string& dir, const std::vector<std::string>& files, bool allow_incomplete) {
    const Store store = Store::open(dir);
    StoreAddOptions options;
    options.allow_incomplete = allow_incomplete;
    options.lock.report = [](const std::string& line) { std::cerr << "store: " << line << "\n"; };
    int code = exit_code::ok;
    for (const auto& f : files) {
        try {
            const StoredEntry e = store.add(f, options);
            std::cout << (e.already_stored ? "already stored: " : "stored: ")
                      << terminal_text(e.relative_path)
                      << (e.replay ? "  (REPLAYED DATA: replay namespace, never a baseline)" : "") << "\n";
            for (const std::string& partial : e.replaced) {
                std::cout << "replaced the partial " << terminal_text(partial)
                          << " (the same measurement, resumed)\n";
            }
        } catch (const InputError& e) {
            std::cerr << terminal_text(e.what()) << "\n";
            code = exit_code::bad_input;
        }
    }
    return code;
}

void add_store_commands(CLI::App& app, Commands& commands) {
    auto* store = app.add_subcommand("store", "The per-driver-version baseline store (docs/store.md)");
    store->require_subcommand(1);
    commands.push_back(std::make_unique<StoreAddCommand>(*store));
    commands.push_back(std::make_unique<StoreListCommand>(*store));
    commands.push_back(std::make_unique<StoreUpgradeCommand>(*store));
}

}  // namespace pinbench::cli
