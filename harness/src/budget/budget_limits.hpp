// The memory limits `pinbench budget` sizes every request by (docs/budget.md, "The limits it
// reads"): what each is called on the screen and in the document, how near it may be asked for,
// and which one bounds a request. Pure over what platform/memory_limits.hpp read, so the CPU
// tests pin each rule with hand-computed values; the child reads the limits again before each
// request and asks for no more than allowance() gives.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "platform/memory_limits.hpp"

namespace pinbench {

// What a process-scoped limit (the process's own address space or commit) is approached to: the
// driver maps a little beside each pin, and going over such a limit only fails the call.
inline constexpr std::uint64_t kProcessLimitSlack = std::uint64_t{64} << 20;

// Who sets a limit, in the words a user knows it by: "the container's limit", "the Kubernetes
// pod's limit", "the Slurm job's limit", "the systemd unit's limit (x.service)", "the cgroup's
// limit", "the host's memory" ("the WSL2 VM's memory" under WSL), "the address-space limit", "the
// data-segment limit", "the job object's limit", "the job object's per-process limit".
std::string limit_name(const MemoryLimit& limit, bool wsl);

// The name with the figures and where they were read: "the container's limit, 6 GiB, 1.2 GiB in
// use (cgroup v2 /docker/3f2a, memory.max)".
std::string limit_words(const MemoryLimit& limit, bool wsl);

// The document's record of one limit (docs/budget.schema.json, $defs.limit).
nlohmann::json limit_json(const MemoryLimit& limit, std::uint64_t keep_free, bool wsl);

// How far below a limit the search stays: `keep_free` below a shared one (the host, a cgroup, a
// job), kProcessLimitSlack below the process's own.
std::uint64_t margin_of(const MemoryLimit& limit, std::uint64_t keep_free);

// The most this process may ask for now beyond what it holds: every limit's room less its
// margin, the smallest; `by` is that limit's index. Nothing when no limit was read (the cap
// alone bounds the search then).
struct Allowance {
    std::optional<std::uint64_t> bytes;
    std::optional<std::size_t> by;
};
Allowance allowance(const std::vector<MemoryLimit>& limits, std::uint64_t keep_free);

// The search's stop when `limit` bounded it (budget_child.hpp's budget_stop): host_available for
// the host's memory, memory_limit for a cgroup or a job, address_space for the process's own.
const char* stop_for(const MemoryLimit& limit);

// The smallest room among the shared limits, which sizes the default --keep-free
// (budget_rule.hpp's default_keep_free); nothing when none was read.
std::optional<std::uint64_t> smallest_shared_room(const std::vector<MemoryLimit>& limits);

// The job object limits among `limits` as a child's request carries them (platform/
// memory_limits.hpp, MemorySources::outer_jobs: a child in pinbench's own job cannot query the
// job its parent runs in), and read back in the child; a malformed entry is left out.
nlohmann::json outer_jobs_json(const std::vector<MemoryLimit>& limits);
std::vector<MemoryLimit> outer_jobs_of(const nlohmann::json& request_value);

// Why CUDA did not start, in the words of the limit that stopped it: where cuInit ran out of
// memory (`why` names CUDA_ERROR_OUT_OF_MEMORY) under an address-space or data limit of this
// process, "CUDA could not start under the address-space limit, 12 GiB, ... : <why>"; nothing
// otherwise (no driver, no device: the caller's words stand).
inline constexpr const char* kCudaBlockedWords = "CUDA could not start under ";
std::optional<std::string> cuda_start_blocked_by(const std::vector<MemoryLimit>& limits,
                                                 const std::string& why);

}  // namespace pinbench
