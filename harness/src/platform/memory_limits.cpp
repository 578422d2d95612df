// What both readers of platform/memory_limits.hpp share: a job object's facts as limits.
#include "platform/memory_limits.hpp"

namespace pinbench {

void add_job_limits(const JobFacts& facts, MemoryLimits& out) {
    out.in_job = facts.in_job;
    if (!facts.in_job) return;
    if (!facts.why.empty()) {
        out.notes.push_back("job object: its limits could not be read: " + facts.why);
        return;
    }
    if (!facts.process_limit && !facts.job_limit) {
        out.notes.push_back("job object: this process is in one that reports no memory limit");
        return;
    }
    if (facts.process_limit) {
        MemoryLimit l;
        l.kind = limit_kind::job_process;
        l.scope = LimitScope::process;
        l.where = "job object";
        l.file = "ProcessMemoryLimit";
        l.limit = *facts.process_limit;
        l.used = facts.process_commit;
        out.limits.push_back(std::move(l));
    }
    if (facts.job_limit) {
        MemoryLimit l;
        l.kind = limit_kind::job;
        l.scope = LimitScope::shared;
        l.where = "job object";
        l.file = "JobMemoryLimit";
        l.limit = *facts.job_limit;
        if (facts.job_commit) {
            l.used = *facts.job_commit;
        } else {
            // Its processes' commit could not be summed: as if it were full, so nothing is asked.
            out.notes.push_back(
                "job object: its processes' memory could not be read; its limit is taken as full");
            l.used = l.limit;
        }
        out.limits.push_back(std::move(l));
    }
}

void add_outer_job_limits(const std::vector<MemoryLimit>& outer, std::uint64_t own_commit,
                          MemoryLimits& out) {
    for (MemoryLimit l : outer) {
        if (l.kind == limit_kind::job_process) {
            l.used = own_commit;
        } else if (l.kind == limit_kind::job) {
            l.used += own_commit;
        } else {
            continue;  // only a job's limits are handed down: the rest a child reads itself
        }
        l.where = "job object (pinbench's parent's)";
        out.limits.push_back(std::move(l));
    }
}

}  // namespace pinbench
