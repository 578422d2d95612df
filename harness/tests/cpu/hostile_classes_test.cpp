// Hostile input by class, one suite per class, one case per command the class
// reaches: YAML aliases that expand without bound, stores that lead out of themselves or fail
// whole on one bad entry, a results document `store add` took and pinreport refused (the shared
// corpus harness/tests/fixtures/hostile-results), a bad TMPDIR, control characters that reached
// the terminal, and words that name no command. Each asserts the exit code (README.md, "Exit
// codes") and the one line that names the problem.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "fixture_table.hpp"
#include "output_lines.hpp"
#include "pinbench/platform/subprocess.hpp"
#include "pinbench/vocabulary/errors.hpp"
#include "pinbench/vocabulary/terminal_text.hpp"
#include "scenario/yaml_reader.hpp"
#include "temp_dir.hpp"
#include "test_paths.hpp"

namespace pinbench {
namespace {

namespace fs = std::filesystem;
using testing_support::TempDir;
using namespace std::chrono_literals;

const std::string kBase = std::string(PINBENCH_FIXTURES) + "/results-validity/accept_base.json";
const std::string kCorpus = std::string(PINBENCH_FIXTURES) + "/hostile-results/";

ProcessOutcome run_cli(const std::vector<std::string>& args,
                       const std::map<std::string, std::string>& env = {},
                       std::vector<std::string> prefix = {}) {
    prefix.push_back(PINBENCH_EXE);
    prefix.insert(prefix.end(), args.begin(), args.end());
    Subprocess p(prefix, env);
    return p.wait(60s);
}

using test::lines_of;

bool contains(const std::string& text, const std::string& needle) {
    return text.find(needle) != std::string::npos;
}

// Exit code 2 and exactly one line of output that contains `needle`.
void expect_refused(const ProcessOutcome& out, const std::string& needle) {
    EXPECT_EQ(out.kind, ProcessOutcome::Kind::exited) << out.output;
    EXPECT_EQ(out.exit_code, exit_code::bad_input) << out.output;
    EXPECT_EQ(lines_of(out.output).size(), 1u) << out.output;
    EXPECT_TRUE(contains(out.output, needle)) << out.output;
}

void write(const std::string& path, const std::string& text) {
    std::ofstream(path, std::ios::binary) << text;
}

nlohmann::json base_document() { return nlohmann::json::parse(std::ifstream(kBase)); }

// ---- class 3: amplification -------------------------------------------------------------------

// Nine levels of ten aliases each: 10^9 nodes once expanded, in under 400 bytes.
std::string laughs(const std::string& head) {
    std::string text = head + "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
    for (int i = 1; i < 10; ++i) {
        text += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [";
        for (int k = 0; k < 10; ++k) text += (k ? ", *a" : "*a") + std::to_string(i - 1);
        text += "]\n";
    }
    return text;
}

// `count` aliases of one scalar.
std::string many_aliases(const std::string& head, int count) {
    std::string text = head + "x: &x 1\ny: [";
    for (int i = 0; i < count; ++i) text += i ? ", *x" : "*x";
    return text + "]\n";
}

TEST(HostileAmplification, TheLimitsHoldExactly) {
    const YamlReader reader("t.yaml", "a scenario file");
    EXPECT_NO_THROW(reader.document(many_aliases("", static_cast<int>(max_yaml_aliases))));
    try {
        reader.document(many_aliases("", static_cast<int>(max_yaml_aliases) + 1));
        FAIL() << "accepted";
    } catch (const InputError& e) {
        EXPECT_EQ(e.line(), 2);
        EXPECT_TRUE(contains(e.what(), "more than 1000 aliases")) << e.what();
    }
    // An anchored list of 999 scalars (1000 nodes) aliased N times, plus the mapping, its two keys
    // and the list of aliases (4): 998 aliases make 999,004 nodes, 999 make 1,000,004.
    const auto aliased = [](int n) {
        std::string text = "k: &k [x";
        for (int i = 1; i < 999; ++i) text += ", x";
        text += "]\ny: [";
        for (int i = 0; i < n; ++i) text += i ? ", *k" : "*k";
        return text + "]\n";
    };
    EXPECT_NO_THROW(reader.document(aliased(998)));
    EXPECT_THROW(reader.document(aliased(999)), InputError);
    // 16 MiB of text once expanded: one 1 MiB scalar and 15 aliases of it is the limit, 16 pass it.
    const auto strings = [](int n) {
        std::string text = "k: &k " + std::string((std::size_t{1} << 20) - 2, 'x') + "\ny: [";
        for (int i = 0; i < n; ++i) text += i ? ", *k" : "*k";
        return text + "]\n";
    };
    EXPECT_NO_THROW(reader.document(strings(15)));
    EXPECT_THROW(reader.document(strings(16)), InputError);
    try {
        reader.document(laughs(""));
        FAIL() << "accepted";
    } catch (const InputError& e) {
        EXPECT_TRUE(contains(e.what(), "expands to more than 1000000 nodes")) << e.what();
        EXPECT_GE(e.line(), 2);
    }
}

// A command kind's argv: 900 aliases of one 100 kB string, 90 MB once expanded, in a 104 kB file
// (9,000 such aliases took 2.6 GB and 13 s before, and were accepted).
std::string long_strings(int aliases) {
    std::string text =
        "schema_version: 2\nscenarios:\n  - name: a\n    kind: command\n    api: pageable\n"
        "    size: 1MiB\n    params:\n      command: [&s " +
        std::string(100000, 'x');
    for (int i = 0; i < aliases; ++i) text += ", *s";
    return text + "]\n";
}

// docs/scenario-format.md's "Limits" table states the limits yaml_reader.hpp defines.
TEST(HostileAmplification, TheDocsStateTheLimits) {
    std::ifstream in(std::string(PINBENCH_SOURCE_DIR) + "/docs/scenario-format.md");
    const std::string docs{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    EXPECT_TRUE(contains(docs, "| YAML aliases (`*name`) | " + std::to_string(max_yaml_aliases) + " |"));
    EXPECT_EQ(max_yaml_expanded_nodes, 1'000'000u);
    EXPECT_EQ(max_yaml_expanded_bytes, std::uint64_t{16} << 20);
    EXPECT_TRUE(contains(docs, "| 1,000,000 nodes and 16 MiB of text"));
}

TEST(HostileAmplification, PlanRunAndReplayScriptsRefuseAnExpandingDocument) {
    TempDir dir("pinbench_hostile41");
    const std::string strings = dir.file("strings.yaml");
    write(strings, long_strings(900));
    expect_refused(run_cli({"plan", strings}), strings + ":8:");
    expect_refused(run_cli({"plan", strings}), "expands to more than 16777216 bytes of text");
    expect_refused(run_cli({"run", strings, "-o", dir.file("out.json")}), "bytes of text");
    const std::string scenario = dir.file("laughs.yaml");
    write(scenario, laughs("schema_version: 2\n"));
    const std::string aliases = dir.file("aliases.yaml");
    write(aliases, many_aliases("schema_version: 2\n", 9000));
    const auto start = std::chrono::steady_clock::now();
    expect_refused(run_cli({"plan", scenario}), scenario + ":");
    expect_refused(run_cli({"plan", scenario}), "expands to more than 1000000 nodes");
    expect_refused(run_cli({"plan", aliases}), aliases + ":3:");
    expect_refused(run_cli({"plan", aliases}), "more than 1000 aliases");
    expect_refused(run_cli({"run", scenario, "-o", dir.file("out.json")}), "expands to more than");
    expect_refused(run_cli({"run", "--backend", "replay", "--from", kBase, "--script", scenario, "-o",
                            dir.file("out.json")}),
                   "expands to more than");
    EXPECT_LT(std::chrono::steady_clock::now() - start, 20s);
    EXPECT_FALSE(fs::exists(dir.file("out.json")));
}

// ---- class 4: stores --------------------------------------------------------------------------

// A store holding accept_base.json; returns its directory.
std::string store_with_base(const TempDir& dir) {
    const std::string store = dir.file("store");
    const auto out = run_cli({"store", "add", kBase, "--store", store});
    EXPECT_EQ(out.exit_code, 0) << out.output;
    return store;
}

TEST(HostileStore, ListNeverFollowsANamespaceLinkOutOfTheStore) {
#ifdef _WIN32
    GTEST_SKIP() << "symbolic links to directories need privileges on Windows";
#endif
    TempDir dir("pinbench_hostile41");
    const std::string store = store_with_base(dir);
    // Outside the store, a tree laid out like a namespace, with a file the listing must not read.
    const fs::path outside = dir.path() / "outside";
    fs::rename(fs::path(store) / "real", outside);
    fs::create_directory_symlink(outside, fs::path(store) / "real");
    const auto out = run_cli({"store", "list", "--store", store});
    expect_refused(out, "real: a symbolic link where the store's real/ directory belongs (never followed)");
    EXPECT_FALSE(contains(out.output, "nvidia-h200")) << out.output;
    // store add never writes through it either.
    const auto before =
        std::distance(fs::recursive_directory_iterator(outside), fs::recursive_directory_iterator());
    const std::string changed = dir.file("changed.json");
    nlohmann::json doc = base_document();
    doc["started_at"] = "2025-06-02T10:00:00Z";
    write(changed, doc.dump());
    expect_refused(run_cli({"store", "add", changed, "--store", store}),
                   "a symbolic link where the store has a folder");
    EXPECT_EQ(std::distance(fs::recursive_directory_iterator(outside), fs::recursive_directory_iterator()),
              before);
}

TEST(HostileStore, AFileWhereAFolderBelongsIsNamed) {
    TempDir dir("pinbench_hostile41");
    const std::string store = store_with_base(dir);
    fs::remove_all(fs::path(store) / "real");
    write((fs::path(store) / "real").string(), "not a folder\n");
    expect_refused(run_cli({"store", "list", "--store", store}),
                   "real: a regular file where the store's real/");
    expect_refused(run_cli({"store", "add", kBase, "--store", store}),
                   "real: a regular file where the store has a folder");
    fs::remove(fs::path(store) / "real");
    fs::create_directories(fs::path(store) / "real");
    write((fs::path(store) / "real" / "linux").string(), "not a folder either\n");
    expect_refused(run_cli({"store", "add", kBase, "--store", store}),
                   "linux: a regular file where the store has a folder");
}

TEST(HostileStore, AnEmptyStorePathIsOneLineOfBadInput) {
    expect_refused(run_cli({"store", "add", kBase, "--store", ""}), "the store directory is an empty path");
    expect_refused(run_cli({"store", "list", "--store", ""}), "the store directory is an empty path");
    // run --store: refused before anything is measured (it ran and stored nothing, exit 0).
    TempDir dir("pinbench_hostile41");
    expect_refused(run_cli({"run", "--backend", "replay", "--from", kBase, "-o", dir.file("r.json"),
                            "--store", "", "--no-summary"}),
                   "the store directory is an empty path");
    EXPECT_FALSE(fs::exists(dir.file("r.json")));
}

TEST(HostileStore, AReusedMeasurementIdWithOtherDataIsAConflict) {
    TempDir dir("pinbench_hostile41");
    const std::string store = store_with_base(dir);
    nlohmann::json doc = base_document();
    doc["runs"][0]["reason"] = "other data under the same measurement";
    const std::string other = dir.file("other.json");
    write(other, doc.dump());
    const auto out = run_cli({"store", "add", other, "--store", store});
    expect_refused(out, other + ": measurement ");
    EXPECT_TRUE(contains(out.output, "is stored already as " + store)) << out.output;
    EXPECT_TRUE(contains(out.output, "with other data (a conflict); not stored")) << out.output;
    // The same data in other formatting is the same measurement, stored once.
    const std::string reformatted = dir.file("reformatted.json");
    write(reformatted, base_document().dump(4));
    const auto again = run_cli({"store", "add", reformatted, "--store", store});
    EXPECT_EQ(again.exit_code, 0) << again.output;
    EXPECT_TRUE(contains(again.output, "already stored: ")) << again.output;
}

// Runs pinbench as another user (nobody), so that permissions hold against it: these tests run
// as root. Skipped where setpriv is missing.
std::vector<std::string> as_nobody() {
    if (!fs::exists("/usr/bin/setpriv")) return {};
    return {"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"};
}

TEST(HostileStore, AReadOnlyStoreAndAnUnreadableFolderAreBadInput) {
#ifdef _WIN32
    GTEST_SKIP() << "POSIX permissions";
#else
    const auto prefix = as_nobody();
    if (prefix.empty()) GTEST_SKIP() << "no setpriv";
    TempDir dir("pinbench_hostile41");
    const std::string store = store_with_base(dir);
    fs::permissions(dir.path(), fs::perms::all, fs::perm_options::add);  // nobody may reach the store
    // A store nobody may not write: `store add` refuses it before writing anything.
    nlohmann::json doc = base_document();
    doc["started_at"] = "2025-06-02T10:00:00Z";
    const std::string other = dir.file("other.json");
    write(other, doc.dump());
    fs::permissions(other, fs::perms::others_read, fs::perm_options::add);
    expect_refused(run_cli({"store", "add", other, "--store", store}, {}, prefix), "cannot write the store");
    // A folder of the store nobody may not read: named, and every other entry still listed.
    const fs::path locked = fs::path(store) / "real" / "locked";
    fs::create_directory(locked);
    fs::permissions(locked, fs::perms::owner_all, fs::perm_options::replace);
    const auto out = run_cli({"store", "list", "--store", store}, {}, prefix);
    EXPECT_EQ(out.exit_code, exit_code::bad_input) << out.output;
    EXPECT_TRUE(contains(out.output, "real/locked: a directory that cannot be read (Permission denied)"))
        << out.output;
    EXPECT_TRUE(contains(out.output, "real/linux/linux/nvidia-h200/1gpu/580.65.06/")) << out.output;
#endif
}

// The shared corpus (harness/tests/fixtures/hostile-results; pinreport's side:
// reports/tests/test_shared_hostile_corpus.py): every file refused by `store add`, `run --store`'s
// reader and `results upgrade`, naming the file and the JSON path.
std::vector<std::pair<std::string, std::string>> corpus() {
    return test::fixture_table(kCorpus + "cases.tsv");
}

TEST(HostileResultsCorpus, EveryFileIsACase) {
    const auto cases = corpus();
    ASSERT_GE(cases.size(), 20u);
    std::size_t files = 0;
    for (const auto& e : fs::directory_iterator(kCorpus)) files += e.path().extension() == ".json";
    EXPECT_EQ(files, cases.size());
}

TEST(HostileResultsCorpus, StoreAddAndResultsUpgradeRefuseEveryFile) {
    TempDir dir("pinbench_hostile41");
    for (const auto& [name, where] : corpus()) {
        SCOPED_TRACE(name);
        const std::string path = kCorpus + name;
        expect_refused(run_cli({"store", "add", path, "--store", dir.file("store")}), path + ": ");
        const auto upgraded = run_cli({"results", "upgrade", path, "-o", dir.file("upgraded.json")});
        expect_refused(upgraded, path + ": ");
        EXPECT_TRUE(contains(upgraded.output, path + ": " + where)) << upgraded.output;
    }
    EXPECT_FALSE(fs::exists(dir.file("store") + "/real"));
    EXPECT_FALSE(fs::exists(dir.file("upgraded.json")));
}

// ---- class 7: environment ---------------------------------------------------------------------

TEST(HostileEnvironment, ABadTmpdirIsNamedInOneLine) {
#ifdef _WIN32
    GTEST_SKIP() << "Windows names its temporary directory by TMP and TEMP";
#endif
    TempDir dir("pinbench_hostile41");
    const std::string file = dir.file("a-file");
    write(file, "x");
    // A value with control characters is named escaped, as every outside text (class 8).
    const auto forged = run_cli({"doctor", "--bundle", dir.file("bundle.json")},
                                {{"TMPDIR", dir.file("missing\x1b[2K\rFORGED")}});
    expect_refused(forged, "missing\\x1b[2K\\rFORGED'");
    EXPECT_EQ(forged.output.find('\x1b'), std::string::npos) << forged.output;
    for (const std::string& tmpdir : {dir.file("missing"), file}) {
        SCOPED_TRACE(tmpdir);
        const std::map<std::string, std::string> env{{"TMPDIR", tmpdir}};
        expect_refused(run_cli({"doctor", "--bundle", dir.file("bundle.json")}, env),
                       "TMPDIR='" + tmpdir + "'");
        expect_refused(run_cli({"trace", "-o", dir.file("trace.json"), "--", "true"}, env),
                       "TMPDIR='" + tmpdir + "': not a usable temporary directory");
        expect_refused(run_cli({"run", std::string(PINBENCH_SOURCE_DIR) + "/scenarios/quick.yaml", "-o",
                                dir.file("out.json"), "--no-summary"},
                               env),
                       "TMPDIR='" + tmpdir + "'");
    }
}

// ---- class 8: terminal injection --------------------------------------------------------------

TEST(HostileTerminal, TerminalTextEscapesWhatATerminalActsOn) {
    EXPECT_EQ(terminal_text("580.65.06"), "580.65.06");
    EXPECT_EQ(terminal_text("a\x1b[2K\rFORGED\n"), "a\\x1b[2K\\rFORGED\\n");
    EXPECT_EQ(terminal_text("tab\there\x7f"), "tab\\there\\x7f");
    EXPECT_EQ(terminal_text("\xc2\x9b"
                            "31m"),
              "\\u009b31m");  // 8-bit CSI
    EXPECT_EQ(terminal_text("\xe2\x80\xae"
                            "evil"),
              "\\u202eevil");                                     // right-to-left override
    EXPECT_EQ(terminal_text("bad \xff byte"), "bad \\xff byte");  // invalid UTF-8
    EXPECT_EQ(terminal_text("gr\xc3\xbc\xc3\x9f \xe6\x97\xa5"),
              "gr\xc3\xbc\xc3\x9f \xe6\x97\xa5");  // text stays
    EXPECT_EQ(terminal_text("C:\\path"), "C:\\path");
}

// No byte a terminal acts on (ESC, CR, C1 CSI) in a command's output.
void expect_inert(const std::string& output) {
    EXPECT_EQ(output.find('\x1b'), std::string::npos) << output;
    EXPECT_EQ(output.find('\r'), std::string::npos) << output;
    EXPECT_EQ(output.find("\xc2\x9b"), std::string::npos) << output;
}

TEST(HostileTerminal, NoCommandPrintsControlCharactersFromItsInput) {
#ifdef _WIN32
    GTEST_SKIP() << "Windows file names hold no control characters";
#endif
    TempDir dir("pinbench_hostile41");
    const std::string forged =
        "x\x1b[2K\rFORGED \xc2\x9b"
        "31m";
    // plan and run: a scenario's names and a YAML error quoting its text.
    const std::string scenario = dir.file("s.yaml");
    write(scenario, "schema_version: 2\nscenarios:\n  - name: \"" + std::string("x\\e[2K\\rFORGED") +
                        "\"\n    kind: overhead\n    api: pageable\n    size: 64MiB\n");
    for (const auto& args : std::vector<std::vector<std::string>>{
             {"plan", scenario}, {"run", scenario, "-o", dir.file("o.json"), "--no-summary"}}) {
        const auto out = run_cli(args);
        EXPECT_NE(out.exit_code, 0) << out.output;
        EXPECT_TRUE(contains(out.output, "\\x1b[2K\\rFORGED")) << out.output;
        expect_inert(out.output);
    }
    // run --backend replay: the run ids of the results file replayed, in the progress lines.
    nlohmann::json doc = base_document();
    for (auto& run : doc["runs"]) {
        const std::string id = run["id"].get<std::string>() + forged;
        run["id"] = id;
        run["plan"]["id"] = id;
    }
    doc["environment"]["driver"]["release"] = "580.65.06" + forged;
    const std::string results = dir.file("forged.json");
    write(results, doc.dump());
    const auto replay =
        run_cli({"run", "--backend", "replay", "--from", results, "-o", dir.file("r.json"), "--no-summary"});
    EXPECT_TRUE(contains(replay.output, "FORGED \\u009b31m")) << replay.output;
    expect_inert(replay.output);
    // store add and store list: a file name and a refusal quoting the store's names.
    const std::string store = dir.file("store");
    const auto add = run_cli({"store", "add", results, "--store", store});
    expect_inert(add.output);
    const fs::path release = fs::path(store) / "real/linux/linux/nvidia-h200/1gpu";
    fs::create_directories(release / "580.65.06");
    write((release / "580.65.06" / ("20250601T100000Z-" + forged + ".json.gz")).string(), "");
    const auto list = run_cli({"store", "list", "--store", store});
    EXPECT_EQ(list.exit_code, exit_code::bad_input) << list.output;
    EXPECT_TRUE(contains(list.output, "\\x1b[2K\\rFORGED")) << list.output;
    expect_inert(list.output);
    // trace: the tracing message quotes what the traced program's processes wrote to the events
    // file (here a forged start event of its own).
    const auto trace = run_cli({"trace", "-o", dir.file("t.json"), "--", "sh", "-c",
                                "printf '{\"event\":\"start\",\"pid\":1,\"t_ns\":0,\"error\":"
                                "\"x\\\\u001b[2K\\\\rFORGED\"}\\n' >> \"$PINBENCH_TRACE_EVENTS\""});
    EXPECT_TRUE(contains(trace.output, "x\\x1b[2K\\rFORGED")) << trace.output;
    expect_inert(trace.output);
    // An unknown word on the command line.
    const auto word = run_cli({forged});
    expect_refused(word, "unknown command 'x\\x1b[2K\\rFORGED");
    expect_inert(word.output);
}

// ---- class 9: unknown words -------------------------------------------------------------------

TEST(HostileWords, AnUnknownCommandIsNamedWithTheNearestOne) {
    expect_refused(run_cli({"foo"}),
                   "pinbench: unknown command 'foo' (commands: doctor, run, plan, budget, trace, store, "
                   "results, metrics, help, completion)");
    expect_refused(run_cli({"rnu"}), "pinbench: unknown command 'rnu'; did you mean 'run'?");
    expect_refused(run_cli({"store", "lsit", "--store", "x"}),
                   "pinbench store: unknown command 'lsit'; did you mean 'list'?");
    expect_refused(run_cli({"results", "upgrad", "x"}),
                   "pinbench results: unknown command 'upgrad'; did you mean 'upgrade'?");
    // --help after an unknown word is no call for the main help.
    const auto help = run_cli({"foo", "--help"});
    expect_refused(help, "unknown command 'foo'");
    EXPECT_FALSE(contains(help.output, "Usage:")) << help.output;
    // The hidden commands are neither offered nor refused.
    EXPECT_FALSE(contains(run_cli({"__chlid"}).output, "__child"));
    EXPECT_EQ(run_cli({"plan", "--help"}).exit_code, 0);
}

}  // namespace
}  // namespace pinbench
