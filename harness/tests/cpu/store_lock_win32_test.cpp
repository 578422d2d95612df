// The store lock across processes on Windows: the POSIX fork tests of store_test.cpp, ported to
// real processes (win32_test_child.cpp holds or abandons the lock; pinbench.exe store add writes).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "pinbench/platform/atomic_file.hpp"
#include "pinbench/platform/subprocess.hpp"
#include "pinbench/probes/platform_probes.hpp"
#include "pinbench/store/store.hpp"
#include "pinbench/vocabulary/errors.hpp"
#include "store/store_lock.hpp"
#include "temp_dir.hpp"
#include "test_paths.hpp"
#include "windows_support.hpp"

namespace pinbench {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using namespace std::chrono_literals;
using testing_support::test_child;

class TempDir : public testing_support::TempDir {
public:
    TempDir() : testing_support::TempDir("pinbench_store_win32") {}
};

StoreLockOptions quick_lock(std::vector<std::string>* reports, std::chrono::milliseconds wait = 5000ms) {
    StoreLockOptions lock;
    lock.wait = wait;
    lock.poll = 10ms;
    lock.report = [reports](const std::string& line) { reports->push_back(line); };
    return lock;
}

TEST(StoreLockWin32, LivenessOfProcesses) {
    EXPECT_EQ(store_detail::process_liveness(current_process_id()), store_detail::Liveness::alive);
    std::uint32_t pid = 0;
    {
        Subprocess child(test_child("pid"), {});
        pid = child.pid();
        EXPECT_EQ(child.wait(20s).exit_code, 0);
    }
    EXPECT_EQ(store_detail::process_liveness(pid), store_detail::Liveness::gone);
    EXPECT_EQ(store_detail::process_liveness(0), store_detail::Liveness::unknown);
}

TEST(StoreLockWin32, ALockLeftByADeadProcessIsRecoveredAndReported) {
    TempDir tmp;
    const std::string dir = tmp.path().string();
    std::uint32_t pid = 0;
    {
        Subprocess child(test_child("take-lock-and-exit", {dir}), {});
        pid = child.pid();
        const ProcessOutcome o = child.wait(20s);
        ASSERT_EQ(o.kind, ProcessOutcome::Kind::exited) << o.output;
        ASSERT_EQ(o.exit_code, 0) << o.output;
    }
    ASSERT_TRUE(fs::exists(tmp.path() / ".lock"));
    EXPECT_EQ(json::parse(read_file(tmp.file(".lock"))).at("pid").get<std::uint32_t>(), pid);

    std::vector<std::string> reports;
    const auto start = std::chrono::steady_clock::now();
    {
        const auto lock = store_detail::StoreLock::acquire(dir, quick_lock(&reports));
        EXPECT_EQ(json::parse(read_file(tmp.file(".lock"))).at("pid").get<std::uint32_t>(),
                  current_process_id());
    }
    EXPECT_LT(std::chrono::steady_clock::now() - start, 2s);  // not a timeout: recovered at once
    ASSERT_EQ(reports.size(), 1u);
    EXPECT_NE(reports[0].find("broke the stale lock of pid " + std::to_string(pid)), std::string::npos)
        << reports[0];
    EXPECT_NE(reports[0].find("is no longer running"), std::string::npos) << reports[0];
    EXPECT_TRUE(fs::is_empty(tmp.path()));
}

TEST(StoreLockWin32, AnotherLiveProcessBlocksUntilItDies) {
    TempDir tmp;
    const std::string dir = tmp.path().string();
    std::vector<std::string> reports;
    std::uint32_t pid = 0;
    {
        Subprocess child(test_child("hold-lock", {dir}), {});
        pid = child.pid();
        ASSERT_EQ(child.read_line(20s), std::optional<std::string>("locked"));
        try {
            store_detail::StoreLock::acquire(dir, quick_lock(&reports, 300ms));
            ADD_FAILURE() << "lock of a live process taken";
        } catch (const SystemError& e) {
            EXPECT_NE(std::string(e.what()).find("is locked by pid " + std::to_string(pid) + " on "),
                      std::string::npos)
                << e.what();
        }
        EXPECT_EQ(child.wait(1ms).kind, ProcessOutcome::Kind::timed_out);  // killed here
    }
    { const auto lock = store_detail::StoreLock::acquire(dir, quick_lock(&reports)); }
    ASSERT_EQ(reports.size(), 1u);
    EXPECT_NE(reports[0].find("pid " + std::to_string(pid)), std::string::npos) << reports[0];
}

// Three `pinbench.exe store add` processes at once, three files each: all nine get in.
TEST(StoreWin32, ConcurrentWritersAllGetIn) {
    TempDir tmp;
    const std::string store_dir = tmp.file("store");
    json doc = json::parse(read_file(std::string(PINBENCH_SOURCE_DIR) + "/results/h200-quick/results.json"));
    constexpr int writers = 3, files_each = 3;
    std::vector<std::unique_ptr<Subprocess>> children;
    for (int w = 0; w < writers; ++w) {
        std::vector<std::string> argv{PINBENCH_EXE, "store", "add"};
        for (int f = 0; f < files_each; ++f) {
            char started[32];
            std::snprintf(started, sizeof started, "2025-06-0%dT00:00:%02dZ", w + 1, f);
            doc["started_at"] = started;
            const std::string path = tmp.file("w" + std::to_string(w) + "-" + std::to_string(f) + ".json");
            write_file_atomically(path, doc.dump());
            argv.push_back(path);
        }
        argv.insert(argv.end(), {"--store", store_dir});
        children.push_back(std::make_unique<Subprocess>(argv, std::map<std::string, std::string>{}));
    }
    for (auto& child : children) {
        const ProcessOutcome o = child->wait(120s);
        EXPECT_EQ(o.kind, ProcessOutcome::Kind::exited) << o.output;
        EXPECT_EQ(o.exit_code, 0) << o.output;
        EXPECT_EQ(o.output.find("already stored"), std::string::npos) << o.output;
    }
    const auto listed = Store::open(store_dir).list();
    EXPECT_EQ(listed.size(), static_cast<std::size_t>(writers * files_each));
    for (const auto& e : listed) EXPECT_EQ(e.problem, "") << e.path;
    EXPECT_FALSE(fs::exists(fs::path(store_dir) / ".lock"));
}

}  // namespace
}  // namespace pinbench
