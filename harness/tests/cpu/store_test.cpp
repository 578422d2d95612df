// The baseline store: where files are filed, idempotent adds, accumulating history, the replay
// namespace, a writer killed mid-write, the lock and its stale-lock recovery, and rejections.
#include <gtest/gtest.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "pinbench/platform/atomic_file.hpp"
#include "pinbench/probes/platform_probes.hpp"
#include "pinbench/results/results.hpp"
#include "pinbench/store/store.hpp"
#include "pinbench/vocabulary/errors.hpp"
#include "pinbench/vocabulary/test_double.hpp"
#include "store/gzip.hpp"
#include "store/store_lock.hpp"
#include "store/store_support.hpp"
#include "temp_dir.hpp"
#include "test_paths.hpp"

#ifndef _WIN32
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#endif

namespace pinbench {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using namespace std::chrono_literals;

// One directory per test, named after this suite.
class TempDir : public testing_support::TempDir {
public:
    TempDir() : testing_support::TempDir("pinbench_store") {}
};

json environment(const std::string& platform, const std::string& model, const std::string& gpu, int count,
                 const json& release) {
    json devices = json::array();
    for (int i = 0; i < count; ++i)
        devices.push_back({{"name", gpu}, {"driver_model", {{"current", model}}}});
    return {{"platform", platform},
            {"driver", {{"release", release}}},
            {"cuda_device_count", count},
            {"devices", devices}};
}

RepeatRecord repeat(int index, std::int64_t cost) {
    RepeatRecord r;
    r.index = index;
    r.pid = 4242;
    r.nonce = "n" + std::to_string(index);
    r.wall_ms = 800;
    Snapshot before;
    before.label = "after_context";
    before.readings["cuda.free"] = Reading::of(150'000'000'000);
    Snapshot after = before;
    after.label = "after_first_use";
    after.readings["cuda.free"] = Reading::of(150'000'000'000 - cost);
    r.snapshots = {before, after};
    r.timings_ms = {{"alloc", 4.25}};
    return r;
}

// A small valid results document; `repeats` makes it as large as a test needs.
ResultsDocument results(const std::string& started_at, const std::string& release = "580.65.06",
                        int repeats = 1) {
    ResultsDocument doc;
    doc.tool = {{"name", "pinbench"}, {"version", "0.1.0"}};
    doc.command = {"pinbench", "run", "scenarios/quick.yaml"};
    doc.started_at = started_at;
    doc.finished_at = started_at;
    doc.complete = true;
    doc.environment = environment("linux", "linux", "NVIDIA H200", 1, release);
    doc.controls = json::object();
    doc.scenario = {{"path", "scenarios/quick.yaml"}};
    RunRecord run;
    run.run.id = "quick/cudaMallocHost/64MiB/x1/g1";
    run.run.scenario = "quick";
    run.run.kind = "overhead";
    run.run.api = ApiVariant{ApiFamily::malloc_host, flag_none};
    run.run.size = 64ULL << 20;
    run.run.repeats = repeats;
    for (int i = 0; i < repeats; ++i) run.repeats.push_back(repeat(i, 2097152));
    run.metrics["cost.after_first_use.cuda.free"] = {"bytes", Summary{1, 2097152, 2097152, 2097152, 0},
                                                     2097152};
    doc.runs.push_back(run);
    return doc;
}

ResultsDocument replayed(ResultsDocument doc, const std::string& release) {
    doc.backend = "replay";
    doc.replay = {{"source", "real.json"}, {"source_backend", "cuda"}, {"script", "bump.yaml"}};
    doc.environment["driver"]["release"] = release;
    doc.environment["replayed"] = true;
    return doc;
}

std::string write_results(const TempDir& dir, const std::string& name, const ResultsDocument& doc) {
    const std::string path = dir.file(name);
    write_file_atomically(path, to_json(doc).dump(2) + "\n");
    return path;
}

// A file's contents; a stored file (.json.gz, store version 3) decompressed.
std::string read(const std::string& path) {
    const std::string bytes = read_file(path);
    const bool gz = path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0;
    return gz ? store_detail::gzip_decompress(bytes) : bytes;
}

// Lock options for tests: short waits, and every broken lock collected.
StoreLockOptions quick_lock(std::vector<std::string>* reports, std::chrono::milliseconds wait = 5000ms) {
    StoreLockOptions lock;
    lock.wait = wait;
    lock.poll = 10ms;
    lock.report = [reports](const std::string& line) { reports->push_back(line); };
    return lock;
}

void expect_all_usable(const std::vector<StoredEntry>& entries) {
    for (const StoredEntry& e : entries) EXPECT_EQ(e.problem, "") << e.relative_path;
}

// --- keys and names ------------------------------------------------------------------------

TEST(StoreKey, SlugIsLowercaseWithSingleDashes) {
    EXPECT_EQ(store_slug("NVIDIA GeForce RTX 4090"), "nvidia-geforce-rtx-4090");
    EXPECT_EQ(store_slug("  A100-SXM4 (80GB) "), "a100-sxm4-80gb");
    EXPECT_EQ(store_slug("WDDM"), "wddm");
    EXPECT_EQ(store_slug("--"), "");
}

TEST(StoreKey, ComesFromTheEnvironmentRecord) {
    const StoreKey key = store_key_of(environment("windows", "WDDM", "NVIDIA GeForce RTX 4090", 2, "566.36"));
    EXPECT_EQ(key, (StoreKey{"windows", "wddm", "nvidia-geforce-rtx-4090", "2gpu", "566.36"}));
}

TEST(StoreKey, UnavailableValuesBecomeUnknownField) {
    EXPECT_EQ(store_key_of(json::object()),
              (StoreKey{"unknown-platform", "unknown-driver-model", "unknown-gpu", "unknown-gpu-count",
                        "unknown-release"}));
    json env = environment("unknown", "unknown", "", 1, {{"unavailable", "NVML: library not found"}});
    EXPECT_EQ(store_key_of(env), (StoreKey{"unknown-platform", "unknown-driver-model", "unknown-gpu", "1gpu",
                                           "unknown-release"}));
}

TEST(StoreKey, MixedDevicesAndUnsafeReleasesStaySafeDirectoryNames) {
    json env = environment("windows", "WDDM", "NVIDIA RTX A6000", 1, "../../etc");
    env["devices"].push_back({{"name", "NVIDIA H200"}, {"driver_model", {{"current", "TCC"}}}});
    env["cuda_device_count"] = 2;
    const StoreKey key = store_key_of(env);
    EXPECT_EQ(key.driver_model, "wddm--tcc");
    EXPECT_EQ(key.gpu, "nvidia-rtx-a6000--nvidia-h200");
    EXPECT_EQ(key.release, "etc");  // leading dots and separators are dropped: no "..", no '/'
}

// Before: a GPU or platform named CON or NUL became a folder of that name, a device on Windows.
TEST(StoreKey, WindowsReservedNamesNeverBecomeFolderNames) {
    json env = environment("CON", "linux", "NUL", 1, "nul.580");
    EXPECT_EQ(store_key_of(env), (StoreKey{"con_", "linux", "nul_", "1gpu", "nul_.580"}));
    for (const char* name : {"aux", "PRN", "com1", "Com9", "lpt0", "LPT9"}) {
        const std::string gpu = store_key_of(environment("linux", "linux", name, 1, "1")).gpu;
        EXPECT_EQ(gpu, store_slug(name) + "_") << name;
    }
    // Not reserved: longer names, or a reserved word inside one.
    EXPECT_EQ(store_key_of(environment("console", "linux", "com10", 1, "con-1.2")),
              (StoreKey{"console", "linux", "com10", "1gpu", "con-1.2"}));
}

TEST(StoreSupport, TimestampsParseAndFormat) {
    const auto t = store_detail::parse_utc_timestamp("2025-06-01T10:02:03Z");
    ASSERT_TRUE(t.has_value());
    EXPECT_EQ(store_detail::format_utc_timestamp(*t, true), "20250601T100203Z");
    EXPECT_EQ(store_detail::format_utc_timestamp(*t), "2025-06-01T10:02:03Z");
    EXPECT_TRUE(store_detail::parse_utc_timestamp("2025-06-01T10:02:03.250Z").has_value());
    EXPECT_FALSE(store_detail::parse_utc_timestamp("2025-13-01T10:02:03Z").has_value());
    EXPECT_FALSE(store_detail::parse_utc_timestamp("2025-06-01T10:02:03").has_value());
    EXPECT_FALSE(store_detail::parse_utc_timestamp("yesterday").has_value());
}

// --- opening ---------------------------------------------------------------------------------

TEST(Store, TheFirstAddCreatesTheDirectoryAndItsVersionedStoreFile) {
    TempDir tmp;
    const std::string dir = tmp.file("store/nested");
    const Store store = Store::open(dir);
    EXPECT_FALSE(fs::exists(tmp.path() / "store"));  // opening creates nothing
    store.add(write_results(tmp, "r.json", results("2025-06-01T10:00:00Z")));
    const json header = json::parse(read(dir + "/store.json"));
    EXPECT_EQ(header, (json{{"schema", "pinbench.store"}, {"schema_version", 3}}));
    EXPECT_NO_THROW(Store::open(dir));  // reopening an existing store
    EXPECT_NO_THROW(Store::open_existing(dir));
}

// Before: opening a store to read it (pinbench store list) created it, so a typo looked like an
// empty store; and adding an invalid file created the store before the file was refused.
TEST(Store, ReadingNeverCreatesAndAnInvalidAddCreatesNothing) {
    TempDir tmp;
    const std::string typo = tmp.file("TYPO");
    try {
        Store::open_existing(typo);
        FAIL() << "a missing store opened for reading";
    } catch (const InputError& e) {
        EXPECT_EQ(std::string(e.what()), typo + ": no such store (the directory does not exist)");
    }
    EXPECT_FALSE(fs::exists(typo));
    fs::create_directories(tmp.file("empty"));
    EXPECT_THROW(Store::open_existing(tmp.file("empty")), InputError);  // no store.json
    EXPECT_FALSE(fs::exists(tmp.path() / "empty" / "store.json"));

    write_file_atomically(tmp.file("bad.json"), "{\"schema\": \"pinbench.results\",");
    const Store store = Store::open(typo);
    EXPECT_THROW(store.add(tmp.file("bad.json")), InputError);
    EXPECT_THROW(store.add(tmp.file("missing.json")), InputError);
    EXPECT_FALSE(fs::exists(typo));
}

TEST(Store, OpenRejectsAnotherVersionNamingTheFile) {
    TempDir tmp;
    write_file_atomically(tmp.file("store.json"), R"({"schema": "pinbench.store", "schema_version": 4})");
    try {
        Store::open(tmp.path().string());
        FAIL() << "version 4 accepted";
    } catch (const InputError& e) {
        EXPECT_EQ(std::string(e.what()),
                  tmp.file("store.json") +
                      ": store schema version 4 is not supported (this build reads versions 1 to 3)");
    }
    EXPECT_THROW(Store::open_existing(tmp.path().string()), InputError);
}

TEST(Store, OpenRejectsAnotherSchemaAndBrokenJson) {
    TempDir tmp;
    write_file_atomically(tmp.file("store.json"), R"({"schema": "pinbench.results", "schema_version": 1})");
    try {
        Store::open(tmp.path().string());
        FAIL() << "another schema accepted";
    } catch (const InputError& e) {
        EXPECT_EQ(std::string(e.what()), tmp.file("store.json") +
                                             ": not a pinbench store file (schema is \"pinbench.results\", "
                                             "expected \"pinbench.store\")");
    }
    write_file_atomically(tmp.file("store.json"), "{\"schema\": ");
    EXPECT_THROW(Store::open(tmp.path().string()), InputError);
}

TEST(Store, OpenRefusesADirectoryThatIsNotAStore) {
    TempDir tmp;
    write_file_atomically(tmp.file("notes.txt"), "mine");
    try {
        Store::open(tmp.path().string());
        FAIL() << "a non-empty directory became a store";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("not a pinbench store"), std::string::npos) << e.what();
    }
    EXPECT_FALSE(fs::exists(tmp.path() / "store.json"));
}

// --- adding and listing ----------------------------------------------------------------------

TEST(Store, AddFilesTheWholeFileUnderItsKey) {
    TempDir tmp;
    const Store store = Store::open(tmp.file("store"));
    const std::string source = write_results(tmp, "r.json", results("2025-06-01T10:00:00Z"));

    const StoredEntry entry = store.add(source);
    EXPECT_FALSE(entry.already_stored);
    EXPECT_FALSE(entry.replay);
    EXPECT_TRUE(
        std::regex_match(entry.relative_path, std::regex("real/linux/linux/nvidia-h200/1gpu/580\\.65\\.06/"
                                                         "20250601T100000Z-[0-9a-f]{12}\\.json\\.gz")))
        << entry.relative_path;
    EXPECT_EQ(entry.started_at, "20250601T100000Z");
    EXPECT_EQ(entry.relative_path.substr(entry.relative_path.size() - 20, 12), entry.hash);
    EXPECT_EQ(fs::path(entry.path), fs::path(tmp.file("store")) / entry.relative_path);
    // Stored compressed (gzip), and byte for byte once decompressed, environment record included;
    // the hash in the name is that of the uncompressed bytes.
    const std::string compressed = read_file(entry.path);
    EXPECT_EQ(compressed.substr(0, 2), std::string("\x1f\x8b"));
    EXPECT_LT(compressed.size(), read_file(source).size());
    EXPECT_EQ(read(entry.path), read(source));
    EXPECT_EQ(store_detail::gzip_decompress(compressed), read_file(source));

    const auto listed = store.list();
    ASSERT_EQ(listed.size(), 1u);
    EXPECT_EQ(listed[0].relative_path, entry.relative_path);
    EXPECT_EQ(listed[0].key, entry.key);
    EXPECT_EQ(listed[0].hash, entry.hash);
    EXPECT_EQ(listed[0].problem, "");
    EXPECT_FALSE(fs::exists(tmp.path() / "store" / ".lock"));  // released
}

TEST(Store, WindowsKeyUsesDriverModelGpuCountAndRelease) {
    TempDir tmp;
    const Store store = Store::open(tmp.file("store"));
    ResultsDocument doc = results("2025-06-02T01:02:03Z");
    doc.environment = environment("windows", "WDDM", "NVIDIA GeForce RTX 4090", 2, "566.36");
    const StoredEntry entry = store.add(write_results(tmp, "w.json", doc));
    EXPECT_EQ(entry.relative_path.rfind(
                  "real/windows/wddm/nvidia-geforce-rtx-4090/2gpu/566.36/20250602T010203Z-", 0),
              0u)
        << entry.relative_path;
}

TEST(Store, AddingTheSameFileTwiceIsIdempotent) {
    TempDir tmp;
    const Store store = Store::open(tmp.file("store"));
    const std::string source = write_results(tmp, "r.json", results("2025-06-01T10:00:00Z"));
    const StoredEntry first = store.add(source);
    const StoredEntry second = store.add(source);
    EXPECT_TRUE(second.already_stored);
    EXPECT_EQ(second.path, first.path);
    // The same bytes under another name are the same results.
    fs::copy_file(source, tmp.file("copy.json"));
    EXPECT_TRUE(store.add(tmp.file("copy.json")).already_stored);
    EXPECT_EQ(store.list().size(), 1u);
}

TEST(Store, NightlyRunsOfOneReleaseAccumulate) {
    TempDir tmp;
    const Store store = Store::open(tmp.file("store"));
    const StoredEntry monday = store.add(write_results(tmp, "mon.json", results("2025-06-02T02:00:00Z")));
    const std::string monday_bytes = read(monday.path);
    const StoredEntry tuesday = store.add(write_results(tmp, "tue.json", results("2025-06-03T02:00:00Z")));
    // Same start second, another measurement (its own repeat nonces): still two files.
    ResultsDocument rerun = results("2025-06-03T02:00:00Z");
    rerun.runs[0].repeats[0].wall_ms = 801;
    rerun.runs[0].repeats[0].nonce = "other";
    const StoredEntry rerun_entry = store.add(write_results(tmp, "rerun.json", rerun));

    EXPECT_FALSE(tuesday.already_stored);
    EXPECT_FALSE(rerun_entry.already_stored);
    EXPECT_EQ(monday.key, tuesday.key);
    EXPECT_NE(tuesday.path, rerun_entry.path);
    const auto listed = store.list();
    ASSERT_EQ(listed.size(), 3u);
    expect_all_usable(listed);
    EXPECT_EQ(listed[0].relative_path, monday.relative_path);  // sorted: oldest first within a key
    EXPECT_EQ(read(monday.path), monday_bytes);                // nothing overwritten
}

// --- one measurement, one night ------------------------------------------------------------

// The same JSON value with the members of every object in reverse order.
nlohmann::ordered_json reversed(const json& j) {
    if (j.is_object()) {
        nlohmann::ordered_json out = nlohmann::ordered_json::object();
        for (auto it = j.rbegin(); it != j.rend(); ++it) out[it.key()] = reversed(*it);
        return out;
    }
    if (j.is_array()) {
        nlohmann::ordered_json out = nlohmann::ordered_json::array();
        for (const json& v : j) out.push_back(reversed(v));
        return out;
    }
    return nlohmann::ordered_json(j);
}

TEST(Store, MeasurementIdentityIsItsIdOrDerivedFromStartBackendAndSortedNonces) {
    ResultsDocument doc = results("2025-06-01T10:00:00Z", "580.65.06", 2);
    doc.runs[0].repeats[0].nonce = "zz";
    doc.runs[0].repeats[1].nonce = "aa";
    // XXH3-64 of "2025-06-01T10:00:00Z\ncuda\naa\nzz" (reports/tests/test_store_index.py checks
    // the same text and value on the Python side).
    json j = to_json(doc);
    j.erase("measurement_id");  // as results schema 1 and 2 wrote them
    EXPECT_EQ(measurement_identity(j), "derived-72e8672fc04da6ea");
    std::swap(doc.runs[0].repeats[0].nonce, doc.runs[0].repeats[1].nonce);
    EXPECT_EQ(measurement_identity(to_json(doc)), "derived-72e8672fc04da6ea");  // order of repeats: same
    j["measurement_id"] = "5eed1d0000c0ffee";
    EXPECT_EQ(measurement_identity(j), "5eed1d0000c0ffee");
}

TEST(Store, TheSameMeasurementReformattedIsAlreadyStored) {
    TempDir tmp;
    const Store store = Store::open(tmp.file("store"));
    const ResultsDocument doc = results("2025-06-01T10:00:00Z");
    const StoredEntry first = store.add(write_results(tmp, "r.json", doc));
    const json j = to_json(doc);
    std::string crlf;
    for (const char c : j.dump(2) + "\n") crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
    const std::vector<std::pair<std::string, std::string>> copies = {
        {"compact.json", j.dump()},
        {"wide.json", j.dump(4) + "\n\n"},
        {"crlf.json", crlf},
        {"reordered.json", reversed(j).dump(1)},
    };
    for (const auto& [name, bytes] : copies) {
        write_file_atomically(tmp.file(name), bytes);
        const StoredEntry again = store.add(tmp.file(name));
        EXPECT_TRUE(again.already_stored) << name;
        EXPECT_EQ(again.relative_path, first.relative_path) << name;
    }
    const auto listed = store.list();
    ASSERT_EQ(listed.size(), 1u);
    EXPECT_EQ(read(listed[0].path), read(first.path));
}

TEST(Store, AResumedFileReplacesItsStoredPartial) {
    TempDir tmp;
    const Store store = Store::open(tmp.file("store"));
    ResultsDocument full = results("2025-06-01T10:00:00Z");
    RunRecord second = full.runs[0];
    second.run.id = "quick/cudaMallocHost/128MiB/x1/g1";
    second.repeats[0].nonce = "n-second";
    full.runs.push_back(second);
    ResultsDocument partial = full;
    partial.complete = false;
    partial.finished_at = "";
    partial.runs.pop_back();

    StoreAddOptions incomplete;
    incomplete.allow_incomplete = true;
    // One measurement_id in both (results schema 3 writes it; set in the JSON here).
    const auto with_id = [&](const std::string& name, const ResultsDocument& doc) {
        json j = to_json(doc);
        j["measurement_id"] = "00c0ffee5eed1d00";
        write_file_atomically(tmp.file(name), j.dump(2));
        return tmp.file(name);
    };
    // The resumed file's repeats of the first run were measured again: other nonces, same id.
    full.runs[0].repeats[0].nonce = "n-again";
    const StoredEntry night1 = store.add(with_id("partial.json", partial), incomplete);
    EXPECT_FALSE(night1.already_stored);
    const StoredEntry resumed = store.add(with_id("resumed.json", full));
    EXPECT_FALSE(resumed.already_stored);
    EXPECT_EQ(resumed.replaced, std::vector<std::string>{night1.relative_path});
    auto listed = store.list();
    ASSERT_EQ(listed.size(), 1u);  // one night, never two
    EXPECT_EQ(listed[0].relative_path, resumed.relative_path);
    expect_all_usable(listed);

    // The partial again, after its completion was stored: nothing changes.
    const StoredEntry late = store.add(tmp.file("partial.json"), incomplete);
    EXPECT_TRUE(late.already_stored);
    EXPECT_EQ(late.relative_path, resumed.relative_path);
    EXPECT_EQ(store.list().size(), 1u);
}

TEST(Store, ParallelAddsOfOneFileIntoANewStoreAllSucceed) {
    TempDir tmp;
    const std::string source = write_results(tmp, "r.json", results("2025-06-01T10:00:00Z"));
    for (int round = 0; round < 8; ++round) {
        const std::string dir = tmp.file("store" + std::to_string(round));
        if (round % 2) fs::create_directories(dir);  // absent, then empty
        constexpr int adders = 20;
        std::atomic<int> stored{0}, already{0};
        std::vector<std::string> errors(adders);
        std::vector<std::thread> threads;
        for (int i = 0; i < adders; ++i) {
            threads.emplace_back([&, i] {
                try {
                    StoreAddOptions options;
                    options.lock.poll = std::chrono::milliseconds(2);
                    const StoredEntry e = Store::open(dir).add(source, options);
                    (e.already_stored ? already : stored)++;
                } catch (const std::exception& e) {
                    errors[i] = e.what();
                }
            });
        }
        for (auto& t : threads) t.join();
        for (const std::string& e : errors) EXPECT_EQ(e, "") << "round " << round;
        EXPECT_EQ(stored.load(), 1) << "round " << round;
        EXPECT_EQ(already.load(), adders - 1) << "round " << round;
        EXPECT_EQ(Store::open(dir).list().size(), 1u);
    }
}

TEST(Store, AHugeNumberIsOneFilesProblemAndTheRestIsListed) {
    TempDir tmp;
    const Store store = Store::open(tmp.file("store"));
    const StoredEntry good = store.add(write_results(tmp, "r.json", results("2025-06-01T10:00:00Z")));
    std::string text = to_json(results("2025-06-01T11:00:00Z")).dump(1);
    const std::string median = "\"median\": 2097152";
    const auto at = text.find(median);
    ASSERT_NE(at, std::string::npos);
    text.replace(at, median.size(), "\"median\": 1" + std::string(400, '0'));
    const fs::path bad = fs::path(good.path).parent_path() / "20250601T110000Z-000000000000.json";
    write_file_atomically(bad.string(), text);

    const auto listed = store.list();
    ASSERT_EQ(listed.size(), 2u);
    EXPECT_EQ(listed[0].problem, "");
    EXPECT_EQ(listed[0].relative_path, good.relative_path);
    // The strict reader's words (json/json_reader.hpp), as pinreport says it.
    EXPECT_EQ(listed[1].problem.rfind(listed[1].path + ": invalid JSON: number out of range", 0), 0u)
        << listed[1].problem;
    EXPECT_LT(listed[1].problem.size() - listed[1].path.size(), 100u) << listed[1].problem;
    EXPECT_EQ(listed[1].problem.find("0000000000000000000000000"), std::string::npos) << listed[1].problem;
}

// FNV-1a 64, the names of a version-1 store.
std::string fnv12(const std::string& bytes) {
    std::uint64_t h = 14695981039346656037ull;
    for (const unsigned char c : bytes) h = (h ^ c) * 1099511628211ull;
    char text[17];
    std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(h));
    return std::string(text, 12);
}

TEST(Store, AVersionOneStoreStillReadsAndBecomesVersionThreeWithItsFirstAdd) {
    TempDir tmp;
    const std::string dir = tmp.file("store");
    fs::create_directories(dir);
    write_file_atomically(dir + "/store.json", R"({"schema": "pinbench.store", "schema_version": 1})");
    const std::string old_bytes = to_json(results("2025-06-01T10:00:00Z")).dump(2) + "\n";
    const std::string old_name =
        "real/linux/linux/nvidia-h200/1gpu/580.65.06/20250601T100000Z-" + fnv12(old_bytes) + ".json";
    fs::create_directories(fs::path(dir) / fs::path(old_name).parent_path());
    write_file_atomically(dir + "/" + old_name, old_bytes);

    const Store store = Store::open(dir);
    auto listed = store.list();
    ASSERT_EQ(listed.size(), 1u);
    EXPECT_EQ(listed[0].problem, "");
    const StoredEntry added = store.add(write_results(tmp, "new.json", results("2025-06-02T10:00:00Z")));
    EXPECT_NE(added.hash, fnv12(read(added.path)));  // new names: XXH3
    EXPECT_EQ(json::parse(read(dir + "/store.json"))["schema_version"], 3);
    listed = store.list();
    ASSERT_EQ(listed.size(), 2u);
    expect_all_usable(listed);
    EXPECT_EQ(listed[0].relative_path, old_name);
}

// A results file of an older version (the hand-written version 1 fixture): its key and place.
std::string older_results() { return read_file(std::string(PINBENCH_FIXTURES) + "/results/valid_v1.json"); }
constexpr const char* kOlderPlace = "real/unknown-platform/linux/h200/unknown-gpu-count/580.65.06/";

TEST(Store, AddStoresAnOlderFileInTheCurrentVersion) {
    TempDir tmp;
    const Store store = Store::open(tmp.file("store"));
    const std::string source = tmp.file("v1.json");
    write_file_atomically(source, older_results());
    const StoredEntry entry = store.add(source);
    EXPECT_EQ(entry.relative_path.rfind(std::string(kOlderPlace) + "20250601T100000Z-", 0), 0u)
        << entry.relative_path;
    const json stored = json::parse(read(entry.path));
    EXPECT_EQ(stored["schema_version"], results_schema_version);  // as `pinbench results upgrade` writes it
    EXPECT_EQ(measurement_identity(stored), measurement_identity(json::parse(older_results())));
    EXPECT_TRUE(stored["runs"][0]["metrics"]["cost.after_first_use.cuda.free"]["samples"].is_array());
    // The same older file again is the same measurement, stored already.
    EXPECT_TRUE(store.add(source).already_stored);
    EXPECT_EQ(store.list().size(), 1u);
}

TEST(Store, UpgradeRewritesOlderNightsInTheCurrentVersionInPlace) {
    TempDir tmp;
    const std::string dir = tmp.file("store");
    const Store store = Store::open(dir);
    const StoredEntry current = store.add(write_results(tmp, "r.json", results("2025-06-02T10:00:00Z")));
    // A night an older pinbench stored as it was (its bytes unchanged, an FNV-1a name).
    const std::string older = older_results();
    const fs::path place = fs::path(dir) / kOlderPlace;
    fs::create_directories(place);
    const fs::path kept = place / ("20250601T100000Z-" + fnv12(older) + ".json.gz");
    write_file_atomically(kept.string(), store_detail::gzip_compress(older));
    expect_all_usable(store.list());

    const StoreUpgrade done = store.upgrade();
    ASSERT_EQ(done.rewritten.size(), 1u);
    EXPECT_EQ(done.current, 1u);  // the current night is left as it was
    EXPECT_TRUE(done.problems.empty());
    EXPECT_EQ(done.rewritten[0].from, std::string(kOlderPlace) + kept.filename().string());
    EXPECT_FALSE(fs::exists(kept));
    EXPECT_TRUE(fs::exists(current.path));
    const json upgraded = json::parse(read(dir + "/" + done.rewritten[0].to));
    EXPECT_EQ(upgraded["schema_version"], results_schema_version);
    EXPECT_EQ(measurement_identity(upgraded), measurement_identity(json::parse(older)));
    auto listed = store.list();
    ASSERT_EQ(listed.size(), 2u);
    expect_all_usable(listed);

    // Nothing older is left: a second run rewrites nothing.
    const StoreUpgrade again = store.upgrade();
    EXPECT_TRUE(again.rewritten.empty());
    EXPECT_EQ(again.current, 2u);

    // A run cut short between its write and its removal left both: the next one finishes it.
    write_file_atomically(kept.string(), store_detail::gzip_compress(older));
    const StoreUpgrade finished = store.upgrade();
    ASSERT_EQ(finished.rewritten.size(), 1u);
    EXPECT_EQ(finished.rewritten[0].to, done.rewritten[0].to);
    EXPECT_FALSE(fs::exists(kept));
    EXPECT_EQ(store.list().size(), 2u);
}

TEST(Store, UpgradeLeavesAnUnusableFileAsItIsAndNamesIt) {
    TempDir tmp;
    const std::string dir = tmp.file("store");
    const Store store = Store::open(dir);
    store.add(write_results(tmp, "r.json", results("2025-06-02T10:00:00Z")));
    const fs::path place = fs::path(dir) / kOlderPlace;
    fs::create_directories(place);
    const fs::path broken = place / "20250601T100000Z-000000000000.json.gz";
    write_file_atomically(broken.string(), store_detail::gzip_compress(older_results()));  // not its hash
    const StoreUpgrade done = store.upgrade();
    EXPECT_TRUE(done.rewritten.empty());
    ASSERT_EQ(done.problems.size(), 1u);
    EXPECT_NE(done.problems[0].problem.find("hash"), std::string::npos) << done.problems[0].problem;
    EXPECT_TRUE(fs::exists(broken));
}

TEST(Store, AddDeletesTheStaleTemporariesOfKilledWriters) {
    TempDir tmp;
    const Store store = Store::open(tmp.file("store"));
    const StoredEntry entry = store.add(write_results(tmp, "r.json", results("2025-06-01T10:00:00Z")));
    const std::string folder = fs::path(entry.path).parent_path().string();
    const std::uint32_t dead = [] {
#ifndef _WIN32
        const pid_t child = ::fork();
        if (child == 0) ::_exit(0);
        int status = 0;
        ::waitpid(child, &status, 0);
        return static_cast<std::uint32_t>(child);
#else
        return 0xfffffff0u;
#endif
    }();
    const std::string me = std::to_string(current_process_id());
    const std::string old_dead = folder + "/x.json.tmp." + std::to_string(dead) + ".00ff00ff00ff00ff";
    const std::string new_dead = folder + "/y.json.tmp." + std::to_string(dead) + ".00ff00ff00ff00fe";
    const std::string old_alive = folder + "/z.json.tmp." + me + ".00ff00ff00ff00fd";
    const std::string root_dead = tmp.file("store/store.json.tmp." + std::to_string(dead) + ".0a0b0c0d");
    for (const auto& p : {old_dead, new_dead, old_alive, root_dead}) write_file_atomically(p, "partial");
    const auto hour_ago = fs::file_time_type::clock::now() - std::chrono::hours(1);
    for (const auto& p : {old_dead, old_alive, root_dead}) fs::last_write_time(p, hour_ago);

    store.add(write_results(tmp, "s.json", results("2025-06-02T10:00:00Z")));
    EXPECT_FALSE(fs::exists(old_dead));   // old, its writer gone: deleted
    EXPECT_FALSE(fs::exists(root_dead));  // store.json's too
    EXPECT_TRUE(fs::exists(new_dead));    // too young: a writer may still be renaming it
    EXPECT_TRUE(fs::exists(old_alive));   // its process lives
    EXPECT_EQ(store.list().size(), 2u);
}

TEST(Store, ReplayedResultsLiveInTheirOwnNamespace) {
    TempDir tmp;
    const Store store = Store::open(tmp.file("store"));
    const StoredEntry real = store.add(write_results(tmp, "real.json", results("2025-06-01T10:00:00Z")));
    const StoredEntry replay =
        store.add(write_results(tmp, "replay.json", replayed(results("2025-06-01T10:00:00Z"), "581.42")));

    EXPECT_TRUE(replay.replay);
    EXPECT_EQ(replay.relative_path.rfind("replay/linux/linux/nvidia-h200/1gpu/581.42/20250601T100000Z-", 0),
              0u)
        << replay.relative_path;

    const auto all = store.list();
    ASSERT_EQ(all.size(), 2u);
    expect_all_usable(all);
    const auto real_only = store.list(/*real_only=*/true);
    ASSERT_EQ(real_only.size(), 1u);
    EXPECT_EQ(real_only[0].relative_path, real.relative_path);
}

TEST(Store, ReplayedContentsCopiedUnderRealAreNeverListedAsReal) {
    TempDir tmp;
    const Store store = Store::open(tmp.file("store"));
    const StoredEntry replay =
        store.add(write_results(tmp, "replay.json", replayed(results("2025-06-01T10:00:00Z"), "581.42")));
    // Someone moves it by hand into the real namespace.
    const fs::path smuggled = fs::path(tmp.file("store")) / ("real" + replay.relative_path.substr(6));
    fs::create_directories(smuggled.parent_path());
    fs::copy_file(replay.path, smuggled);

    EXPECT_TRUE(store.list(/*real_only=*/true).empty());
    bool flagged = false;
    for (const StoredEntry& e : store.list()) {
        if (e.relative_path.rfind("real/", 0) == 0) {
            EXPECT_TRUE(e.replay);
            EXPECT_NE(e.problem.find("replayed results under real/"), std::string::npos) << e.problem;
            flagged = true;
        }
    }
    EXPECT_TRUE(flagged);
}

// The test-double driver (pinbench/vocabulary/test_double.hpp) measured nothing: its results are refused,
// whether its release or only a device name says so, and one put into the store by hand is
// flagged, never a baseline.
TEST(Store, TestDoubleResultsAreRefused) {
    TempDir tmp;
    const Store store = Store::open(tmp.file("store"));
    ResultsDocument by_release = results("2025-06-01T10:00:00Z", std::string("0.0-") + test_double_marker);
    ResultsDocument by_name = results("2025-06-01T11:00:00Z");
    by_name.environment["devices"][0]["name"] = std::string("pinbench ") + test_double_marker + " GPU";
    for (const ResultsDocument& doc : {by_release, by_name}) {
        const std::string source = write_results(tmp, "double.json", doc);
        try {
            store.add(source);
            FAIL() << "test-double results stored";
        } catch (const InputError& e) {
            EXPECT_EQ(std::string(e.what()).rfind(source + ": results of the pinbench test-double driver", 0),
                      0u)
                << e.what();
        }
    }
    EXPECT_TRUE(store.list().empty());
}

TEST(Store, TestDoubleContentsPutIntoTheStoreByHandAreFlagged) {
    TempDir tmp;
    const Store store = Store::open(tmp.file("store"));
    const StoredEntry real = store.add(write_results(tmp, "real.json", results("2025-06-01T10:00:00Z")));
    ResultsDocument doc = results("2025-06-01T10:00:00Z");
    doc.environment["devices"][0]["name"] = std::string("pinbench ") + test_double_marker + " GPU";
    write_file_atomically(real.path, store_detail::gzip_compress(to_json(doc).dump(2) + "\n"));
    const auto all = store.list();
    ASSERT_EQ(all.size(), 1u);
    EXPECT_EQ(all[0].problem, "results of the pinbench test-double driver: never a baseline");
}

TEST(Store, IncompleteResultsAreRefusedUnlessAllowed) {
    TempDir tmp;
    const Store store = Store::open(tmp.file("store"));
    ResultsDocument doc = results("2025-06-01T10:00:00Z");
    doc.complete = false;
    doc.finished_at = "";
    const std::string source = write_results(tmp, "partial.json", doc);
    try {
        store.add(source);
        FAIL() << "incomplete results stored";
    } catch (const InputError& e) {
        EXPECT_EQ(std::string(e.what()).rfind(source + ": incomplete results", 0), 0u) << e.what();
    }
    EXPECT_TRUE(store.list().empty());

    StoreAddOptions options;
    options.allow_incomplete = true;
    EXPECT_FALSE(store.add(source, options).already_stored);
    EXPECT_EQ(store.list().size(), 1u);
}

// The refusal says what the file records (issue: a run with no driver was called
// "interrupted"): the signal, the device that was missing, or neither.
TEST(Store, AnIncompleteFileIsRefusedForWhatItRecords) {
    TempDir tmp;
    const Store store = Store::open(tmp.file("store"));
    const auto refusal = [&](const ResultsDocument& doc, const std::string& name) {
        const std::string source = write_results(tmp, name, doc);
        try {
            store.add(source);
        } catch (const InputError& e) {
            return std::string(e.what()).substr(source.size());
        }
        return std::string("stored");
    };
    ResultsDocument doc = results("2025-06-01T10:00:00Z");
    doc.complete = false;
    doc.interrupted = {{"signal", "SIGINT"}, {"at", "2025-06-01T10:01:00Z"}, {"run_id", "a"}, {"repeat", 0}};
    doc.finished_at = "";
    EXPECT_EQ(refusal(doc, "signal.json"),
              ": incomplete results (the run was interrupted by SIGINT; pinbench run --resume continues it); "
              "not stored");
    doc.interrupted = nullptr;
    doc.finished_at = "2025-06-01T10:00:01Z";
    doc.controls = {{"skipped", "no CUDA device"}};
    EXPECT_EQ(refusal(doc, "no-device.json"),
              ": incomplete results (nothing was measured: no CUDA device); not stored");
    doc.controls = nullptr;
    doc.finished_at = "";
    EXPECT_EQ(refusal(doc, "killed.json"),
              ": incomplete results (the run is still being written, or was killed before it could record "
              "why); not stored");
}

TEST(Store, InvalidResultsFilesAreNamed) {
    TempDir tmp;
    const Store store = Store::open(tmp.file("store"));
    write_file_atomically(tmp.file("bad.json"), "{\"schema\": \"pinbench.results\",");
    try {
        store.add(tmp.file("bad.json"));
        FAIL() << "invalid JSON stored";
    } catch (const InputError& e) {
        EXPECT_EQ(std::string(e.what()).rfind(tmp.file("bad.json") + ": invalid JSON at byte", 0), 0u)
            << e.what();
    }
    EXPECT_THROW(store.add(tmp.file("missing.json")), InputError);
    EXPECT_THROW(store.add(std::string(PINBENCH_FIXTURES) + "/results/version6.json"), InputError);
    EXPECT_TRUE(store.list().empty());
}

TEST(Store, UnknownEnvironmentValuesAreFiledUnderUnknown) {
    TempDir tmp;
    const Store store = Store::open(tmp.file("store"));
    ResultsDocument doc = results("2025-06-01T10:00:00Z");
    doc.environment = {{"platform", "linux"},
                       {"driver", {{"release", {{"unavailable", "NVML: not found"}}}}}};
    const StoredEntry entry = store.add(write_results(tmp, "r.json", doc));
    EXPECT_EQ(entry.relative_path.rfind("real/linux/unknown-driver-model/unknown-gpu/unknown-gpu-count/"
                                        "unknown-release/20250601T100000Z-",
                                        0),
              0u)
        << entry.relative_path;
    expect_all_usable(store.list());
}

TEST(Store, ChangedOrMisplacedFilesAreReportedNotDropped) {
    TempDir tmp;
    const Store store = Store::open(tmp.file("store"));
    const std::string source = write_results(tmp, "r.json", results("2025-06-01T10:00:00Z"));
    const StoredEntry entry = store.add(source);

    // Another release's directory holding this file: its key no longer matches its place.
    const fs::path misplaced = fs::path(tmp.file("store")) / "real/linux/linux/nvidia-h200/1gpu/999.1" /
                               fs::path(entry.path).filename();
    fs::create_directories(misplaced.parent_path());
    fs::copy_file(entry.path, misplaced);
    // The stored file edited in place: its hash no longer matches; a later add must not replace it.
    const std::string edited = to_json(results("2025-06-01T10:00:00Z", "580.65.06", 2)).dump();
    write_file_atomically(entry.path, store_detail::gzip_compress(edited));
    // A stray file with an odd name.
    write_file_atomically(tmp.file("store/real/linux/readme.txt"), "hello");

    const auto listed = store.list();
    ASSERT_EQ(listed.size(), 3u);
    for (const StoredEntry& e : listed) EXPECT_NE(e.problem, "") << e.relative_path;
    // Sorted by path: 580.65.06 (edited), 999.1 (misplaced), readme.txt.
    EXPECT_NE(listed[0].problem.find("do not match the hash in its name"), std::string::npos)
        << listed[0].problem;
    EXPECT_EQ(listed[1].problem,
              "filed under linux/linux/nvidia-h200/1gpu/999.1 but its environment gives "
              "linux/linux/nvidia-h200/1gpu/580.65.06");
    EXPECT_NE(listed[2].problem.find("not where a stored file belongs"), std::string::npos)
        << listed[2].problem;

    try {
        store.add(source);
        FAIL() << "a file with other contents was replaced";
    } catch (const SystemError& e) {
        EXPECT_NE(std::string(e.what()).find("hash clash"), std::string::npos) << e.what();
    }
    EXPECT_EQ(read(entry.path), edited);
}

// A version-2 store (plain .json files) keeps reading; the same measurement is not stored twice.
TEST(Store, PlainFilesOfAVersionTwoStoreStillReadAndCountAsStored) {
    TempDir tmp;
    const std::string dir = tmp.file("store");
    fs::create_directories(dir);
    write_file_atomically(dir + "/store.json", R"({"schema": "pinbench.store", "schema_version": 2})");
    const std::string source = write_results(tmp, "r.json", results("2025-06-01T10:00:00Z"));
    const Store store = Store::open(dir);
    const StoredEntry first = store.add(source);
    // Where a version-2 writer put it: the plain bytes under <time>-<hash>.json.
    const fs::path plain = fs::path(first.path).replace_extension("");
    fs::remove(first.path);
    write_file_atomically(plain.string(), read(source));
    auto listed = store.list();
    ASSERT_EQ(listed.size(), 1u);
    EXPECT_EQ(listed[0].problem, "");
    EXPECT_TRUE(store.add(source).already_stored);
    // A damaged compressed file is one file's problem.
    write_file_atomically(first.path, "\x1f\x8bnot gzip");
    listed = store.list();
    ASSERT_EQ(listed.size(), 2u);
    EXPECT_NE(listed[1].problem.find("not a valid gzip file"), std::string::npos) << listed[1].problem;
}

#ifndef _WIN32
// Before: store list skipped a FIFO, a symbolic-link loop and a directory named *.json without a
// word (and a reader that opened the FIFO would block). Each is reported, none is opened.
TEST(Store, EntriesThatAreNotRegularFilesAreReportedNeverOpened) {
    TempDir tmp;
    const Store store = Store::open(tmp.file("store"));
    const StoredEntry entry = store.add(write_results(tmp, "r.json", results("2025-06-01T10:00:00Z")));
    const fs::path dir = fs::path(entry.path).parent_path();
    ASSERT_EQ(::mkfifo((dir / "20250602T100000Z-0123456789ab.json.gz").c_str(), 0644), 0);
    fs::create_symlink("loop.json", dir / "loop.json");
    fs::create_symlink(entry.path, dir / "20250603T100000Z-0123456789ab.json");
    fs::create_directories(dir / "20250604T100000Z-0123456789ab.json");
    fs::create_directories(dir / "deeper");
    const auto listed = store.list();  // returns: the FIFO is never opened
    ASSERT_EQ(listed.size(), 6u);
    std::vector<std::string> problems;
    for (const StoredEntry& e : listed) {
        if (e.path == entry.path) {
            EXPECT_EQ(e.problem, "");
        } else {
            problems.push_back(fs::path(e.path).filename().string() + ": " + e.problem);
        }
    }
    EXPECT_EQ(problems,
              (std::vector<std::string>{
                  "20250602T100000Z-0123456789ab.json.gz: a FIFO, not a stored file (never opened)",
                  "20250603T100000Z-0123456789ab.json: a symbolic link, not a stored file (never opened)",
                  "20250604T100000Z-0123456789ab.json: a directory, not a stored file",
                  "deeper: a directory, not a stored file",
                  "loop.json: a symbolic link, not a stored file (never opened)",
              }));
    // add() still works beside them (it never opens them either).
    EXPECT_FALSE(store.add(write_results(tmp, "s.json", results("2025-06-05T10:00:00Z"))).already_stored);
}
#endif

// --- the lock --------------------------------------------------------------------------------

TEST(StoreLock, HoldsOwnerRecordAndIsRemovedOnRelease) {
    TempDir tmp;
    std::vector<std::string> reports;
    {
        const auto lock = store_detail::StoreLock::acquire(tmp.path().string(), quick_lock(&reports));
        const json owner = json::parse(read(tmp.file(".lock")));
        EXPECT_EQ(owner.at("pid").get<std::uint32_t>(), current_process_id());
        EXPECT_EQ(owner.at("hostname").get<std::string>(), store_detail::host_name());
        EXPECT_TRUE(store_detail::parse_utc_timestamp(owner.at("created_at").get<std::string>()).has_value());
    }
    EXPECT_FALSE(fs::exists(tmp.path() / ".lock"));
    EXPECT_TRUE(reports.empty());
}

TEST(StoreLock, ReleaseLeavesALockThatIsNoLongerOurs) {
    TempDir tmp;
    std::vector<std::string> reports;
    {
        const auto lock = store_detail::StoreLock::acquire(tmp.path().string(), quick_lock(&reports));
        write_file_atomically(tmp.file(".lock"), R"({"pid": 1, "hostname": "other", "created_at": "x"})");
    }
    EXPECT_TRUE(fs::exists(tmp.path() / ".lock"));
}

TEST(StoreLock, ALiveHolderBlocksForTheBoundedWait) {
    TempDir tmp;
    std::vector<std::string> reports;
    const std::string dir = tmp.path().string();
    const auto held = store_detail::StoreLock::acquire(dir, quick_lock(&reports));
    const auto start = std::chrono::steady_clock::now();
    try {
        store_detail::StoreLock::acquire(dir, quick_lock(&reports, 300ms));
        FAIL() << "lock taken twice";
    } catch (const SystemError& e) {
        const std::string expected = "store " + dir + " is locked by pid " +
                                     std::to_string(current_process_id()) + " on " +
                                     store_detail::host_name() + " since ";
        EXPECT_EQ(std::string(e.what()).rfind(expected, 0), 0u) << e.what();
    }
    const auto waited = std::chrono::steady_clock::now() - start;
    EXPECT_GE(waited, 300ms);
    EXPECT_LT(waited, 5s);
    EXPECT_TRUE(reports.empty());
}

TEST(StoreLock, AnOldLockIsStaleWhoeverHoldsIt) {
    TempDir tmp;
    std::vector<std::string> reports;
    // Our own (live) pid on another host, an hour old.
    const json old = {
        {"pid", current_process_id()}, {"hostname", "elsewhere"}, {"created_at", "2000-01-01T00:00:00Z"}};
    write_file_atomically(tmp.file(".lock"), old.dump());
    { const auto lock = store_detail::StoreLock::acquire(tmp.path().string(), quick_lock(&reports)); }
    ASSERT_EQ(reports.size(), 1u);
    EXPECT_NE(reports[0].find("on elsewhere since 2000-01-01T00:00:00Z: it is older than 10 min"),
              std::string::npos)
        << reports[0];
}

// Before: pid 0 counted as a live holder (kill(0, 0) succeeds: it is our own process group).
TEST(StoreLock, ALockHoldingPidZeroIsStale) {
    TempDir tmp;
    std::vector<std::string> reports;
    const json zero = {{"pid", 0},
                       {"hostname", store_detail::host_name()},
                       {"created_at", store_detail::utc_timestamp_now()}};
    write_file_atomically(tmp.file(".lock"), zero.dump());
    { const auto lock = store_detail::StoreLock::acquire(tmp.path().string(), quick_lock(&reports, 500ms)); }
    ASSERT_EQ(reports.size(), 1u);
    EXPECT_NE(reports[0].find("its pid 0 names no process"), std::string::npos) << reports[0];
}

TEST(StoreLock, APidFromAnotherHostIsNotJudgedHere) {
    TempDir tmp;
    std::vector<std::string> reports;
    // A pid that cannot exist here, but the lock is recent and from another host: respected.
    const json recent = {{"pid", 4'000'000'000u},
                         {"hostname", "elsewhere"},
                         {"created_at", store_detail::utc_timestamp_now()}};
    write_file_atomically(tmp.file(".lock"), recent.dump());
    EXPECT_THROW(store_detail::StoreLock::acquire(tmp.path().string(), quick_lock(&reports, 200ms)),
                 SystemError);
    EXPECT_TRUE(reports.empty());
}

TEST(StoreLock, AnUnreadableLockIsBrokenOnceItHasAged) {
    TempDir tmp;
    std::vector<std::string> reports;
    write_file_atomically(tmp.file(".lock"), "");  // its writer died before filling it
    EXPECT_THROW(store_detail::StoreLock::acquire(tmp.path().string(), quick_lock(&reports, 200ms)),
                 SystemError);
    fs::last_write_time(tmp.path() / ".lock", fs::file_time_type::clock::now() - std::chrono::minutes(1));
    { const auto lock = store_detail::StoreLock::acquire(tmp.path().string(), quick_lock(&reports)); }
    ASSERT_EQ(reports.size(), 1u);
    EXPECT_NE(reports[0].find("no readable owner"), std::string::npos) << reports[0];
}

TEST(Store, LeftoverTemporaryFilesAreIgnored) {
    TempDir tmp;
    const Store store = Store::open(tmp.file("store"));
    const StoredEntry entry = store.add(write_results(tmp, "r.json", results("2025-06-01T10:00:00Z")));
    // What write_file_atomically leaves when killed before its rename: a truncated copy.
    const std::string bytes = read(entry.path);
    write_file_atomically(entry.path + ".tmp.12345.00ff00ff00ff00ff", bytes.substr(0, bytes.size() / 2));
    const auto listed = store.list();
    ASSERT_EQ(listed.size(), 1u);
    EXPECT_EQ(listed[0].problem, "");
}

#ifndef _WIN32

// Runs `body` in a forked child that ends with _exit: no destructors, as after a crash.
pid_t fork_child(const std::function<void()>& body) {
    const pid_t pid = ::fork();
    if (pid == 0) {
        try {
            body();
        } catch (...) {
            ::_exit(3);
        }
        ::_exit(0);
    }
    return pid;
}

int reap(pid_t pid) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return status;
}

TEST(StoreLock, LivenessOfProcesses) {
    EXPECT_EQ(store_detail::process_liveness(current_process_id()), store_detail::Liveness::alive);
    const pid_t child = fork_child([] {});
    reap(child);  // a zombie would still count as alive
    EXPECT_EQ(store_detail::process_liveness(static_cast<std::uint32_t>(child)),
              store_detail::Liveness::gone);
    EXPECT_EQ(store_detail::process_liveness(0), store_detail::Liveness::unknown);
}

TEST(StoreLock, ALockLeftByADeadProcessIsRecoveredAndReported) {
    TempDir tmp;
    const std::string dir = tmp.path().string();
    const pid_t child = fork_child([&] {
        auto lock = store_detail::StoreLock::acquire(dir, StoreLockOptions{});
        ::_exit(0);  // without releasing it
    });
    const int status = reap(child);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
    ASSERT_TRUE(fs::exists(tmp.path() / ".lock"));
    EXPECT_EQ(json::parse(read(tmp.file(".lock"))).at("pid").get<pid_t>(), child);

    std::vector<std::string> reports;
    const auto start = std::chrono::steady_clock::now();
    {
        const auto lock = store_detail::StoreLock::acquire(dir, quick_lock(&reports));
        EXPECT_EQ(json::parse(read(tmp.file(".lock"))).at("pid").get<std::uint32_t>(), current_process_id());
    }
    EXPECT_LT(std::chrono::steady_clock::now() - start, 2s);  // not a timeout: recovered at once
    ASSERT_EQ(reports.size(), 1u);
    EXPECT_NE(reports[0].find("broke the stale lock of pid " + std::to_string(child)), std::string::npos)
        << reports[0];
    EXPECT_NE(reports[0].find("is no longer running"), std::string::npos) << reports[0];
    // Nothing left behind: neither the lock nor the renamed stale one.
    EXPECT_TRUE(fs::is_empty(tmp.path()));
}

TEST(StoreLock, AnotherLiveProcessBlocksUntilItDies) {
    TempDir tmp;
    const std::string dir = tmp.path().string();
    int ready[2];
    ASSERT_EQ(::pipe(ready), 0);
    const pid_t child = fork_child([&] {
        auto lock = store_detail::StoreLock::acquire(dir, StoreLockOptions{});
        const char byte = 'x';
        (void)!::write(ready[1], &byte, 1);
        for (;;) ::pause();
    });
    ::close(ready[1]);
    char byte = 0;
    ASSERT_EQ(::read(ready[0], &byte, 1), 1);
    ::close(ready[0]);

    std::vector<std::string> reports;
    try {
        store_detail::StoreLock::acquire(dir, quick_lock(&reports, 300ms));
        ADD_FAILURE() << "lock of a live process taken";
    } catch (const SystemError& e) {
        EXPECT_NE(std::string(e.what()).find("is locked by pid " + std::to_string(child) + " on "),
                  std::string::npos)
            << e.what();
    }
    ::kill(child, SIGKILL);
    reap(child);
    { const auto lock = store_detail::StoreLock::acquire(dir, quick_lock(&reports)); }
    ASSERT_EQ(reports.size(), 1u);
    EXPECT_NE(reports[0].find("pid " + std::to_string(child)), std::string::npos) << reports[0];
}

TEST(Store, ConcurrentWritersAllGetIn) {
    TempDir tmp;
    const Store store = Store::open(tmp.file("store"));
    constexpr int writers = 3, files_each = 5;
    std::vector<pid_t> children;
    for (int w = 0; w < writers; ++w) {
        children.push_back(fork_child([&, w] {
            for (int f = 0; f < files_each; ++f) {
                char started[32];
                std::snprintf(started, sizeof started, "2025-06-0%dT00:00:%02dZ", w + 1, f);
                const std::string source =
                    write_results(tmp, "w" + std::to_string(w) + ".json", results(started));
                if (store.add(source).already_stored) ::_exit(4);
            }
        }));
    }
    for (const pid_t child : children) {
        const int status = reap(child);
        EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
    }
    const auto listed = store.list();
    EXPECT_EQ(listed.size(), static_cast<std::size_t>(writers * files_each));
    expect_all_usable(listed);
    EXPECT_FALSE(fs::exists(tmp.path() / "store" / ".lock"));
}

// A large results file whose started_at is "2025-06-02T<i as hh:mm:ss>Z": distinct bytes per i,
// made without serialising the document again.
class BigResults {
public:
    BigResults() : text_(to_json(results("@START@", "580.65.06", 1500)).dump()) {}
    std::string bytes(int i) const {
        char started[32];
        std::snprintf(started, sizeof started, "2025-06-02T%02d:%02d:%02dZ", i / 3600 % 24, i / 60 % 60,
                      i % 60);
        std::string out = text_;
        for (auto at = out.find("@START@"); at != std::string::npos; at = out.find("@START@", at))
            out.replace(at, 7, started);
        return out;
    }

private:
    std::string text_;
};

// After a writer died: every file reads back whole, the earlier one is untouched, and the next
// writer gets in (breaking the dead writer's lock, if it held one, and saying so).
void expect_store_survived(const TempDir& tmp, const Store& store, const StoredEntry& before,
                           const std::string& before_bytes, pid_t writer, const std::string& next_start) {
    const auto listed = store.list();
    ASSERT_GE(listed.size(), 1u);
    expect_all_usable(listed);
    EXPECT_EQ(listed[0].relative_path, before.relative_path);
    EXPECT_EQ(read(before.path), before_bytes);

    std::vector<std::string> reports;
    StoreAddOptions options;
    options.lock = quick_lock(&reports);
    options.lock.unreadable_after = 1s;
    const StoredEntry next = store.add(write_results(tmp, "next.json", results(next_start)), options);
    EXPECT_FALSE(next.already_stored);
    // Killed between creating the lock and filling it, a writer leaves a lock with no owner.
    for (const std::string& r : reports)
        EXPECT_TRUE(r.find("pid " + std::to_string(writer)) != std::string::npos ||
                    r.find("no readable owner") != std::string::npos)
            << r;
    EXPECT_EQ(store.list().size(), listed.size() + 1);
}

TEST(Store, AWriterKilledMidWriteLeavesTheStoreReadableAndIntact) {
    TempDir tmp;
    const std::string dir = tmp.file("store");
    const Store store = Store::open(dir);
    const StoredEntry before = store.add(write_results(tmp, "before.json", results("2025-06-01T00:00:00Z")));
    const std::string before_bytes = read(before.path);
    const BigResults big;

    // Each round: a child adds large files (about 600 kB each) one after another until SIGKILL
    // lands somewhere in it. Parsing takes most of its time, so the kill seldom hits the write
    // itself; the next test makes that case certain.
    for (int round = 0; round < 3; ++round) {
        int ready[2];
        ASSERT_EQ(::pipe(ready), 0);
        const pid_t child = fork_child([&] {
            ::close(ready[0]);
            for (int i = 1000 * round;; ++i) {
                const std::string source = tmp.file("big" + std::to_string(i % 2) + ".json");
                write_file_atomically(source, big.bytes(i));
                store.add(source);
                if (i == 1000 * round) {
                    const char byte = 'x';
                    (void)!::write(ready[1], &byte, 1);
                }
            }
        });
        ::close(ready[1]);
        char byte = 0;
        ASSERT_EQ(::read(ready[0], &byte, 1), 1);  // at least one big file is in
        ::close(ready[0]);
        std::this_thread::sleep_for(std::chrono::milliseconds(37 * round + 20));
        ASSERT_EQ(::kill(child, SIGKILL), 0);
        const int status = reap(child);
        ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << status;
        expect_store_survived(tmp, store, before, before_bytes, child,
                              "2025-06-03T00:00:0" + std::to_string(round) + "Z");
    }
}

// The same, with the kill certain to land inside the store's write: a file-size limit makes the
// kernel stop the child with SIGXFSZ part-way through writing the stored copy.
TEST(Store, AWriterStoppedInsideItsWriteLeavesOnlyATemporaryFile) {
    TempDir tmp;
    const std::string dir = tmp.file("store");
    const Store store = Store::open(dir);
    const StoredEntry before = store.add(write_results(tmp, "before.json", results("2025-06-01T00:00:00Z")));
    const std::string before_bytes = read(before.path);
    const std::string source = tmp.file("big.json");
    write_file_atomically(source, BigResults().bytes(7));
    // The stored copy is compressed: the limit is half of what it takes, well above the lock's size.
    const rlim_t limit = store_detail::gzip_compress(read_file(source)).size() / 2;
    ASSERT_GT(limit, 4096u);

    const pid_t child = fork_child([&] {
        const rlimit no_core{0, 0};
        ::setrlimit(RLIMIT_CORE, &no_core);
        const rlimit size_limit{limit, limit};
        ::setrlimit(RLIMIT_FSIZE, &size_limit);
        store.add(source);
    });
    const int status = reap(child);
    ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGXFSZ) << status;

    // It died holding the lock, leaving a truncated temporary file and no stored file.
    EXPECT_EQ(json::parse(read(dir + "/.lock")).at("pid").get<pid_t>(), child);
    std::vector<fs::path> temporaries;
    for (const auto& e : fs::recursive_directory_iterator(dir))
        if (e.path().filename().string().find(".json.gz.tmp.") != std::string::npos)
            temporaries.push_back(e.path());
    ASSERT_EQ(temporaries.size(), 1u);
    EXPECT_EQ(fs::file_size(temporaries[0]), limit);
    EXPECT_EQ(store.list().size(), 1u);

    expect_store_survived(tmp, store, before, before_bytes, child, "2025-06-03T00:00:00Z");
    // The file the child could not store goes in now, whole.
    const StoredEntry big = store.add(source);
    EXPECT_FALSE(big.already_stored);
    EXPECT_EQ(read(big.path), read(source));
}

#endif  // _WIN32

}  // namespace
}  // namespace pinbench
