// The rule of every output target (pinbench/platform/output_target.hpp, issue 57 "Output
// targets"): the function itself, and each example of the issue as a user meets it. Each CLI
// case failed on c67c4a8: the input or the link was replaced, or an empty path was ignored.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "pinbench/platform/output_target.hpp"
#ifndef _WIN32
#include "../../fuzz/fuzz_output_target.hpp"
#endif
#ifndef _WIN32
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

#include "pinbench/platform/atomic_file.hpp"
#include "pinbench/platform/subprocess.hpp"
#include "pinbench/vocabulary/errors.hpp"
#include "property_runs.hpp"
#include "temp_dir.hpp"
#include "test_paths.hpp"

namespace pinbench {
namespace {

namespace fs = std::filesystem;

#ifndef _WIN32
// Ends a reader still waiting on `fifo` (the write it waited for was refused): an open for
// writing lets its open return, the close gives it the end of the file.
void release_reader(const std::string& fifo) {
    const int fd = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
    if (fd >= 0) ::close(fd);
}
#endif

std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

ProcessOutcome run_cli(const std::vector<std::string>& args) {
    std::vector<std::string> argv{PINBENCH_EXE};
    argv.insert(argv.end(), args.begin(), args.end());
    Subprocess p(argv, {});
    return p.wait(std::chrono::seconds(120));
}

// Exit 2, one line naming why, and nothing else printed.
void expect_refused(const ProcessOutcome& r, const std::string& why) {
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find(why), std::string::npos) << r.output;
    EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
}

const std::string kResults = "/results/h200-smoke/results.json";

class OutputTarget : public ::testing::Test {
protected:
    OutputTarget() : dir_("pinbench_output_target") {}
    std::string file(const std::string& name) const { return dir_.file(name); }
    std::string copy_of(const std::string& source, const std::string& name) const {
        fs::copy_file(std::string(PINBENCH_SOURCE_DIR) + source, file(name));
        return file(name);
    }
    testing_support::TempDir dir_;
};

// ---- the function ----------------------------------------------------------------------------

TEST_F(OutputTarget, AnInputIsRefusedHoweverThePathIsSpelled) {
    const std::string in = copy_of(kResults, "u.json");
    const OutputInputs inputs{{in}, {}};
    for (const std::string& out :
         {in, file("newdir/../u.json"), file("a/b/../../u.json"), file("./u.json")}) {
        SCOPED_TRACE(out);
        EXPECT_THROW(check_output_target(out, inputs), InputError);
    }
#ifndef _WIN32  // links: POSIX (Windows: symbolic links need a privilege)
    fs::create_directory(file("real"));
    fs::create_directory_symlink(file("real"), file("link"));
    // link/../u.json is real/../u.json: the folder the link names, then its parent.
    EXPECT_THROW(check_output_target(file("link/../u.json"), inputs), InputError);
    // A `..` after a link, past a folder not made yet: new/.. is the tree again, d/up is its parent
    // (the link's target), so d/up/../<tree>/u.json is the input (the output-target fuzzer's
    // first finding: taken lexically from `new` on, it was <tree>/d/<tree>/u.json, and written).
    fs::create_directory(file("d"));
    fs::create_directory_symlink("../..", file("d/up"));
    const std::string tree = fs::path(file("")).parent_path().filename().string();
    EXPECT_THROW(check_output_target(file("new/../d/up/" + tree + "/u.json"), inputs), InputError);
    fs::create_hard_link(in, file("hard.json"));
    EXPECT_THROW(check_output_target(file("hard.json"), inputs), InputError);
#endif
    EXPECT_NO_THROW(check_output_target(file("newdir/u.json"), inputs));
    EXPECT_NO_THROW(check_output_target(file("other.json"), inputs));
#ifndef _WIN32
    EXPECT_EQ(resolved_output_path(file("x/y/../../z.json")), fs::canonical(file("")).string() + "/z.json");
#endif
}

TEST_F(OutputTarget, AFileInsideAStoreIsRefused) {
    fs::create_directories(file("store/real"));
    const OutputInputs inputs{{}, {file("store")}};
    for (const std::string& out : {file("store/store.json"), file("store/real/x.json.gz"),
                                   file("store/new/x.json"), file("elsewhere/../store/store.json")}) {
        SCOPED_TRACE(out);
        EXPECT_THROW(check_output_target(out, inputs), InputError);
    }
    EXPECT_NO_THROW(check_output_target(file("store.json"), inputs));
    EXPECT_NO_THROW(check_output_target(file("storex/a.json"), inputs));
}

TEST_F(OutputTarget, AnEmptyPathAndADirectoryAreRefused) {
    EXPECT_THROW(check_output_target("", {}), InputError);
    fs::create_directory(file("d"));
    EXPECT_THROW(check_output_target(file("d"), {}), InputError);
}

#ifndef _WIN32
TEST_F(OutputTarget, DevicesAndFifosAreWrittenInPlaceNeverReplaced) {
    write_file_atomically("/dev/null", "discarded\n");
    EXPECT_TRUE(fs::is_character_file("/dev/null"));
    const std::string fifo = file("fifo");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    std::string read_back;
    std::thread reader([&] { read_back = slurp(fifo); });
    try {
        write_file_atomically(fifo, "through the fifo\n");
    } catch (const std::exception& e) {
        ADD_FAILURE() << e.what();
    }
    for (int i = 0; i < 50 && read_back.empty(); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    release_reader(fifo);
    reader.join();
    EXPECT_EQ(read_back, "through the fifo\n");
    EXPECT_TRUE(fs::is_fifo(fifo));
    EXPECT_TRUE(writes_in_place(fifo));
    EXPECT_TRUE(writes_in_place("/dev/null"));
    EXPECT_FALSE(writes_in_place(file("absent.json")));
}
#endif

#ifndef _WIN32
// The invariant of the libFuzzer target (harness/fuzz/fuzz_output_target.hpp) over seeded inputs,
// in every CTest run: whatever path and inputs, an accepted target, once written, changed no
// input, no store file, no folder and no FIFO. While it was written it found nothing the hand-made
// regression input had not (fuzz-regressions/output_target).
TEST(OutputTargetProperty, NoAcceptedOutputAltersAnInputOrAStoreOrReplacesAFolderOrFifo) {
    std::mt19937 random(57);
    for (int i = 0; i < testing_support::property_runs(1500); ++i) {
        std::vector<std::uint8_t> bytes(2 + random() % 9);
        for (auto& b : bytes) b = static_cast<std::uint8_t>(random() % 22);  // a name each
        bytes[0] = static_cast<std::uint8_t>(random() % 128);                // the inputs and stores
        SCOPED_TRACE(i);
        EXPECT_NO_THROW(fuzz::output_target(bytes.data(), bytes.size()));
    }
}
#endif

// ---- the examples, as a user meets them ------------------------------------------------

TEST_F(OutputTarget, RunAndUpgradeNeverWriteOverTheirInputThroughAFolderNotMadeYet) {
    // `PB run t.yaml -o newdir3/../t.yaml` overwrote the scenario with results JSON, exit 0.
    const std::string scenario = copy_of("/scenarios/quick.yaml", "t.yaml");
    const std::string before = slurp(scenario);
    expect_refused(run_cli({"run", scenario, "-o", file("newdir3/../t.yaml"), "--no-summary"}),
                   "it is the input");
    EXPECT_EQ(slurp(scenario), before);
    EXPECT_FALSE(fs::exists(file("newdir3")));
    // `PB results upgrade u.json -o newdir2/../u.json` replaced its input.
    const std::string results = copy_of(kResults, "u.json");
    const std::string original = slurp(results);
    expect_refused(run_cli({"results", "upgrade", results, "-o", file("newdir2/../u.json")}),
                   "it is the input");
    EXPECT_EQ(slurp(results), original);
    EXPECT_FALSE(fs::exists(file("newdir2")));
    // The replay source, the same way.
    expect_refused(
        run_cli({"run", "--backend", "replay", "--from", results, "-o", file("n/../u.json"), "--no-summary"}),
        "it is the input");
    EXPECT_EQ(slurp(results), original);
}

#ifndef _WIN32
TEST_F(OutputTarget, StandardInputIsAnInputWhateverItIsNamed) {
    // `PB results upgrade - -o i.json <i.json` replaced the file it was reading.
    const std::string results = copy_of(kResults, "i.json");
    const std::string original = slurp(results);
    Subprocess p({"/bin/sh", "-c", "exec \"$0\" results upgrade - -o \"$1\" < \"$1\"", PINBENCH_EXE, results},
                 {});
    expect_refused(p.wait(std::chrono::seconds(60)), "standard input");
    EXPECT_EQ(slurp(results), original);
}

TEST_F(OutputTarget, StandardOutputAndADeviceAreWrittenInPlaceAndTheLinkKept) {
    // /dev/stdout is a link to /proc/self/fd/1: the atomic write renamed a regular file over it.
    // The same link, made here, so that the machine's own is never at stake.
    const std::string results = copy_of(kResults, "u.json");
    const std::string stdout_link = file("stdout");
    fs::create_symlink("/proc/self/fd/1", stdout_link);
    const auto upgraded = run_cli({"results", "upgrade", results, "-o", stdout_link});
    EXPECT_EQ(upgraded.exit_code, 0) << upgraded.output;
    EXPECT_TRUE(fs::is_symlink(stdout_link));
    EXPECT_NE(upgraded.output.find("\"schema\": \"pinbench.results\""), std::string::npos);
    // Standard output that is a file: appended through the descriptor, not replaced.
    const std::string log = file("log.txt");
    Subprocess to_file(
        {"/bin/sh", "-c", "echo before > \"$2\"; exec \"$0\" results upgrade \"$1\" -o /dev/stdout >> \"$2\"",
         PINBENCH_EXE, results, log},
        {});
    EXPECT_EQ(to_file.wait(std::chrono::seconds(60)).exit_code, 0);
    EXPECT_EQ(slurp(log).rfind("before\n{", 0), 0u) << slurp(log).substr(0, 40);
    // /dev/null: refused as "a character device" before; now written in place.
    EXPECT_EQ(run_cli({"results", "upgrade", results, "-o", "/dev/null"}).exit_code, 0);
    EXPECT_TRUE(fs::is_character_file("/dev/null"));
    // A link to a FIFO is written through, the FIFO kept (it was replaced by the link's rename).
    const std::string fifo = file("fifo");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    fs::create_symlink(fifo, file("to-fifo.json"));
    std::string read_back;
    std::thread reader([&] { read_back = slurp(fifo); });
    EXPECT_EQ(run_cli({"results", "upgrade", results, "-o", file("to-fifo.json")}).exit_code, 0);
    release_reader(fifo);
    reader.join();
    EXPECT_NE(read_back.find("\"schema\": \"pinbench.results\""), std::string::npos);
    EXPECT_TRUE(fs::is_symlink(file("to-fifo.json")));
    EXPECT_TRUE(fs::is_fifo(fifo));
}
#endif

TEST_F(OutputTarget, AnEmptyOutputPathIsAnError) {
    // `budget -o ""`, `results upgrade -o ""`: exit 0 and no file before.
    const std::string results = copy_of(kResults, "u.json");
    expect_refused(run_cli({"results", "upgrade", results, "-o", ""}), "an output path is empty");
    expect_refused(run_cli({"budget", "-o", "", "--time-limit", "1"}), "an output path is empty");
    expect_refused(run_cli({"doctor", "--bundle", ""}), "an output path is empty");
    expect_refused(run_cli({"run", "--backend", "replay", "--from", results, "-o", "", "--no-summary"}),
                   "an output path is empty");
}

TEST_F(OutputTarget, NoOutputInsideTheStoreTheRunAddsTo) {
    // `--store S` with an output inside S: the store's own files are not inputs, yet they are.
    const std::string results = copy_of(kResults, "u.json");
    const std::string store = file("sj");
    const auto added = run_cli({"store", "add", results, "--store", store});
    ASSERT_EQ(added.exit_code, 0) << added.output;
    const std::string header = slurp(store + "/store.json");
    expect_refused(run_cli({"run", "--backend", "replay", "--from", results, "--store", store, "-o",
                            store + "/store.json", "--no-summary"}),
                   "inside the store");
    expect_refused(run_cli({"run", "--backend", "replay", "--from", results, "--times-from", store, "-o",
                            store + "/real/x.json", "--no-summary"}),
                   "inside the store");
    EXPECT_EQ(slurp(store + "/store.json"), header);
    EXPECT_FALSE(fs::exists(store + "/real/x.json"));
}

}  // namespace
}  // namespace pinbench
