// The CLI as a user meets it: help, plan, exit codes.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "pinbench/platform/atomic_file.hpp"
#include "pinbench/platform/subprocess.hpp"
#include "pinbench/results/metric_catalog.hpp"
#include "pinbench/results/results.hpp"
#include "pinbench/scenario/scenario.hpp"
#include "run/results_file.hpp"
#include "run/run_options.hpp"
#include "temp_dir.hpp"
#include "test_paths.hpp"

namespace pinbench {
namespace {

// pinbench's output, each line ending in "\n" (Windows writes "\r\n"; a lone CR stays, as pinbench
// never writes one: EveryParserErrorIsEscaped looks for it).
ProcessOutcome run_cli(const std::vector<std::string>& args) {
    std::vector<std::string> argv{PINBENCH_EXE};
    argv.insert(argv.end(), args.begin(), args.end());
    Subprocess p(argv, {});
    ProcessOutcome outcome = p.wait(std::chrono::seconds(60));
    for (auto at = outcome.output.find("\r\n"); at != std::string::npos;
         at = outcome.output.find("\r\n", at)) {
        outcome.output.erase(at, 1);
    }
    return outcome;
}

TEST(Cli, HelpListsTheSubcommandsAndExitsZero) {
    const auto out = run_cli({"--help"});
    EXPECT_EQ(out.exit_code, 0);
    for (const char* cmd : {"plan", "run", "doctor"})
        EXPECT_NE(out.output.find(cmd), std::string::npos) << cmd;
    EXPECT_EQ(out.output.find("__child"), std::string::npos) << "the internal subcommands stay hidden";
    EXPECT_EQ(out.output.find("__worker"), std::string::npos) << "the internal subcommands stay hidden";
}

// `pinbench budget --help` names --held-only and what it leaves out (docs/budget.md).
TEST(Cli, BudgetHelpNamesHeldOnly) {
    const auto out = run_cli({"budget", "--help"});
    EXPECT_EQ(out.exit_code, 0) << out.output;
    EXPECT_NE(out.output.find("--held-only"), std::string::npos) << out.output;
    EXPECT_NE(out.output.find("the largest single pin is not measured"), std::string::npos) << out.output;
}

TEST(Cli, PlanPrintsTheQuickScenarioWithoutAGpu) {
    const auto out = run_cli({"plan", std::string(PINBENCH_SOURCE_DIR) + "/scenarios/quick.yaml"});
    EXPECT_EQ(out.exit_code, 0) << out.output;
    EXPECT_NE(out.output.find("quick-overhead/cudaMallocHost/64MiB/x1/g1"), std::string::npos) << out.output;
}

TEST(Cli, MissingScenarioFileIsBadInput) {
    const auto out = run_cli({"plan", "/nonexistent/scenario.yaml"});
    EXPECT_EQ(out.exit_code, 2) << out.output;
}

TEST(Cli, UnknownOptionIsBadInput) {
    const auto out = run_cli({"run", "--no-such-option"});
    EXPECT_EQ(out.exit_code, 2) << out.output;
}

TEST(Cli, ReplayOptionsWithoutReplayBackendAreBadInput) {
    const auto out = run_cli({"run", std::string(PINBENCH_SOURCE_DIR) + "/scenarios/quick.yaml", "--script",
                              std::string(PINBENCH_SOURCE_DIR) + "/scenarios/quick.yaml"});
    EXPECT_EQ(out.exit_code, 2) << out.output;
}

TEST(Cli, RunWithoutAGpuSaysSoAndExitsWithInfrastructureFailure) {
    if (std::filesystem::exists("/dev/nvidiactl"))
        GTEST_SKIP() << "a GPU driver is present; this test is for machines without";
    const testing_support::TempDir dir("pinbench_cli_nogpu");
    const std::string results = dir.file("nogpu.json");
    const auto out =
        run_cli({"run", std::string(PINBENCH_SOURCE_DIR) + "/scenarios/quick.yaml", "-o", results});
    EXPECT_EQ(out.exit_code, 3) << out.output;
    EXPECT_NE(out.output.find("no CUDA device"), std::string::npos) << out.output;
    EXPECT_NE(out.output.find("replay"), std::string::npos) << out.output;
    // Issue 58, defect 4: one line, no results file, no answer (it printed a `pinbench answer:` of
    // an "unknown-gpu" and 37 problem lines, and wrote a results file of runs that measured nothing).
    EXPECT_EQ(std::count(out.output.begin(), out.output.end(), '\n'), 1) << out.output;
    EXPECT_EQ(out.output.find("pinbench answer"), std::string::npos) << out.output;
    EXPECT_EQ(dir.entries(), std::vector<std::string>{}) << "no results file, no summary";
    // Nor an empty folder made for the results file (`-o out/x.json` left `out/`).
    const auto in_folder = run_cli({"run", std::string(PINBENCH_SOURCE_DIR) + "/scenarios/quick.yaml", "-o",
                                    (dir.path() / "out" / "deeper" / "x.json").string()});
    EXPECT_EQ(in_folder.exit_code, 3) << in_folder.output;
    EXPECT_EQ(dir.entries(), std::vector<std::string>{}) << in_folder.output;
}

// Standard output alone, and what went to standard error, of `pinbench ARGS` run in `dir`.
struct SplitOutcome {
    int exit_code;
    std::string out, err;
};
SplitOutcome run_split(const std::filesystem::path& dir, const std::string& args) {
    std::filesystem::create_directories(dir);
    Subprocess p(
        {"/bin/sh", "-c", "cd \"$0\" && exec \"$1\" " + args + " 2>err.txt", dir.string(), PINBENCH_EXE}, {});
    const auto outcome = p.wait(std::chrono::seconds(60));
    return {outcome.exit_code, outcome.output, read_file((dir / "err.txt").string())};
}

// Issue 58, defect 4: doctor without a GPU wrote its failure to standard output (nothing on
// screen with >/dev/null), gave no next step, and left pinbench-doctor.json in the current folder.
TEST(Cli, DoctorWithoutAGpuSaysSoOnStandardErrorWithANextStepAndWritesNoBundle) {
#ifdef _WIN32
    GTEST_SKIP() << "the streams are told apart by a POSIX shell; ci/package_readme.py checks doctor "
                    "writes no bundle under Wine";
#endif
    if (std::filesystem::exists("/dev/nvidiactl")) GTEST_SKIP() << "a GPU driver is present";
    const auto dir = std::filesystem::temp_directory_path() / "pinbench-cli-doctor";
    std::filesystem::remove_all(dir);
    const SplitOutcome out = run_split(dir, "doctor");
    EXPECT_EQ(out.exit_code, 3) << out.out << out.err;
    EXPECT_NE(out.out.find("environment"), std::string::npos) << out.out;
    EXPECT_EQ(out.out.find("no CUDA device"), std::string::npos) << out.out;
    EXPECT_EQ(out.err.rfind("pinbench doctor: no CUDA device (", 0), 0u) << out.err;
    EXPECT_NE(out.err.find("pinbench run --backend replay --from h200-smoke"), std::string::npos) << out.err;
    EXPECT_EQ(out.out.find("PASS"), std::string::npos) << out.out;
    EXPECT_FALSE(std::filesystem::exists(dir / "pinbench-doctor.json"));
    std::filesystem::remove_all(dir);
}

#ifdef __linux__
// Issue 54, item 8: a bundle that cannot be written was found only after every control ran (and
// PASS was printed). /proc takes no new file, even for root, whose access() check says it may.
TEST(Cli, DoctorRefusesABundleItCannotWriteBeforeMeasuring) {
    const auto out = run_cli({"doctor", "--bundle", "/proc/pinbench-doctor.json"});
    EXPECT_EQ(out.exit_code, 2) << out.output;
    EXPECT_NE(out.output.find("cannot write '/proc/pinbench-doctor.json'"), std::string::npos) << out.output;
    EXPECT_EQ(out.output.find("environment"), std::string::npos) << "nothing is measured first\n"
                                                                 << out.output;
    EXPECT_EQ(out.output.find("PASS"), std::string::npos) << out.output;
}
#endif

// Issue 57, item 7: a misspelt option gets the nearest one of the command it was typed for.
TEST(Cli, AMisspeltOptionGetsTheNearestOne) {
    const std::string quick = std::string(PINBENCH_SOURCE_DIR) + "/scenarios/quick.yaml";
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases{
        {{"run", quick, "--onyl", "quick-overhead/*"}, "did you mean --only?"},
        {{"budget", "--held_only"}, "did you mean --held-only?"},
        {{"--versoin"}, "did you mean --version?"},
        {{"run", quick, "--stor", "s"}, "did you mean --store?"},
        {{"results", "upgrade", quick, "--ouptut", "x.json"}, "did you mean --output?"},
    };
    for (const auto& [args, hint] : cases) {
        const auto out = run_cli(args);
        EXPECT_EQ(out.exit_code, 2) << args.front() << "\n" << out.output;
        EXPECT_NE(out.output.find(hint), std::string::npos) << args.front() << "\n" << out.output;
    }
}

// Issue 57, item 7: CLI11's "not expected" line printed the argument raw: an escape sequence
// retitled or cleared the terminal. Every parse error is escaped, whatever was typed.
TEST(Cli, EveryParserErrorIsEscaped) {
    const std::string quick = std::string(PINBENCH_SOURCE_DIR) + "/scenarios/quick.yaml";
    std::vector<std::vector<std::string>> cases{{"run", quick, "--\x1b]0;pwned\x07"},
                                                {"run", quick,
                                                 "\x1b"
                                                 "c"},
                                                {"--\x1b[2J"},
                                                {"budget", "--held-only=\x1b[31m"}};
    std::uint32_t state = 58;  // generated words: every byte a terminal may act on, and UTF-8
    for (int i = 0; i < 60; ++i) {
        std::string word = "--";
        for (int j = 0; j < 6; ++j) {
            state = state * 1664525u + 1013904223u;
            const auto byte = static_cast<unsigned char>(1 + (state >> 24) % 255);
#ifdef _WIN32
            // A Windows command line is UTF-16: the code point of that value, in UTF-8 (the C1
            // controls U+0080 to U+009F included), as no other byte string can be passed.
            if (byte >= 0x80) {
                word += static_cast<char>(0xC0 | (byte >> 6));
                word += static_cast<char>(0x80 | (byte & 0x3F));
                continue;
            }
#endif
            word += static_cast<char>(byte);
        }
        cases.push_back({"run", quick, word});
    }
    for (const auto& args : cases) {
        const auto out = run_cli(args);
        EXPECT_EQ(out.exit_code, 2) << out.output;
        for (const char c : out.output) {
            const auto byte = static_cast<unsigned char>(c);
            EXPECT_TRUE(byte == '\n' || (byte >= 0x20 && byte != 0x7f)) << "raw byte " << int(byte) << " in\n"
                                                                        << out.output;
        }
        EXPECT_EQ(out.output.find("\xc2\x9b"), std::string::npos) << out.output;  // 8-bit CSI
    }
}

// Issue 58: the first screen says what pinbench is and what to run first, names the program
// `pinbench` (it showed the binary's absolute path), lists doctor and run first, and links the docs.
TEST(Cli, TheFirstScreenSaysWhatToRunFirst) {
    const auto out = run_cli({"--help"});
    EXPECT_EQ(out.exit_code, 0) << out.output;
    EXPECT_EQ(out.output.rfind("pinbench " PINBENCH_VERSION ": ", 0), 0u) << out.output;
    EXPECT_NE(out.output.find("Start here:\n  pinbench doctor"), std::string::npos) << out.output;
    EXPECT_NE(out.output.find("pinbench run quick"), std::string::npos) << out.output;
    EXPECT_NE(out.output.find("pinreport"), std::string::npos) << out.output;
    EXPECT_NE(out.output.find("Documentation: "), std::string::npos) << out.output;
    const auto commands = out.output.find("Commands:");
    ASSERT_NE(commands, std::string::npos) << out.output;
    EXPECT_LT(out.output.find("\n  doctor ", commands), out.output.find("\n  run ", commands)) << out.output;
    EXPECT_LT(out.output.find("\n  run ", commands), out.output.find("\n  metrics ", commands)) << out.output;
    EXPECT_EQ(out.output.find(PINBENCH_EXE), std::string::npos) << "the program's path\n" << out.output;
    const auto run_help = run_cli({"run", "--help"});
    EXPECT_NE(run_help.output.find("Usage: pinbench run [OPTIONS]"), std::string::npos) << run_help.output;
    EXPECT_EQ(run_help.output.find(PINBENCH_EXE), std::string::npos) << run_help.output;
    const auto bare = run_cli({});
    EXPECT_EQ(bare.exit_code, 2) << bare.output;
    EXPECT_NE(bare.output.find("Start here:"), std::string::npos) << bare.output;
}

TEST(Cli, ShortVersionAndHelpCommand) {
    const auto version = run_cli({"-V"});
    EXPECT_EQ(version.exit_code, 0);
    EXPECT_EQ(version.output, "pinbench " PINBENCH_VERSION "\n");
    const auto help = run_cli({"help", "store", "add"});
    EXPECT_EQ(help.exit_code, 0) << help.output;
    EXPECT_EQ(help.output, run_cli({"store", "add", "--help"}).output);
    EXPECT_EQ(run_cli({"help"}).output, run_cli({"--help"}).output);
    const auto unknown = run_cli({"help", "stor"});
    EXPECT_EQ(unknown.exit_code, 2) << unknown.output;
    EXPECT_NE(unknown.output.find("did you mean 'store'?"), std::string::npos) << unknown.output;
}

// Issue 58: `pinbench run quick.yaml` did not find the packaged scenarios by name, and the error
// did not say where they are. A build finds the checkout's (the wheel its share/pinbench/).
TEST(Cli, PackagedScenariosAreFoundByName) {
    for (const char* name : {"quick", "quick.yaml"}) {
        const auto out = run_cli({"plan", name});
        EXPECT_EQ(out.exit_code, 0) << name << "\n" << out.output;
        EXPECT_NE(out.output.find("quick-overhead/cudaMallocHost/64MiB/x1/g1"), std::string::npos)
            << out.output;
    }
    const auto missing = run_cli({"plan", "quik"});
    EXPECT_EQ(missing.exit_code, 2) << missing.output;
    EXPECT_NE(missing.output.find("the packaged ones are in "), std::string::npos) << missing.output;
    EXPECT_NE(missing.output.find("quick.yaml"), std::string::npos) << missing.output;
}

// `run --resume FILE` alone measures from the scenario file the partial run recorded.
TEST(Cli, ResumeWithoutAScenarioUsesThePartialFilesScenarioPath) {
    nlohmann::json j = nlohmann::json::parse(
        read_file(std::string(PINBENCH_SOURCE_DIR) + "/results/h200-kinds-nightly/results.json"));
    j["complete"] = false;
    j["scenario"]["path"] = "/nonexistent/recorded-scenario.yaml";
    const auto partial = std::filesystem::temp_directory_path() / "pinbench-cli-partial.json";
    write_file_atomically(partial.string(), j.dump());
    const auto out = run_cli({"run", "--resume", partial.string(), "-o", partial.string() + ".out"});
    EXPECT_EQ(out.exit_code, 2) << out.output;
    EXPECT_NE(out.output.find("/nonexistent/recorded-scenario.yaml"), std::string::npos) << out.output;
    EXPECT_EQ(out.output.find("FILE is required"), std::string::npos) << out.output;
    std::filesystem::remove(partial);
}

// A cuda partial file is resumed when its scenario is unchanged: the scenario as pinbench records
// it, read back from JSON (a count comes back unsigned, the file parsed again gives it signed: the
// first resume on a GPU was refused as "scenario.scenarios[0].count[0] differs"), compares equal. A run
// without a GPU writes no file since issue 58, so the partial file is made here as a cancelled run leaves it
// (start_results, save_results) and resumed through the CLI: it gets past the scenario check to the device
// check (exit 3); the same file after its scenario changed is refused before that (exit 2).
TEST(Cli, ResumeOfACudaPartialFileAcceptsTheUnchangedScenario) {
    if (std::filesystem::exists("/dev/nvidiactl"))
        GTEST_SKIP() << "a GPU driver is present; this test is for machines without";
    const testing_support::TempDir temp("pinbench_cli_cuda_partial");
    const auto& dir = temp.path();
    const std::string scenario = (dir / "quick.yaml").string(), partial = (dir / "partial.json").string();
    std::filesystem::copy_file(std::string(PINBENCH_SOURCE_DIR) + "/scenarios/quick.yaml", scenario);
    RunOptions options;
    options.command = {"pinbench", "run", scenario, "-o", partial};
    ResultsDocument doc =
        start_results(to_json(load_scenario_file(scenario, unknown_metric_reason)), options);
    ASSERT_EQ(doc.backend, "cuda");
    ASSERT_FALSE(doc.complete);
    save_results(doc, partial);

    const auto out = run_cli({"run", "--resume", partial, "-o", (dir / "out.json").string()});
    EXPECT_EQ(out.exit_code, 3) << out.output;
    EXPECT_EQ(out.output.find("differs"), std::string::npos) << out.output;
    EXPECT_NE(out.output.find("no CUDA device"), std::string::npos) << out.output;

    // The scenario file changed since: refused, naming what differs, before any device is sought.
    std::string text = read_file(scenario);
    const auto at = text.find("repeats: 5");
    ASSERT_NE(at, std::string::npos) << text;
    text.replace(at, std::string("repeats: 5").size(), "repeats: 4");
    write_file_atomically(scenario, text);
    const auto changed = run_cli({"run", "--resume", partial, "-o", (dir / "out.json").string()});
    EXPECT_EQ(changed.exit_code, 2) << changed.output;
    EXPECT_NE(changed.output.find("differs: the scenario file changed since the partial run"),
              std::string::npos)
        << changed.output;
    EXPECT_EQ(changed.output.find("no CUDA device"), std::string::npos) << changed.output;
}

TEST(Cli, StoreAddFilesRealResultsUnderTheirKeyAndNamesABadFile) {
    const auto dir = std::filesystem::temp_directory_path() / "pinbench-cli-store";
    std::filesystem::remove_all(dir);
    const std::string real = std::string(PINBENCH_SOURCE_DIR) + "/results/h200-quick/results.json";
    const std::string bad = std::string(PINBENCH_SOURCE_DIR) + "/scenarios/quick.yaml";
    const auto out = run_cli({"store", "add", real, bad, "--store", dir.string()});
    EXPECT_EQ(out.exit_code, 2) << "a bad file is bad input\n" << out.output;
    EXPECT_NE(out.output.find("stored: real/linux/linux/nvidia-h200/1gpu/580.159.04/"), std::string::npos)
        << out.output;
    EXPECT_NE(out.output.find("quick.yaml"), std::string::npos) << "the bad file is named\n" << out.output;
    const auto again = run_cli({"store", "add", real, "--store", dir.string()});
    EXPECT_EQ(again.exit_code, 0) << again.output;
    EXPECT_NE(again.output.find("already stored"), std::string::npos) << again.output;
    std::filesystem::remove_all(dir);
}

// `pinbench store upgrade`: one line per rewritten night, the count, exit 0; again, nothing to do.
// (A store of nights stored before `store add` upgraded: one such night put back by hand.)
TEST(Cli, StoreUpgradeRewritesAnOlderNightAndSaysSo) {
    const auto dir = std::filesystem::temp_directory_path() / "pinbench-cli-store-upgrade";
    std::filesystem::remove_all(dir);
    const std::string real = std::string(PINBENCH_SOURCE_DIR) + "/results/h200-quick/results.json";
    ASSERT_EQ(run_cli({"store", "add", real, "--store", dir.string()}).exit_code, 0);
    const auto current = run_cli({"store", "upgrade", "--store", dir.string()});
    EXPECT_EQ(current.exit_code, 0) << current.output;
    EXPECT_NE(
        current.output.find("0 stored file(s) rewritten in results schema version 5; 1 were in it already"),
        std::string::npos)
        << "store add stored the current version\n"
        << current.output;
    const auto missing = run_cli({"store", "upgrade", "--store", (dir / "none").string()});
    EXPECT_EQ(missing.exit_code, 2) << missing.output;
    std::filesystem::remove_all(dir);
}

TEST(Cli, RunWithStorePutsReplayedResultsInTheReplayNamespace) {
    const auto dir = std::filesystem::temp_directory_path() / "pinbench-cli-store-replay";
    const auto results = std::filesystem::temp_directory_path() / "pinbench-cli-replayed.json";
    std::filesystem::remove_all(dir);
    const auto out = run_cli({"run", "--backend", "replay", "--from",
                              std::string(PINBENCH_SOURCE_DIR) + "/results/h200-quick/results.json", "--only",
                              "quick-count/*", "-o", results.string(), "--store", dir.string()});
    EXPECT_EQ(out.exit_code, 0) << out.output;
    EXPECT_NE(out.output.find("stored: replay/linux/"), std::string::npos) << out.output;
    EXPECT_FALSE(std::filesystem::exists(dir / "real")) << "replayed data never becomes a real baseline";
    std::filesystem::remove_all(dir);
    std::filesystem::remove(results);
}

// A committed version 2 file of every kind: the upgrade gives each metric, the kinds' own
// included, the samples of its repeats (n of them), and keeps the stored summary; a workers
// context read with the workspace under its own name (results_upgrade.hpp).
TEST(Cli, ResultsUpgradeWritesEveryMetricsSamples) {
    const std::string in = std::string(PINBENCH_SOURCE_DIR) + "/results/h200-kinds-smoke/results.json";
    const auto out_path = std::filesystem::temp_directory_path() / "pinbench-cli-upgraded.json";
    const auto out = run_cli({"results", "upgrade", in, "-o", out_path.string()});
    ASSERT_EQ(out.exit_code, 0) << out.output;
    const auto before = nlohmann::json::parse(read_file(in));
    const auto after = nlohmann::json::parse(read_file(out_path.string()));
    EXPECT_EQ(before.at("schema_version"), 2);
    EXPECT_EQ(after.at("schema_version"), 5);
    std::size_t metrics = 0;
    std::set<std::string> kinds;
    for (std::size_t i = 0; i < before.at("runs").size(); ++i) {
        for (const auto& [name, m] : before["runs"][i].at("metrics").items()) {
            const std::string context = "workers.context_per_worker.";
            const std::string now = name.starts_with(context) ? "workers.context_and_workspace_per_worker." +
                                                                    name.substr(context.size())
                                                              : name;
            EXPECT_EQ(after["runs"][i]["metrics"].contains(name), now == name) << name;
            const auto& up = after["runs"][i]["metrics"].at(now);
            ASSERT_TRUE(up.at("samples").is_array()) << name;
            EXPECT_EQ(up.at("samples").size(), m.at("n").get<std::size_t>()) << name;
            EXPECT_EQ(up.at("median"), m.at("median")) << name;
            kinds.insert(before["runs"][i]["plan"].at("kind").get<std::string>());
            ++metrics;
        }
    }
    EXPECT_EQ(metrics, 266u);  // every metric of the file (pinbench results upgrade counts the same)
    EXPECT_EQ(kinds.size(), 9u) << "kind metrics, not only the overhead ones";
    std::filesystem::remove(out_path);
}

}  // namespace
}  // namespace pinbench
