// `pinbench results upgrade IN [-o OUT]`: a results file of an older schema version in the
// current one (docs/results-schema.md).
#include <cstdint>
#include <iostream>
#include <optional>
#include <string>

#include "command.hpp"
#include "json/json_reader.hpp"
#include "output_path.hpp"
#include "pinbench/platform/atomic_file.hpp"
#include "pinbench/platform/utf8.hpp"
#include "pinbench/results/results.hpp"
#include "pinbench/vocabulary/errors.hpp"
#include "pinbench/vocabulary/units.hpp"

namespace pinbench::cli {
namespace {

// Standard input as one string, bounded as read_file bounds a file (pinbench/platform/atomic_file.hpp).
std::string read_standard_input(std::uint64_t max_bytes) {
    std::string text;
    char buffer[64 * 1024];
    while (std::cin.read(buffer, sizeof buffer) || std::cin.gcount() > 0) {
        text.append(buffer, static_cast<std::size_t>(std::cin.gcount()));
        if (text.size() > max_bytes) {
            throw InputError("(stdin): more than " + size_label(max_bytes) +
                             ", larger than the limit for this kind of file");
        }
    }
    if (std::cin.bad()) throw SystemError("cannot read standard input");
    return text;
}

// The file as this build reads it (results_upgrade.hpp), written in the current version; IN "-"
// reads standard input (what pinreport pipes), no -o (or -o -) writes stdout.
int upgrade_results(const std::string& in, std::string out) {
    const bool to_stdout = out.empty() || out == "-";
    // A folder (`-o dir/`) gets the input's file name.
    std::optional<PreparedOutput> output;
    if (!to_stdout) {
        output.emplace(prepare_output(
            out, in == "-" ? "pinbench-results.json" : utf8_of(path_from_utf8(in).filename()), {in}));
        out = output->path();
    }
    ResultsDocument doc;
    if (in == "-") {
        const std::string text = read_standard_input(input_limit::data);
        doc = results_from_json(detail::parse_strict_json(text, "(stdin)"), "(stdin)");
    } else {
        doc = load_results(in);
    }
    const std::string text = to_json(doc).dump(1) + "\n";
    if (to_stdout) {
        std::cout << text;
    } else {
        write_file_atomically(out, text);
    }
    return exit_code::ok;
}

class UpgradeCommand : public Command {
public:
    explicit UpgradeCommand(CLI::App& results)
        : Command(results.add_subcommand(
              "upgrade",
              "Write a results file of an older schema version in the current one (per-repeat samples)")) {
        app_->add_option("IN", in_, "Results file, or - for standard input")->required();
        app_->add_option("-o,--output", out_, "Where to write it (default, or -: standard output)");
    }

    int run() override { return upgrade_results(in_, out_); }

private:
    std::string in_, out_;
};

}  // namespace

void add_results_commands(CLI::App& app, Commands& commands) {
    auto* results = app.add_subcommand("results", "Results files (docs/results-schema.md)");
    results->require_subcommand(1);
    commands.push_back(std::make_unique<UpgradeCommand>(*results));
}

}  // namespace pinbench::cli
