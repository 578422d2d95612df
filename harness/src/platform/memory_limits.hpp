// The memory limits that apply to this process, read before `pinbench budget` asks for memory
// (docs/budget.md, "The limits it reads"). One reader per OS: memory_limits_posix.cpp (the host's
// /proc/meminfo, cgroup v2 and v1 walked up from /proc/self/cgroup, RLIMIT_AS and RLIMIT_DATA),
// memory_limits_win32.cpp (GlobalMemoryStatusEx, the job object's memory limits). What a limit
// is called and how near it may be asked for is the budget's (budget/budget_limits.hpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pinbench {

// What going over a limit does, which says how near it may be asked for.
enum class LimitScope {
    // Memory others use too (the host, a cgroup, a job object's total): going over wakes the OOM
    // killer (Linux) or fails another process's allocation, so it is approached only to its room
    // less a margin (--keep-free).
    shared,
    // This process's own address space or commit (RLIMIT_AS, RLIMIT_DATA, a job object's
    // per-process limit): going over fails the call that asks, in this process only.
    process,
};

// The kinds of limit, as the budget document names them (docs/budget.schema.json, limit.kind).
namespace limit_kind {
inline constexpr const char* host = "host";            // MemTotal / MemAvailable, ullTotalPhys / ullAvailPhys
inline constexpr const char* cgroup_v2 = "cgroup_v2";  // memory.max or memory.high, memory.current
inline constexpr const char* cgroup_v1 = "cgroup_v1";  // memory.limit_in_bytes, memory.usage_in_bytes
inline constexpr const char* rlimit_as = "rlimit_as";  // RLIMIT_AS, VmSize
inline constexpr const char* rlimit_data = "rlimit_data";  // RLIMIT_DATA, VmData
inline constexpr const char* job_process = "job_process";  // JOB_OBJECT_LIMIT_PROCESS_MEMORY
inline constexpr const char* job = "job";                  // JOB_OBJECT_LIMIT_JOB_MEMORY
}  // namespace limit_kind

struct MemoryLimit {
    std::string kind;  // limit_kind
    LimitScope scope = LimitScope::shared;
    std::string where;  // the cgroup's path ("/docker/3f2a"), "RLIMIT_AS", "job object"
    std::string file;   // what gave the limit: "memory.max", "memory.high", "MemTotal", ...
    std::uint64_t limit = 0;
    std::uint64_t used = 0;  // counted against it now (a cgroup's less its inactive page cache)
    // The file whose OOM counters watch this limit (cgroup v2 memory.events, v1
    // memory.oom_control); empty where there is none.
    std::string events;
    std::uint64_t room() const { return limit > used ? limit - used : 0; }
};

struct MemoryLimits {
    std::vector<MemoryLimit> limits;  // the host's first, then each group from this process's up
    std::vector<std::string> notes;   // what could not be read and why, one line each
    bool in_job = false;              // Windows: this process is in a job object
};

// Where the POSIX reader looks: "/" in use; a test's fake root folder holding proc/meminfo,
// proc/self/cgroup, proc/self/mountinfo, proc/self/status and the cgroup files under it.
struct MemorySources {
    std::string root = "/";
    // Windows: the job object limits the parent read in the job it runs in. A child runs in
    // pinbench's own job (subprocess_win32.cpp, kill on close), nested in that one, whose
    // limits still bind it but which it cannot query; the parent hands them down, each `used`
    // as the parent read it before this process started (add_outer_job_limits).
    std::vector<MemoryLimit> outer_jobs;
};

// The environment variable that names a fake root for tests (docs/test-double.md).
inline constexpr const char* kMemoryRootVariable = "PINBENCH_MEMORY_ROOT";

// PINBENCH_MEMORY_ROOT when set (a test's fake tree), else the real one.
MemorySources memory_sources();

// Every limit that applies to this process now, read afresh (a few small files, well under a
// millisecond): the caller reads again before each request.
MemoryLimits read_memory_limits(const MemorySources& sources = memory_sources());

// The OOM counters of an events file (`MemoryLimit::events`): cgroup v2 memory.events' `oom` and
// `oom_kill`, v1 memory.oom_control's `oom_kill` (its `oom` is 0). Nothing where unreadable.
struct OomCounts {
    std::uint64_t oom = 0;
    std::uint64_t oom_kill = 0;
};
std::optional<OomCounts> read_oom_counts(const std::string& events_path);

// What a Windows job object reports about memory (memory_limits_win32.cpp gathers it; its
// reading, memory_limits.cpp, is plain C++ so that it is tested on every OS: Wine reports no job
// limits at all, its QueryInformationJobObject being a stub that zeroes the answer).
struct JobFacts {
    bool in_job = false;                         // IsProcessInJob
    std::string why;                             // the query failed: why
    std::optional<std::uint64_t> process_limit;  // JOB_OBJECT_LIMIT_PROCESS_MEMORY's ProcessMemoryLimit
    std::optional<std::uint64_t> job_limit;      // JOB_OBJECT_LIMIT_JOB_MEMORY's JobMemoryLimit
    std::uint64_t process_commit = 0;            // this process's private commit (PrivateUsage)
    std::optional<std::uint64_t> job_commit;     // the job's processes' together; nothing: unreadable
};
// Adds the job's limits (a per-process one, scope process; the job's own, scope shared) and
// notes to `out`.
void add_job_limits(const JobFacts& facts, MemoryLimits& out);

// Adds the limits of the job a parent runs in (MemorySources::outer_jobs) as this process meets
// them now: a per-process limit against `own_commit` (this process's commit), the job's own
// against what the job used when the parent read it plus `own_commit`.
void add_outer_job_limits(const std::vector<MemoryLimit>& outer, std::uint64_t own_commit, MemoryLimits& out);

// Asks the OS to pick this process first if a group's memory runs out (Linux: oom_score_adj
// 1000), so that an OOM kill ends the process that pins, never the job beside it. False with
// `why` where it cannot (Windows has no OOM killer: true).
bool volunteer_for_oom_killer(std::string* why);

}  // namespace pinbench
