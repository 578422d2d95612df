// The Windows reader of platform/memory_limits.hpp in a real job object: the test puts its helper
// program (win32_test_child.cpp, mode memory-limits) in a job with a per-process and a job-wide
// memory limit before it runs, and reads back what the reader found there. Windows reports the
// limits and the reader names both; Wine's QueryInformationJobObject is a stub that reports none
// (checked on the job's own handle, not assumed), and then the reader must say so, never invent one.
#include <gtest/gtest.h>
#include <windows.h>

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>

#include "platform/handles_win32.hpp"
#include "temp_dir.hpp"
#include "windows_support.hpp"

namespace pinbench {
namespace {

constexpr std::uint64_t GiB = std::uint64_t{1} << 30;

TEST(MemoryLimitsWin32, AJobObjectsMemoryLimitsAreReadInsideIt) {
    testing_support::TempDir dir("pinbench_memory_limits_win32");
    win32::UniqueHandle job(::CreateJobObjectW(nullptr, nullptr));
    ASSERT_TRUE(job.valid()) << win32::error_text(::GetLastError());
    JOBOBJECT_EXTENDED_LIMIT_INFORMATION set{};
    set.BasicLimitInformation.LimitFlags =
        JOB_OBJECT_LIMIT_PROCESS_MEMORY | JOB_OBJECT_LIMIT_JOB_MEMORY | JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
    set.ProcessMemoryLimit = 3 * GiB;
    set.JobMemoryLimit = 6 * GiB;
    ASSERT_TRUE(::SetInformationJobObject(job.get(), JobObjectExtendedLimitInformation, &set, sizeof set))
        << win32::error_text(::GetLastError());

    // Started suspended, put in the job, then let run: it reads its limits inside the job.
    const std::string out = dir.file("limits.txt");
    std::wstring line = L"\"" + win32::widen(testing_support::test_child_path()) + L"\" memory-limits \"" +
                        win32::widen(out) + L"\"";
    STARTUPINFOW startup{};
    startup.cb = sizeof startup;
    PROCESS_INFORMATION info{};
    ASSERT_TRUE(::CreateProcessW(nullptr, line.data(), nullptr, nullptr, FALSE, CREATE_SUSPENDED, nullptr,
                                 nullptr, &startup, &info))
        << win32::error_text(::GetLastError());
    const win32::UniqueHandle process(info.hProcess), thread(info.hThread);
    ASSERT_TRUE(::AssignProcessToJobObject(job.get(), process.get())) << win32::error_text(::GetLastError());
    ::ResumeThread(thread.get());
    ASSERT_EQ(::WaitForSingleObject(process.get(), 60000), WAIT_OBJECT_0);
    DWORD code = 1;
    ::GetExitCodeProcess(process.get(), &code);
    ASSERT_EQ(code, 0u);
    std::stringstream text;
    text << std::ifstream(out).rdbuf();
    const std::string got = text.str();
    EXPECT_EQ(got.rfind("in_job 1\n", 0), 0u) << got;
    EXPECT_NE(got.find("host shared "), std::string::npos) << got;

    // What this OS reports of the job, asked on its own handle.
    JOBOBJECT_EXTENDED_LIMIT_INFORMATION reported{};
    ASSERT_TRUE(::QueryInformationJobObject(job.get(), JobObjectExtendedLimitInformation, &reported,
                                            sizeof reported, nullptr));
    if (reported.BasicLimitInformation.LimitFlags & JOB_OBJECT_LIMIT_JOB_MEMORY) {
        EXPECT_NE(got.find("job_process process " + std::to_string(3 * GiB) + " "), std::string::npos) << got;
        EXPECT_NE(got.find("job shared " + std::to_string(6 * GiB) + " "), std::string::npos) << got;
    } else {
        // Wine: the stub zeroes the answer. The reader must not invent a limit, and says why.
        EXPECT_TRUE(testing_support::wine_version().has_value())
            << "only Wine reports no limits it was given";
        EXPECT_EQ(got.find("\njob"), std::string::npos) << "no job limit line\n" << got;
        EXPECT_NE(got.find("note job object: this process is in one that reports no memory limit\n"),
                  std::string::npos)
            << got;
    }
}

}  // namespace
}  // namespace pinbench
