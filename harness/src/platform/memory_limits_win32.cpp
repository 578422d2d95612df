// Windows' memory limits of this process (platform/memory_limits.hpp): the host's physical memory
// (GlobalMemoryStatusEx) and the job object this process runs in (QueryInformationJobObject's
// extended limits: a per-process and a job-wide commit limit), its processes' commit summed.
#include <windows.h>
// windows.h first: psapi.h needs its types.
#include <psapi.h>

#include <cstdlib>
#include <vector>

#include "platform/handles_win32.hpp"
#include "platform/memory_limits.hpp"

namespace pinbench {
namespace {

std::optional<std::uint64_t> private_commit(HANDLE process) {
    PROCESS_MEMORY_COUNTERS_EX counters{};
    counters.cb = sizeof counters;
    if (!::K32GetProcessMemoryInfo(process, reinterpret_cast<PROCESS_MEMORY_COUNTERS*>(&counters),
                                   sizeof counters)) {
        return std::nullopt;
    }
    return counters.PrivateUsage;
}

// The commit of every process in this process's job (the list first, then each one's counters).
std::optional<std::uint64_t> job_commit() {
    std::vector<unsigned char> buffer(sizeof(JOBOBJECT_BASIC_PROCESS_ID_LIST) + 1024 * sizeof(ULONG_PTR));
    auto* list = reinterpret_cast<JOBOBJECT_BASIC_PROCESS_ID_LIST*>(buffer.data());
    if (!::QueryInformationJobObject(nullptr, JobObjectBasicProcessIdList, list,
                                     static_cast<DWORD>(buffer.size()), nullptr)) {
        return std::nullopt;
    }
    std::uint64_t total = 0;
    for (DWORD i = 0; i < list->NumberOfProcessIdsInList; ++i) {
        const auto pid = static_cast<DWORD>(list->ProcessIdList[i]);
        const win32::UniqueHandle process(
            ::OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION | PROCESS_VM_READ, FALSE, pid));
        if (!process.valid()) continue;  // ended meanwhile
        const auto commit = private_commit(process.get());
        if (!commit) return std::nullopt;
        total += *commit;
    }
    // More processes than the list holds: the sum would be short, so it is not given.
    if (list->NumberOfAssignedProcesses > list->NumberOfProcessIdsInList) return std::nullopt;
    return total;
}

JobFacts job_facts() {
    JobFacts f;
    BOOL in_job = FALSE;
    if (!::IsProcessInJob(::GetCurrentProcess(), nullptr, &in_job) || !in_job) return f;
    f.in_job = true;
    JOBOBJECT_EXTENDED_LIMIT_INFORMATION info{};
    if (!::QueryInformationJobObject(nullptr, JobObjectExtendedLimitInformation, &info, sizeof info,
                                     nullptr)) {
        f.why = "QueryInformationJobObject: " + win32::error_text(::GetLastError());
        return f;
    }
    const DWORD flags = info.BasicLimitInformation.LimitFlags;
    if (flags & JOB_OBJECT_LIMIT_PROCESS_MEMORY) f.process_limit = info.ProcessMemoryLimit;
    if (flags & JOB_OBJECT_LIMIT_JOB_MEMORY) f.job_limit = info.JobMemoryLimit;
    f.process_commit = private_commit(::GetCurrentProcess()).value_or(0);
    if (f.job_limit) f.job_commit = job_commit();
    return f;
}

}  // namespace

MemorySources memory_sources() { return {}; }

MemoryLimits read_memory_limits(const MemorySources& sources) {
    MemoryLimits out;
    MEMORYSTATUSEX memory{};
    memory.dwLength = sizeof memory;
    if (::GlobalMemoryStatusEx(&memory)) {
        MemoryLimit host;
        host.kind = limit_kind::host;
        host.where = "host";
        host.file = "ullTotalPhys";
        host.limit = memory.ullTotalPhys;
        host.used = memory.ullTotalPhys > memory.ullAvailPhys ? memory.ullTotalPhys - memory.ullAvailPhys : 0;
        out.limits.push_back(std::move(host));
    } else {
        out.notes.push_back("host: GlobalMemoryStatusEx: " + win32::error_text(::GetLastError()));
    }
    add_job_limits(job_facts(), out);
    if (!sources.outer_jobs.empty()) {
        add_outer_job_limits(sources.outer_jobs, private_commit(::GetCurrentProcess()).value_or(0), out);
    }
    return out;
}

std::optional<OomCounts> read_oom_counts(const std::string&) { return std::nullopt; }

bool volunteer_for_oom_killer(std::string*) { return true; }  // no OOM killer: an allocation fails

}  // namespace pinbench
