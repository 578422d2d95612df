// The limits `pinbench budget` sizes its requests by (budget/budget_limits.hpp): their names, the
// margin each keeps, and the one rule of every request, stated over generated limits: a request
// never exceeds any limit's room less its margin, and the limit that bounds it is named.
#include <gtest/gtest.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "budget/budget_child.hpp"
#include "budget/budget_limits.hpp"

namespace pinbench {
namespace {

constexpr std::uint64_t MiB = std::uint64_t{1} << 20, GiB = std::uint64_t{1} << 30;

MemoryLimit group(const std::string& where, std::uint64_t limit, std::uint64_t used,
                  const char* file = "memory.max", const char* kind = limit_kind::cgroup_v2) {
    MemoryLimit l;
    l.kind = kind;
    l.scope = LimitScope::shared;
    l.where = where;
    l.file = file;
    l.limit = limit;
    l.used = used;
    l.events = "/sys/fs/cgroup" + where + "/memory.events";
    return l;
}

MemoryLimit host(std::uint64_t total, std::uint64_t available) {
    MemoryLimit l;
    l.kind = limit_kind::host;
    l.where = "host";
    l.file = "MemTotal";
    l.limit = total;
    l.used = total - available;
    return l;
}

MemoryLimit address_space(std::uint64_t limit, std::uint64_t mapped) {
    MemoryLimit l;
    l.kind = limit_kind::rlimit_as;
    l.scope = LimitScope::process;
    l.where = "RLIMIT_AS";
    l.file = "VmSize";
    l.limit = limit;
    l.used = mapped;
    return l;
}

TEST(BudgetLimits, AGroupIsNamedByWhoMadeIt) {
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"/", "the container's limit"},  // a cgroup namespace's root: a container
        {"/system.slice/docker-3f2a.scope", "the container's limit"},
        {"/docker/3f2a", "the container's limit"},
        {"/machine.slice/libpod-9c1e.scope/container", "the container's limit"},
        {"/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod12ab.slice/cri-containerd-77.scope",
         "the container's limit"},
        {"/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod12ab.slice",
         "the Kubernetes pod's limit"},
        {"/kubepods/burstable/pod12ab", "the Kubernetes pod's limit"},
        {"/kubepods/burstable/pod12ab/77ee", "the container's limit"},
        {"/slurm/uid_1000/job_42", "the Slurm job's limit"},
        {"/system.slice/slurmstepd.scope/job_42/step_0", "the Slurm job's limit"},
        {"/system.slice/inference.service", "the systemd unit's limit (inference.service)"},
        {"/user.slice/user-1000.slice", "the systemd unit's limit (user-1000.slice)"},
        {"/batch/ours", "the cgroup's limit"},
    };
    for (const auto& [where, name] : cases) {
        EXPECT_EQ(limit_name(group(where, GiB, 0), false), name) << where;
        EXPECT_EQ(limit_name(group(where, GiB, 0, "memory.limit_in_bytes", limit_kind::cgroup_v1), false),
                  name)
            << where;
    }
    EXPECT_EQ(limit_name(host(64 * GiB, 60 * GiB), false), "the host's memory");
    EXPECT_EQ(limit_name(host(64 * GiB, 60 * GiB), true), "the WSL2 VM's memory");
    EXPECT_EQ(limit_name(address_space(GiB, 0), false), "the address-space limit");
}

TEST(BudgetLimits, TheWordsGiveTheLimitWhatIsInUseAndWhereItWasRead) {
    EXPECT_EQ(limit_words(group("/", 6 * GiB, 1 * GiB + 256 * MiB), false),
              "the container's limit, 6 GiB, 1.25 GiB in use (cgroup v2 /, memory.max)");
    EXPECT_EQ(
        limit_words(group("/slurm/uid_1/job_7", 4 * GiB, GiB, "memory.limit_in_bytes", limit_kind::cgroup_v1),
                    false),
        "the Slurm job's limit, 4 GiB, 1 GiB in use (cgroup v1 /slurm/uid_1/job_7, memory.limit_in_bytes)");
    EXPECT_EQ(limit_words(address_space(12 * GiB, 3 * GiB), false),
              "the address-space limit, 12 GiB, 3 GiB mapped (RLIMIT_AS, VmSize)");
    EXPECT_EQ(limit_words(host(64 * GiB, 60 * GiB), true),
              "the WSL2 VM's memory, 64 GiB, 4 GiB in use (MemTotal less MemAvailable)");
}

// 6 GiB container, 1224 MiB in use, as much kept free: 3696 MiB may be asked, less than the host's.
TEST(BudgetLimits, TheSmallestRoomLessItsMarginBoundsEveryRequest) {
    const std::vector<MemoryLimit> limits = {host(128 * GiB, 120 * GiB),
                                             group("/", 6 * GiB, 1 * GiB + 200 * MiB)};
    const Allowance a = allowance(limits, 1 * GiB + 200 * MiB);
    ASSERT_TRUE(a.bytes);
    EXPECT_EQ(*a.bytes, 3 * GiB + 624 * MiB);
    EXPECT_EQ(a.by, 1u);
    EXPECT_STREQ(stop_for(limits[*a.by]), budget_stop::memory_limit);
    EXPECT_STREQ(stop_for(limits[0]), budget_stop::host_available);
    // The process's own address space keeps only the slack, not --keep-free.
    const std::vector<MemoryLimit> with_as = {host(128 * GiB, 120 * GiB), address_space(2 * GiB, 1 * GiB)};
    const Allowance b = allowance(with_as, 12 * GiB);
    EXPECT_EQ(*b.bytes, 1 * GiB - kProcessLimitSlack);
    EXPECT_EQ(b.by, 1u);
    EXPECT_STREQ(stop_for(with_as[1]), budget_stop::address_space);
    // Over its limit already: nothing may be asked.
    EXPECT_EQ(*allowance({group("/x", GiB, 2 * GiB)}, 0).bytes, 0u);
    EXPECT_FALSE(allowance({}, GiB).bytes) << "no limit read: the cap alone bounds";
    EXPECT_EQ(smallest_shared_room(with_as), 120 * GiB) << "the address space does not size --keep-free";
    EXPECT_EQ(smallest_shared_room(limits), 4 * GiB + 824 * MiB);
}

// The rule over generated limits: the allowance is no more than any limit's room less its margin,
// and equals the one it names.
TEST(BudgetLimits, NoRequestExceedsAnyLimitsRoomLessItsMargin) {
    std::mt19937_64 random(55);
    std::uniform_int_distribution<std::uint64_t> size(0, 256 * GiB), count(1, 6), kind(0, 2);
    for (int trial = 0; trial < 2000; ++trial) {
        std::vector<MemoryLimit> limits;
        const std::uint64_t n = count(random);
        for (std::uint64_t i = 0; i < n; ++i) {
            const std::uint64_t limit = size(random), used = size(random);
            switch (kind(random)) {
                case 0:
                    limits.push_back(group("/g" + std::to_string(i), limit, used));
                    break;
                case 1:
                    limits.push_back(address_space(limit, used));
                    break;
                default:
                    limits.push_back(host(limit + used, limit));
                    break;
            }
        }
        const std::uint64_t keep_free = size(random) / 16;
        const Allowance a = allowance(limits, keep_free);
        ASSERT_TRUE(a.bytes && a.by);
        for (const MemoryLimit& l : limits) {
            const std::uint64_t margin = margin_of(l, keep_free);
            EXPECT_LE(*a.bytes, l.room() > margin ? l.room() - margin : 0) << l.where;
        }
        const MemoryLimit& by = limits[*a.by];
        const std::uint64_t margin = margin_of(by, keep_free);
        EXPECT_EQ(*a.bytes, by.room() > margin ? by.room() - margin : 0);
    }
}

// A group's path is any bytes: the words and the document's record are one line of valid UTF-8
// (the JSON writer throws on anything else), the control byte and the invalid one escaped.
TEST(BudgetLimits, AHostileGroupPathIsEscapedInTheWordsAndTheDocument) {
    MemoryLimit l = group(std::string("/job\x01\xff\n"), GiB, 0);
    const std::string words = limit_words(l, false);
    EXPECT_EQ(words.find('\x01'), std::string::npos) << words;
    EXPECT_EQ(words.find('\n'), std::string::npos) << words;
    EXPECT_NO_THROW((void)limit_json(l, 0, false).dump()) << "valid UTF-8 everywhere";
    EXPECT_EQ(limit_json(l, 0, false)["where"].get<std::string>().find('\xff'), std::string::npos);
}

// The parent hands a child the job limits it read (a child in pinbench's own job cannot query
// them); only those, and only well-formed ones, come back.
TEST(BudgetLimits, AJobsLimitsTravelToTheChildInItsRequest) {
    MemoryLimit job;
    job.kind = limit_kind::job;
    job.file = "JobMemoryLimit";
    job.limit = 8 * GiB;
    job.used = 5 * GiB;
    const nlohmann::json sent = outer_jobs_json({host(64 * GiB, 60 * GiB), job, address_space(GiB, 0)});
    ASSERT_EQ(sent.size(), 1u);
    const std::vector<MemoryLimit> back = outer_jobs_of(sent);
    ASSERT_EQ(back.size(), 1u);
    EXPECT_EQ(back[0].kind, limit_kind::job);
    EXPECT_EQ(back[0].scope, LimitScope::shared);
    EXPECT_EQ(back[0].room(), 3 * GiB);
    EXPECT_TRUE(outer_jobs_of(nlohmann::json::parse(R"([{"kind": "job", "limit": -1, "used": 0},
        {"kind": "host", "limit": 1, "used": 0}, 7, {"kind": "job_process", "limit": 5}])"))
                    .empty());
    EXPECT_TRUE(outer_jobs_of(nlohmann::json("x")).empty());
}

TEST(BudgetLimits, CudaThatCannotStartUnderAnAddressSpaceLimitIsSaidSo) {
    const std::string oom = "cuInit failed: CUDA_ERROR_OUT_OF_MEMORY (out of memory)";
    const auto blocked =
        cuda_start_blocked_by({host(64 * GiB, 60 * GiB), address_space(12 * GiB, 40 * MiB)}, oom);
    ASSERT_TRUE(blocked);
    EXPECT_EQ(
        *blocked,
        "CUDA could not start under the address-space limit, 12 GiB, 40 MiB mapped (RLIMIT_AS, VmSize): " +
            oom + "; raise the limit (ulimit -v, prlimit --as) or run without it");
    EXPECT_EQ(blocked->rfind(kCudaBlockedWords, 0), 0u);
    EXPECT_FALSE(cuda_start_blocked_by({host(64 * GiB, 60 * GiB)}, oom))
        << "no limit: the driver's words stand";
    EXPECT_FALSE(cuda_start_blocked_by({address_space(12 * GiB, 0)}, "cuInit failed: CUDA_ERROR_NO_DEVICE"));
}

// The line a child writes before each request, read back from its output's last one.
TEST(BudgetLimits, TheLastRequestIsReadBackFromTheChildsOutput) {
    const std::string output =
        asking_line({41, 0, 8 * MiB}) + "\nnoise\n" + asking_line({41, 72 * MiB, 8 * MiB}) + "\n";
    const auto a = last_asking(output);
    ASSERT_TRUE(a);
    EXPECT_EQ(a->pid, 41u);
    EXPECT_EQ(a->holding, 72 * MiB);
    EXPECT_EQ(a->asking, 8 * MiB);
    EXPECT_FALSE(last_asking("no such line"));
    EXPECT_FALSE(last_asking("pinbench budget child 12: holding x B, asking for 3 B"));
    EXPECT_FALSE(last_asking("pinbench budget child 12: holding 5 B, asking"));
}

}  // namespace
}  // namespace pinbench
