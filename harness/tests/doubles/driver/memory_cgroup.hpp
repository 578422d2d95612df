// The double's scripted memory cgroup (docs/test-double.md, `memory_cgroup`): a folder of a test's
// fake cgroup tree (or several, comma-separated: a group and those above it, each charged, as
// the kernel charges a group's ancestors too) (v2: memory.max, memory.current, memory.events; v1:
// memory.limit_in_bytes, memory.usage_in_bytes, memory.oom_control) that every pin of every process is
// charged to, as the kernel charges the driver's pins to the group of the process that pins. A charge above
// the group's limit is the OOM killer's: the events count it (oom, oom_kill) and the process dies of SIGKILL,
// as the H200 saw (docs/budget.md). One process pins at a time in the tests that use it; each file is
// replaced whole (rename), so a reader never sees half of one.
#pragma once

#include <cstdint>
#include <string>

namespace pinbench::driver_double {

// Adds `bytes` to each group's usage; above a limit, counts the OOM kill, gives the group back
// what this process holds (`process_holds`: the kernel frees a killed process's memory) and kills it.
void cgroup_charge(const std::string& folder, std::uint64_t bytes, std::uint64_t process_holds);
// Takes `bytes` off the group's usage (a pin freed, or its process gone).
void cgroup_uncharge(const std::string& folder, std::uint64_t bytes);
// Adds `bytes` to the group's usage, never taken back: a neighbour of the same group that grows.
void cgroup_grow(const std::string& folder, std::uint64_t bytes);

}  // namespace pinbench::driver_double
