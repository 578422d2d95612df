// Atomic file replacement on Windows while others read the file: pinbench's own readers (which
// share delete access), readers that do not (Python's open(), the helper's hold-open mode), and
// readers in other processes. docs/windows.md ("Replacing files while others read them") says
// what is guaranteed against which reader.
#include <gtest/gtest.h>
#include <windows.h>

#include <chrono>
#include <string>

#include "pinbench/platform/atomic_file.hpp"
#include "pinbench/platform/subprocess.hpp"
#include "pinbench/vocabulary/errors.hpp"
#include "temp_dir.hpp"
#include "windows_support.hpp"

namespace pinbench {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using testing_support::test_child;

class TempDir : public testing_support::TempDir {
public:
    TempDir() : testing_support::TempDir("pinbench_atomic_win32") {}
};

std::string read_handle(HANDLE file) {
    std::string contents;
    char buffer[4096];
    DWORD n = 0;
    while (::ReadFile(file, buffer, sizeof buffer, &n, nullptr) && n > 0) contents.append(buffer, n);
    return contents;
}

// A reader that keeps the file open without delete sharing (as Python's open() does) for half a
// second: the writer waits it out and then replaces the file. (It used to give up after 200 ms.)
TEST(AtomicFileWin32, AReplaceWaitsOutAReaderThatDoesNotShareDelete) {
    TempDir dir;
    const std::string path = dir.file("results.json");
    write_file_atomically(path, "old");
    Subprocess reader(test_child("hold-open", {path, "500"}), {});
    ASSERT_EQ(reader.read_line(20s), std::optional<std::string>("open"));
    const auto start = Clock::now();
    EXPECT_NO_THROW(write_file_atomically(path, "new"));
    const auto waited = Clock::now() - start;
    EXPECT_EQ(read_file(path), "new");
    // Under Wine (MoveFileExW) the open handle surely blocked the replace until it closed.
    if (testing_support::wine_version())
        EXPECT_GE(waited, 200ms) << "the reader's handle did not block the replace";
    EXPECT_EQ(reader.wait(20s).exit_code, 0);
    EXPECT_EQ(dir.entries(), std::vector<std::string>{"results.json"});
}

// A reader that holds the file longer than the writer waits: a clear error naming the path and
// the cause, the old contents intact, no temporary file left.
TEST(AtomicFileWin32, AReaderHoldingTheFileTooLongGivesAClearError) {
    TempDir dir;
    const std::string path = dir.file("results.json");
    write_file_atomically(path, "old");
    Subprocess reader(test_child("hold-open", {path, "6000"}), {});
    ASSERT_EQ(reader.read_line(20s), std::optional<std::string>("open"));
    const auto start = Clock::now();
    try {
        write_file_atomically(path, "new");
        ADD_FAILURE() << "replaced a file held open without delete sharing";
    } catch (const SystemError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find(path), std::string::npos) << what;
        EXPECT_NE(what.find("holds the file open without sharing delete access"), std::string::npos) << what;
    }
    EXPECT_LT(Clock::now() - start, 5s);
    EXPECT_EQ(read_file(path), "old");
    EXPECT_EQ(dir.entries(), std::vector<std::string>{"results.json"});
}

// pinbench's readers share delete access; with POSIX rename semantics the replace does not
// wait for them, and an open handle keeps reading the old contents.
TEST(AtomicFileWin32, ASharingReaderDoesNotDelayTheReplace) {
    PINBENCH_SKIP_UNDER_WINE(
        "SetFileInformationByHandle(FileRenameInfoEx) is not implemented (ERROR_INVALID_PARAMETER), so "
        "the replace falls back to MoveFileExW, which any open reader blocks");
    TempDir dir;
    const std::string path = dir.file("results.json");
    write_file_atomically(path, "old contents");
    const std::wstring wide(path.begin(), path.end());
    const HANDLE reader =
        ::CreateFileW(wide.c_str(), GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
                      nullptr, OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, nullptr);
    ASSERT_NE(reader, INVALID_HANDLE_VALUE);
    const auto start = Clock::now();
    EXPECT_NO_THROW(write_file_atomically(path, "new contents"));
    EXPECT_LT(Clock::now() - start, 200ms);
    EXPECT_EQ(read_file(path), "new contents");
    EXPECT_EQ(read_handle(reader), "old contents");
    ::CloseHandle(reader);
}

// Readers in another process reading all the time: each read is the old or the new file, a
// read never fails, and no exception escapes the writer.
TEST(AtomicFileWin32, ReadersInAnotherProcessSeeTheOldOrTheNewContents) {
    TempDir dir;
    const std::string path = dir.file("flip");
    const std::string a(1 << 20, 'a');
    const std::string b(3 << 20, 'b');
    write_file_atomically(dir.file("a"), a);
    write_file_atomically(dir.file("b"), b);
    write_file_atomically(path, a);
    Subprocess reader(test_child("read-loop", {path, "1500", dir.file("a"), dir.file("b")}), {});
    ASSERT_EQ(reader.read_line(20s), std::optional<std::string>("reading"));
    int written = 0;
    std::vector<std::string> failures;
    const auto until = Clock::now() + 1s;
    for (int i = 0; Clock::now() < until; ++i) {
        try {
            write_file_atomically(path, i % 2 == 0 ? b : a);
            ++written;
        } catch (const SystemError& e) {
            failures.emplace_back(e.what());
        }
    }
    const auto result = reader.read_line(20s);
    ASSERT_TRUE(result.has_value());
    long reads = -1, mixed = -1, failed = -1;
    ASSERT_EQ(std::sscanf(result->c_str(), "reads %ld mixed %ld failed %ld", &reads, &mixed, &failed), 3)
        << *result;
    EXPECT_GT(reads, 0);
    EXPECT_EQ(mixed, 0) << *result;
    EXPECT_EQ(failed, 0) << *result;
    EXPECT_GT(written, 0);
    RecordProperty("writes", written);
    RecordProperty("failed_writes", static_cast<int>(failures.size()));
    for (const auto& f : failures)
        EXPECT_NE(f.find("holds the file open without sharing delete access"), std::string::npos) << f;
    if (!testing_support::wine_version()) EXPECT_TRUE(failures.empty()) << failures.front();
    EXPECT_EQ(reader.wait(20s).exit_code, 0);
}

// A character device (NUL) is written in place, never renamed over, and leaves no temporary file
// beside it (issue 57: a device target was refused; on POSIX /dev/stdout was replaced).
TEST(AtomicFileWin32, TheNulDeviceIsWrittenInPlace) {
    EXPECT_TRUE(writes_in_place("NUL"));
    EXPECT_NO_THROW(write_file_atomically("NUL", "discarded\n"));
    TempDir dir;
    EXPECT_FALSE(writes_in_place(dir.file("absent.json")));
    write_file_atomically(dir.file("a.json"), "file\n");
    EXPECT_FALSE(writes_in_place(dir.file("a.json")));
}

}  // namespace
}  // namespace pinbench
