// The memory limits of this process (platform/memory_limits.hpp), read from fake roots holding a
// cgroup v2 or v1 tree as Linux lays them out, hostile files among them; RLIMIT_AS set in a child
// process; a job object's facts (the Windows reader's, whose reading is plain C++). The Windows
// reader itself runs under Wine in memory_limits_win32_test.cpp.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "platform/memory_limits.hpp"
#include "temp_dir.hpp"

#ifndef _WIN32
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#endif

namespace pinbench {
namespace {

constexpr std::uint64_t MiB = std::uint64_t{1} << 20, GiB = std::uint64_t{1} << 30;

#ifndef _WIN32
class FakeRoot {
public:
    FakeRoot() {
        put("proc/meminfo", "MemTotal:       67108864 kB\nMemFree:  1 kB\nMemAvailable:   62914560 kB\n");
    }
    void put(const std::string& path, const std::string& text) {
        const std::filesystem::path p = dir_.path() / path;
        std::filesystem::create_directories(p.parent_path());
        std::ofstream(p, std::ios::binary) << text;
    }
    std::string root() const { return dir_.path().string(); }
    MemoryLimits read() const { return read_memory_limits({root()}); }

private:
    testing_support::TempDir dir_{"pinbench_memory_limits"};
};

const MemoryLimit* find(const MemoryLimits& m, const std::string& kind, const std::string& where,
                        const std::string& file) {
    for (const MemoryLimit& l : m.limits) {
        if (l.kind == kind && l.where == where && l.file == file) return &l;
    }
    return nullptr;
}

std::size_t count_kind(const MemoryLimits& m, const std::string& kind) {
    std::size_t n = 0;
    for (const MemoryLimit& l : m.limits) n += l.kind == kind ? 1 : 0;
    return n;
}
#endif

#ifndef _WIN32
// The POSIX reader: from a fake root.
const char* kV2Mount =
    "30 25 0:26 / /sys/fs/cgroup rw,nosuid,nodev shared:4 - cgroup2 cgroup2 rw,nsdelegate\n";

TEST(MemoryLimits, TheHostIsMemTotalLessMemAvailable) {
    FakeRoot fake;
    const MemoryLimits m = fake.read();
    const MemoryLimit* h = find(m, limit_kind::host, "host", "MemTotal");
    ASSERT_NE(h, nullptr);
    EXPECT_EQ(h->limit, 64 * GiB);
    EXPECT_EQ(h->room(), 60 * GiB);
    EXPECT_EQ(h->scope, LimitScope::shared);
}

// A v2 group inside two more: memory.max of the job, memory.high of the slice above (8 GiB), none
// above that; the use less the inactive page cache; innermost first; each with its events file.
TEST(MemoryLimits, CgroupV2IsWalkedUpFromThisProcesssGroup) {
    FakeRoot fake;
    fake.put("proc/self/cgroup", "0::/user.slice/user-1000.slice/job.scope\n");
    fake.put("proc/self/mountinfo", std::string("22 1 8:1 / / rw - ext4 /dev/sda1 rw\n") + kV2Mount);
    const std::string base = "sys/fs/cgroup/user.slice/user-1000.slice/";
    fake.put(base + "job.scope/memory.max", std::to_string(6 * GiB) + "\n");
    fake.put(base + "job.scope/memory.high", "max\n");
    fake.put(base + "job.scope/memory.current", std::to_string(1 * GiB + 300 * MiB) + "\n");
    fake.put(base + "job.scope/memory.stat",
             "anon 100\nfile 400\ninactive_file " + std::to_string(100 * MiB) + "\nactive_file 3\n");
    fake.put(base + "job.scope/memory.events", "low 0\nhigh 0\nmax 2\noom 1\noom_kill 1\noom_group_kill 0\n");
    fake.put(base + "memory.max", "max\n");
    fake.put(base + "memory.high", std::to_string(8 * GiB) + "\n");
    fake.put(base + "memory.current", std::to_string(3 * GiB) + "\n");
    fake.put("sys/fs/cgroup/user.slice/memory.max", "max\n");
    const MemoryLimits m = fake.read();
    EXPECT_TRUE(m.notes.empty()) << m.notes.front();
    const MemoryLimit* job =
        find(m, limit_kind::cgroup_v2, "/user.slice/user-1000.slice/job.scope", "memory.max");
    ASSERT_NE(job, nullptr);
    EXPECT_EQ(job->limit, 6 * GiB);
    EXPECT_EQ(job->used, 1 * GiB + 200 * MiB) << "memory.current less inactive_file";
    EXPECT_EQ(job->scope, LimitScope::shared);
    EXPECT_EQ(job->events, fake.root() + "/" + base + "job.scope/memory.events");
    const MemoryLimit* slice = find(m, limit_kind::cgroup_v2, "/user.slice/user-1000.slice", "memory.high");
    ASSERT_NE(slice, nullptr);
    EXPECT_EQ(slice->limit, 8 * GiB);
    EXPECT_EQ(slice->used, 3 * GiB);
    EXPECT_EQ(count_kind(m, limit_kind::cgroup_v2), 2u) << "'max' is no limit";
    EXPECT_LT(job - m.limits.data(), slice - m.limits.data()) << "innermost first";
    const auto counts = read_oom_counts(job->events);
    ASSERT_TRUE(counts);
    EXPECT_EQ(counts->oom, 1u);
    EXPECT_EQ(counts->oom_kill, 1u);
}

// A container with its own cgroup namespace sees its group as "/": the limit is on the mount's root.
TEST(MemoryLimits, ACgroupNamespacesRootHoldsTheContainersLimit) {
    FakeRoot fake;
    fake.put("proc/self/cgroup", "0::/\n");
    fake.put("proc/self/mountinfo", kV2Mount);
    fake.put("sys/fs/cgroup/memory.max", std::to_string(6 * GiB));
    fake.put("sys/fs/cgroup/memory.current", std::to_string(GiB));
    const MemoryLimits m = fake.read();
    const MemoryLimit* l = find(m, limit_kind::cgroup_v2, "/", "memory.max");
    ASSERT_NE(l, nullptr);
    EXPECT_EQ(l->room(), 5 * GiB);
    EXPECT_EQ(l->events, fake.root() + "/sys/fs/cgroup/memory.events");
}

// v1, as Slurm lays it out: the job's limit, none on the user's (the page counter's largest value)
// and the memory controller mounted beside others; the inactive page cache from total_inactive_file.
TEST(MemoryLimits, CgroupV1IsWalkedUpFromThisProcesssMemoryGroup) {
    FakeRoot fake;
    fake.put("proc/self/cgroup",
             "12:pids:/slurm/uid_1000/job_42\n5:memory:/slurm/uid_1000/job_42/step_0\n"
             "4:cpu,cpuacct:/slurm/uid_1000/job_42\n0::/\n");
    fake.put("proc/self/mountinfo",
             "33 25 0:29 / /sys/fs/cgroup/memory rw,nosuid shared:14 - cgroup cgroup rw,memory\n"
             "34 25 0:30 / /sys/fs/cgroup/cpu,cpuacct rw shared:15 - cgroup cgroup rw,cpu,cpuacct\n");
    const std::string job = "sys/fs/cgroup/memory/slurm/uid_1000/job_42/";
    fake.put(job + "memory.limit_in_bytes", std::to_string(4 * GiB) + "\n");
    fake.put(job + "memory.usage_in_bytes", std::to_string(GiB + 100 * MiB) + "\n");
    fake.put(job + "memory.stat", "cache 1\nrss 2\ntotal_inactive_file " + std::to_string(100 * MiB) + "\n");
    fake.put(job + "memory.oom_control", "oom_kill_disable 0\nunder_oom 0\noom_kill 3\n");
    fake.put(job + "step_0/memory.limit_in_bytes", "9223372036854771712\n");
    fake.put(job + "step_0/memory.usage_in_bytes", "1000\n");
    fake.put("sys/fs/cgroup/memory/slurm/uid_1000/memory.limit_in_bytes", "9223372036854771712\n");
    const MemoryLimits m = fake.read();
    const MemoryLimit* l = find(m, limit_kind::cgroup_v1, "/slurm/uid_1000/job_42", "memory.limit_in_bytes");
    ASSERT_NE(l, nullptr);
    EXPECT_EQ(l->limit, 4 * GiB);
    EXPECT_EQ(l->used, GiB);
    EXPECT_EQ(count_kind(m, limit_kind::cgroup_v1), 1u) << "no limit on the step and the user";
    EXPECT_EQ(count_kind(m, limit_kind::cgroup_v2), 0u) << "the v2 group '/' holds no memory files here";
    const auto counts = read_oom_counts(l->events);
    ASSERT_TRUE(counts);
    EXPECT_EQ(counts->oom, 0u);
    EXPECT_EQ(counts->oom_kill, 3u);
}

// A v1 hierarchy mounted at a group (a container without its own namespace): the groups above
// what is mounted cannot be read and are skipped; a space in the mount point is \040.
TEST(MemoryLimits, GroupsAboveTheMountedFolderAreSkipped) {
    FakeRoot fake;
    fake.put("proc/self/cgroup", "4:memory:/docker/3f2a\n");
    fake.put("proc/self/mountinfo",
             "40 30 0:29 /docker/3f2a /sys/fs/cgroup/my\\040memory ro - cgroup cgroup ro,memory\n");
    fake.put("sys/fs/cgroup/my memory/memory.limit_in_bytes", std::to_string(2 * GiB));
    fake.put("sys/fs/cgroup/my memory/memory.usage_in_bytes", std::to_string(GiB));
    const MemoryLimits m = fake.read();
    const MemoryLimit* l = find(m, limit_kind::cgroup_v1, "/docker/3f2a", "memory.limit_in_bytes");
    ASSERT_NE(l, nullptr);
    EXPECT_EQ(l->room(), GiB);
    EXPECT_EQ(count_kind(m, limit_kind::cgroup_v1), 1u);
}

// A cgroup namespace made without a mount of its own (unshare -C): mountinfo gives the host's
// hierarchy a root of "/..", and this process's group "/" lies outside it. Nothing is invented; a
// note says why no group was read.
TEST(MemoryLimits, AGroupOutsideWhatItsMountShowsIsSaid) {
    FakeRoot fake;
    fake.put("proc/self/cgroup", "0::/\n");
    fake.put("proc/self/mountinfo", "30 25 0:26 /.. /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n");
    fake.put("sys/fs/cgroup/memory.max", std::to_string(GiB));
    const MemoryLimits m = fake.read();
    EXPECT_EQ(count_kind(m, limit_kind::cgroup_v2), 0u);
    ASSERT_FALSE(m.notes.empty());
    EXPECT_EQ(m.notes.front(),
              "cgroup_v2 /: outside what its mount shows (root '/..'): its limits cannot be read");
}

// A container's own cgroup2 mount over the host's (Docker's layout, and `unshare -C -m` with a
// fresh mount): mountinfo lists both at /sys/fs/cgroup, the host's first with root "/..". The
// later one shows the group and is read.
TEST(MemoryLimits, AContainersOwnMountHidesTheHostsOne) {
    FakeRoot fake;
    fake.put("proc/self/cgroup", "0::/\n");
    fake.put("proc/self/mountinfo",
             "30 25 0:26 /.. /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n"
             "31 25 0:40 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n"
             "66 50 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n");
    fake.put("sys/fs/cgroup/memory.max", std::to_string(6 * GiB));
    fake.put("sys/fs/cgroup/memory.current", std::to_string(GiB));
    const MemoryLimits m = fake.read();
    const MemoryLimit* l = find(m, limit_kind::cgroup_v2, "/", "memory.max");
    ASSERT_NE(l, nullptr) << (m.notes.empty() ? "" : m.notes.front());
    EXPECT_EQ(l->room(), 5 * GiB);
}

// Broken or hostile files: a limit that is no number is named and skipped; a use that cannot be
// read makes the limit full (nothing is asked for), never unlimited; no cgroup file at all is a note.
TEST(MemoryLimits, UnreadableFilesNeverWidenALimit) {
    FakeRoot fake;
    fake.put("proc/self/cgroup", "0::/a/b\n");
    fake.put("proc/self/mountinfo", kV2Mount);
    fake.put("sys/fs/cgroup/a/b/memory.max", "12\x01\xff garbage");
    fake.put("sys/fs/cgroup/a/memory.max", std::to_string(3 * GiB));  // no memory.current
    fake.put("sys/fs/cgroup/a/memory.high", "-5");
    const MemoryLimits m = fake.read();
    const MemoryLimit* a = find(m, limit_kind::cgroup_v2, "/a", "memory.max");
    ASSERT_NE(a, nullptr);
    EXPECT_EQ(a->room(), 0u);
    EXPECT_EQ(count_kind(m, limit_kind::cgroup_v2), 1u);
    ASSERT_EQ(m.notes.size(), 3u);
    EXPECT_NE(m.notes[0].find("/a/b: memory.max is not a number"), std::string::npos) << m.notes[0];
    EXPECT_NE(m.notes[1].find("memory.current unreadable"), std::string::npos) << m.notes[1];
    EXPECT_NE(m.notes[2].find("/a: memory.high is not a number"), std::string::npos) << m.notes[2];

    FakeRoot bare;
    bare.put("proc/meminfo", "MemTotal: 5 kB\n");
    const MemoryLimits n = bare.read();
    EXPECT_TRUE(n.limits.empty() || n.limits.front().kind != limit_kind::host);
    ASSERT_GE(n.notes.size(), 2u);
    EXPECT_EQ(n.notes[0], "host: /proc/meminfo has no MemTotal or MemAvailable");
    EXPECT_EQ(n.notes[1], "cgroups: /proc/self/cgroup unreadable");
}

// No mountinfo: the usual /sys/fs/cgroup, under the root, and a note.
TEST(MemoryLimits, WithoutMountinfoTheUsualPlaceIsRead) {
    FakeRoot fake;
    fake.put("proc/self/cgroup", "0::/job\n");
    fake.put("sys/fs/cgroup/job/memory.max", std::to_string(GiB));
    fake.put("sys/fs/cgroup/job/memory.current", "0");
    const MemoryLimits m = fake.read();
    EXPECT_NE(find(m, limit_kind::cgroup_v2, "/job", "memory.max"), nullptr);
    ASSERT_FALSE(m.notes.empty());
    EXPECT_EQ(m.notes.back(), "cgroups: /proc/self/mountinfo unreadable; /sys/fs/cgroup assumed");
}

TEST(MemoryLimits, OomCountsAreReadOrNothing) {
    FakeRoot fake;
    fake.put("events", "oom 4\noom_kill 2\n");
    fake.put("not-events", "something 1\n");
    EXPECT_EQ(read_oom_counts(fake.root() + "/events")->oom_kill, 2u);
    EXPECT_FALSE(read_oom_counts(fake.root() + "/not-events"));
    EXPECT_FALSE(read_oom_counts(fake.root() + "/absent"));
}

#endif

// A job object's facts as limits: its per-process limit is the process's own, its job limit
// shared; a job whose processes' memory could not be summed is taken as full.
TEST(MemoryLimits, AJobObjectsLimitsAreRead) {
    JobFacts f;
    f.in_job = true;
    f.process_limit = 3 * GiB;
    f.job_limit = 8 * GiB;
    f.process_commit = 200 * MiB;
    f.job_commit = 5 * GiB;
    MemoryLimits m;
    add_job_limits(f, m);
    EXPECT_TRUE(m.in_job);
    ASSERT_EQ(m.limits.size(), 2u);
    EXPECT_EQ(m.limits[0].kind, limit_kind::job_process);
    EXPECT_EQ(m.limits[0].scope, LimitScope::process);
    EXPECT_EQ(m.limits[0].room(), 3 * GiB - 200 * MiB);
    EXPECT_EQ(m.limits[1].kind, limit_kind::job);
    EXPECT_EQ(m.limits[1].scope, LimitScope::shared);
    EXPECT_EQ(m.limits[1].room(), 3 * GiB);
    f.job_commit.reset();
    MemoryLimits unsummed;
    add_job_limits(f, unsummed);
    EXPECT_EQ(unsummed.limits[1].room(), 0u);
    EXPECT_EQ(unsummed.notes.size(), 1u);
    JobFacts stub;  // Wine: in a job, no limit reported
    stub.in_job = true;
    MemoryLimits none;
    add_job_limits(stub, none);
    EXPECT_TRUE(none.limits.empty());
    EXPECT_EQ(none.notes,
              std::vector<std::string>{"job object: this process is in one that reports no memory limit"});
    MemoryLimits outside;
    add_job_limits(JobFacts{}, outside);
    EXPECT_FALSE(outside.in_job);
    EXPECT_TRUE(outside.notes.empty());
}

// A child in pinbench's own job object (Windows) meets the limits of the job its parent runs in:
// the per-process one against its own commit, the job's against the job's use then plus its own.
TEST(MemoryLimits, AParentsJobLimitsBindTheChildAsItUsesMemory) {
    MemoryLimit per_process, job, other;
    per_process.kind = limit_kind::job_process;
    per_process.scope = LimitScope::process;
    per_process.limit = 3 * GiB;
    per_process.used = 2 * GiB;  // the parent's own commit: not the child's
    job.kind = limit_kind::job;
    job.limit = 8 * GiB;
    job.used = 5 * GiB;
    other.kind = limit_kind::host;
    other.limit = 64 * GiB;
    MemoryLimits m;
    add_outer_job_limits({per_process, job, other}, 512 * MiB, m);
    ASSERT_EQ(m.limits.size(), 2u) << "only the job's limits are handed down";
    EXPECT_EQ(m.limits[0].room(), 3 * GiB - 512 * MiB);
    EXPECT_EQ(m.limits[0].scope, LimitScope::process);
    EXPECT_EQ(m.limits[1].room(), 3 * GiB - 512 * MiB);
    EXPECT_EQ(m.limits[1].where, "job object (pinbench's parent's)");
}

#ifndef _WIN32
// RLIMIT_AS and RLIMIT_DATA as a child process sets them (setrlimit, as `ulimit -v` and
// `prlimit --as` do): each a limit of the process's own, against VmSize and VmData.
TEST(MemoryLimits, AnAddressSpaceLimitIsReadInTheProcessItBinds) {
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        ::close(fds[0]);
        rlimit as{8 * GiB, 8 * GiB}, data{6 * GiB, 6 * GiB};
        std::string out = "setrlimit failed";
        if (::setrlimit(RLIMIT_AS, &as) == 0 && ::setrlimit(RLIMIT_DATA, &data) == 0) {
            out.clear();
            for (const MemoryLimit& l : read_memory_limits({"/"}).limits) {
                if (l.scope != LimitScope::process) continue;
                out += l.kind + " " + l.file + " " + std::to_string(l.limit) + " " +
                       (l.used > 0 && l.used < l.limit ? "used-ok" : "used-bad") + "\n";
            }
        }
        (void)!::write(fds[1], out.data(), out.size());
        ::_exit(0);
    }
    ::close(fds[1]);
    std::string got;
    char buffer[512];
    for (ssize_t n; (n = ::read(fds[0], buffer, sizeof buffer)) > 0;)
        got.append(buffer, static_cast<std::size_t>(n));
    ::close(fds[0]);
    int status = 0;
    ::waitpid(pid, &status, 0);
    EXPECT_EQ(got, "rlimit_as VmSize " + std::to_string(8 * GiB) + " used-ok\nrlimit_data VmData " +
                       std::to_string(6 * GiB) + " used-ok\n");
}
#endif

}  // namespace
}  // namespace pinbench
