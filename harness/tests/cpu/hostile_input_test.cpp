// What pinbench does with hostile inputs and outputs, one suite per class of defect:
// output paths that are not regular files, non-finite option values, failed writes to standard
// output, inputs that are not regular files or are too large, replay arithmetic that overflows.
// Each test asserts the exit code (README.md, "Exit codes"), the one-line message, and that
// nothing it was not asked to write changed. Never /dev/full as an output path: these tests run
// as root, and a broken build would replace the device node.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "output_lines.hpp"
#include "pinbench/platform/atomic_file.hpp"
#include "pinbench/platform/subprocess.hpp"
#include "pinbench/vocabulary/errors.hpp"
#include "pinbench/vocabulary/units.hpp"
#include "temp_dir.hpp"
#include "test_paths.hpp"

#ifndef _WIN32
#include <sys/stat.h>
#endif

namespace pinbench {
namespace {

namespace fs = std::filesystem;
using testing_support::TempDir;
using namespace std::chrono_literals;

const std::string kSource = std::string(PINBENCH_SOURCE_DIR) + "/results/h200-quick/results.json";

ProcessOutcome run_cli(const std::vector<std::string>& args, const std::string& cwd = {}) {
    std::vector<std::string> argv{PINBENCH_EXE};
    argv.insert(argv.end(), args.begin(), args.end());
    SubprocessOptions options;
    options.working_directory = cwd;
    Subprocess p(argv, {}, options);
    return p.wait(60s);
}

using test::lines_of;

// Exit code 2 and exactly one line of output that contains `needle`.
void expect_refused(const ProcessOutcome& out, const std::string& needle) {
    EXPECT_EQ(out.kind, ProcessOutcome::Kind::exited) << out.output;
    EXPECT_EQ(out.exit_code, exit_code::bad_input) << out.output;
    const auto lines = lines_of(out.output);
    EXPECT_EQ(lines.size(), 1u) << out.output;
    EXPECT_NE(out.output.find(needle), std::string::npos) << out.output;
}

std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// ---- class 1: an output path replaces whatever is there ------------------------------------

TEST(HostileOutput, ADirectoryAtAnOutputPathIsRefusedAndKept) {
    TempDir dir("pinbench_hostile");
    const std::string out = dir.file("out.json");
    fs::create_directory(out);
    expect_refused(run_cli({"results", "upgrade", kSource, "-o", out}), "it is a directory");
    expect_refused(run_cli({"run", "--backend", "replay", "--from", kSource, "-o", out}),
                   "it is a directory");
    EXPECT_TRUE(fs::is_directory(out));
    EXPECT_EQ(dir.entries(), std::vector<std::string>{"out.json"}) << "no temporary file is left";
}

// A missing folder is created (cli/output_path.hpp); one that cannot be, a file in its place, is
// bad input.
TEST(HostileOutput, AFolderThatCannotBeCreatedIsBadInputNotAFailedWrite) {
    TempDir dir("pinbench_hostile");
    write_file_atomically(dir.file("a-file"), "x");
    const std::string out = dir.file("a-file/out.json");
    expect_refused(run_cli({"results", "upgrade", kSource, "-o", out}), "cannot create the folder");
    expect_refused(run_cli({"doctor", "--bundle", out}), "cannot create the folder");
    EXPECT_EQ(dir.entries(), std::vector<std::string>{"a-file"});
}

#ifndef _WIN32
TEST(HostileOutput, AFifoAtAnOutputPathIsRefusedAndKept) {
    TempDir dir("pinbench_hostile");
    const std::string fifo = dir.file("out.json");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    expect_refused(run_cli({"run", "--backend", "replay", "--from", kSource, "-o", fifo}), "it is a FIFO");
    expect_refused(run_cli({"results", "upgrade", kSource, "-o", fifo}), "it is a FIFO");
    expect_refused(run_cli({"trace", "-o", fifo, "--", "true"}), "it is a FIFO");
    EXPECT_TRUE(fs::is_fifo(fifo));
    EXPECT_EQ(dir.entries(), std::vector<std::string>{"out.json"});
    // The writer itself, for every other caller (store files, the index, bundles).
    try {
        write_file_atomically(fifo, "x");
        ADD_FAILURE() << "wrote over a FIFO";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find(fifo), std::string::npos) << e.what();
    }
    EXPECT_TRUE(fs::is_fifo(fifo));
}

// A symbolic link at an output path is replaced by the new file; its target is not written
// (docs/cli.md, "Files pinbench reads and writes").
TEST(HostileOutput, ASymbolicLinkIsReplacedAndItsTargetLeftAlone) {
    TempDir dir("pinbench_hostile");
    const std::string target = dir.file("target.json");
    const std::string link = dir.file("link.json");
    { std::ofstream(target) << "kept\n"; }
    fs::create_symlink(target, link);
    const auto out = run_cli({"results", "upgrade", kSource, "-o", link});
    EXPECT_EQ(out.exit_code, 0) << out.output;
    EXPECT_FALSE(fs::is_symlink(link));
    EXPECT_TRUE(fs::is_regular_file(link));
    EXPECT_EQ(slurp(target), "kept\n");
    // A link to a FIFO is replaced too: the FIFO is never opened.
    const std::string fifo = dir.file("fifo");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    const std::string to_fifo = dir.file("to-fifo.json");
    fs::create_symlink(fifo, to_fifo);
    EXPECT_EQ(run_cli({"results", "upgrade", kSource, "-o", to_fifo}).exit_code, 0);
    EXPECT_TRUE(fs::is_fifo(fifo));
}
#endif

// ---- class 3: NaN and other non-finite values of floating-point options --------------------

TEST(HostileOptions, NonFiniteAndOutOfRangeValuesAreRefusedWithReadableBounds) {
    struct Case {
        std::vector<std::string> args;
        std::string needle;
    };
    const std::vector<Case> cases = {
        {{"run", "--backend", "replay", "--from", kSource, "--repeat-timeout", "nan"}, "not a finite number"},
        {{"run", "--backend", "replay", "--from", kSource, "--repeat-timeout", "inf"}, "not a finite number"},
        {{"run", "--backend", "replay", "--from", kSource, "--repeat-timeout", "1e400"},
         "not a finite number"},
        {{"run", "--backend", "replay", "--from", kSource, "--repeat-timeout", "0"},
         "above 0 and up to 604800"},
        {{"run", "--backend", "replay", "--from", kSource, "--retry-wait", "nan"}, "not a finite number"},
        {{"run", "--backend", "replay", "--from", kSource, "--retry-wait", "-1"}, "0 to 600"},
        {{"run", "--backend", "replay", "--from", kSource, "--null-every", "nan"}, "not a finite number"},
        {{"run", "--backend", "replay", "--from", kSource, "--null-every", "-inf"}, "not a finite number"},
        {{"trace", "--timeout", "nan", "--", "true"}, "not a finite number"},
        {{"trace", "--timeout", "1e300", "--", "true"}, "0 to 604800"},
    };
    TempDir dir("pinbench_hostile");  // the working directory: a run let through writes nothing elsewhere
    for (const Case& c : cases) {
        SCOPED_TRACE(c.args[c.args.size() - 2] + " " + c.args.back());
        const auto out = run_cli(c.args, dir.path().string());
        EXPECT_EQ(out.exit_code, exit_code::bad_input) << out.output;
        EXPECT_NE(out.output.find(c.needle), std::string::npos) << out.output;
        EXPECT_FALSE(std::regex_search(out.output, std::regex("[0-9]{20}"))) << "a bound of 300 digits\n"
                                                                             << out.output;
    }
}

// ---- class 4: a failed write to standard output is success ---------------------------------

#ifndef _WIN32
ProcessOutcome run_shell(const std::string& script, const std::string& cwd = {}) {
    SubprocessOptions options;
    options.working_directory = cwd;
    Subprocess p({"/bin/sh", "-c", script}, {{"PINBENCH", PINBENCH_EXE}}, options);
    return p.wait(60s);
}

// /dev/full as standard output (written to, as it is meant to be, never replaced).
TEST(HostileStdout, AFullDeviceIsAFailedWriteWithExitCode3) {
    if (!fs::is_character_file("/dev/full")) GTEST_SKIP() << "no /dev/full here";
    const std::string scenario = std::string(PINBENCH_SOURCE_DIR) + "/scenarios/quick.yaml";
    for (const std::string& command : {"plan " + scenario, std::string("metrics --json"),
                                       std::string("metrics"), "results upgrade " + kSource}) {
        SCOPED_TRACE(command);
        const auto out = run_shell("exec \"$PINBENCH\" " + command + " >/dev/full");
        EXPECT_EQ(out.exit_code, exit_code::infrastructure) << out.output;
        EXPECT_NE(out.output.find("pinbench: cannot write standard output: No space left on device"),
                  std::string::npos)
            << out.output;
        EXPECT_EQ(lines_of(out.output).size(), 1u) << out.output;
    }
    TempDir dir("pinbench_hostile");
    const std::string store = dir.file("store");
    ASSERT_EQ(run_cli({"store", "add", kSource, "--store", store}).exit_code, 0);
    const auto listed = run_shell("exec \"$PINBENCH\" store list --store " + store + " >/dev/full");
    EXPECT_EQ(listed.exit_code, exit_code::infrastructure) << listed.output;
    EXPECT_NE(listed.output.find("cannot write standard output"), std::string::npos) << listed.output;
}

TEST(HostileStdout, AClosedDescriptorAndAClosedPipeAreFailedWrites) {
    const auto closed = run_shell("exec \"$PINBENCH\" metrics --json >&-");
    EXPECT_EQ(closed.exit_code, exit_code::infrastructure) << closed.output;
    EXPECT_NE(closed.output.find("cannot write standard output"), std::string::npos) << closed.output;
    // The reader is gone before pinbench writes: EPIPE and exit 3, not death by SIGPIPE (141).
    TempDir dir("pinbench_hostile");
    const std::string closed_mark = dir.file("reader-closed");
    const auto piped =
        run_shell("( while [ ! -e '" + closed_mark +
                  "' ]; do sleep 0.05; done; \"$PINBENCH\" metrics --json; echo \"rc=$?\" >&2 ) | "
                  "{ exec 0<&-; touch '" +
                  closed_mark + "'; }");
    EXPECT_NE(piped.output.find("rc=3"), std::string::npos) << piped.output;
    EXPECT_NE(piped.output.find("cannot write standard output: Broken pipe"), std::string::npos)
        << piped.output;
}

TEST(HostileStdout, UpgradeToDashWritesStandardOutput) {
    TempDir dir("pinbench_hostile");
    const auto out = run_cli({"results", "upgrade", kSource, "-o", "-"}, dir.path().string());
    EXPECT_EQ(out.exit_code, 0) << out.output.substr(0, 300);
    const auto end = out.output.find_last_not_of("\r\n");
    EXPECT_TRUE(end != std::string::npos && out.output[end] == '}') << "the results on standard output";
    EXPECT_TRUE(dir.entries().empty()) << "a file named '-' was written";
}
#endif

// ---- class 6: no bound on input size ---------------------------------------------------------

TEST(HostileInputSize, AFileLargerThanItsKindsLimitIsRefusedBeforeItIsRead) {
    TempDir dir("pinbench_hostile");
    const std::string scenario = dir.file("big.yaml");
    { std::ofstream(scenario) << "schema_version: 2\n"; }
    fs::resize_file(scenario, input_limit::text + 1);  // sparse: no disk used
    const auto planned = run_cli({"plan", scenario});
    expect_refused(planned, "larger than the " + size_label(input_limit::text) + " limit");
    EXPECT_NE(planned.output.find(scenario), std::string::npos) << planned.output;

    const std::string results = dir.file("big.json");
    { std::ofstream(results) << "{}"; }
    fs::resize_file(results, input_limit::data + 1);
    expect_refused(run_cli({"results", "upgrade", results}),
                   "larger than the " + size_label(input_limit::data));
    expect_refused(run_cli({"run", "--backend", "replay", "--from", results, "-o", dir.file("out.json")}),
                   "larger than the " + size_label(input_limit::data));
    expect_refused(run_cli({"run", "--backend", "replay", "--from", kSource, "--script", scenario, "-o",
                            dir.file("out.json")}),
                   "larger than the " + size_label(input_limit::text));
    EXPECT_THROW((void)read_file(results), InputError);
}

#ifndef _WIN32
TEST(HostileInputSize, DevicesAndFifosAreNotRead) {
    TempDir dir("pinbench_hostile");
    const auto start = std::chrono::steady_clock::now();
    const auto zero = run_cli({"plan", "/dev/zero"});
    expect_refused(zero, "'/dev/zero': it is a character device, not a regular file");
    const std::string fifo = dir.file("scenario.yaml");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    expect_refused(run_cli({"plan", fifo}), "it is a FIFO, not a regular file");  // no writer: no hang
    expect_refused(run_cli({"results", "upgrade", fifo}), "it is a FIFO");
    expect_refused(run_cli({"run", "--backend", "replay", "--from", kSource, "--script", fifo, "-o",
                            dir.file("out.json")}),
                   "it is a FIFO");
    expect_refused(run_cli({"store", "add", fifo, "--store", dir.file("store")}), "it is a FIFO");
    EXPECT_LT(std::chrono::steady_clock::now() - start, 30s);
    // A link to a regular file is followed.
    const std::string link = dir.file("quick.yaml");
    fs::create_symlink(std::string(PINBENCH_SOURCE_DIR) + "/scenarios/quick.yaml", link);
    EXPECT_EQ(run_cli({"plan", link}).exit_code, 0);
}
#endif

// The limits are stated where users read them, as the code defines them.
TEST(HostileInputSize, TheDocsStateTheInputLimits) {
    const std::string readme = slurp(std::string(PINBENCH_SOURCE_DIR) + "/docs/cli.md");
    for (const std::uint64_t limit : {input_limit::text, input_limit::data}) {
        EXPECT_NE(readme.find("`" + size_label(limit) + "`"), std::string::npos) << size_label(limit);
    }
}

// ---- class 7: replay arithmetic overflows ---------------------------------------------------

TEST(HostileReplay, AnOffsetThatOverflowsAReadingIsBadInputNamingTheScriptLine) {
    TempDir dir("pinbench_hostile");
    const std::string script = dir.file("overflow.yaml");
    {
        std::ofstream(script) << "replay_script_version: 1\n"
                                 "transforms:\n"
                                 "  - op: offset\n"
                                 "    runs: '*'\n"
                                 "    probe: cuda.free\n"
                                 "    bytes: -9223372000000000000\n";
    }
    const std::string out_path = dir.file("out.json");
    const auto out =
        run_cli({"run", "--backend", "replay", "--from", kSource, "--script", script, "-o", out_path});
    EXPECT_EQ(out.exit_code, exit_code::bad_input) << out.output;
    const auto lines = lines_of(out.output);
    ASSERT_FALSE(lines.empty());
    EXPECT_EQ(lines.back().rfind(script + ":6:12: offset -9223372000000000000 on 'cuda.free' takes run ", 0),
              0u)
        << out.output;
    EXPECT_NE(lines.back().find("would leave 0 to 9223372036854775807 B"), std::string::npos) << out.output;
    EXPECT_EQ(out.output.find("disturbed"), std::string::npos) << out.output;
    EXPECT_FALSE(fs::exists(out_path)) << "refused before any run";

    // Scaling past 2^63 and a timing pushed below zero: the same.
    {
        std::ofstream(script) << "replay_script_version: 1\n"
                                 "transforms:\n"
                                 "  - {op: scale, runs: '*', probe: nvml.0.used, factor: 1e300}\n";
    }
    const auto scaled =
        run_cli({"run", "--backend", "replay", "--from", kSource, "--script", script, "-o", out_path});
    EXPECT_EQ(scaled.exit_code, exit_code::bad_input) << scaled.output;
    EXPECT_NE(scaled.output.find(script + ":3:"), std::string::npos) << scaled.output;
    {
        std::ofstream(script) << "replay_script_version: 1\n"
                                 "transforms:\n"
                                 "  - {op: offset, runs: '*', probe: alloc, ms: -1e9}\n";
    }
    const auto timing =
        run_cli({"run", "--backend", "replay", "--from", kSource, "--script", script, "-o", out_path});
    EXPECT_EQ(timing.exit_code, exit_code::bad_input) << timing.output;
    EXPECT_NE(timing.output.find("a timing is finite and not negative"), std::string::npos) << timing.output;
    // Bytes at the edge of int64 are refused where they are written.
    {
        std::ofstream(script)
            << "replay_script_version: 1\n"
               "transforms:\n"
               "  - {op: offset, runs: '*', probe: cuda.free, bytes: 9223372036854775807}\n";
    }
    const auto edge =
        run_cli({"run", "--backend", "replay", "--from", kSource, "--script", script, "-o", out_path});
    expect_refused(edge, "bytes: too large");
    EXPECT_NE(edge.output.find(script + ":3:"), std::string::npos) << edge.output;
}

}  // namespace
}  // namespace pinbench
