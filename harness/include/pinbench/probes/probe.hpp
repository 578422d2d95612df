// A source of memory readings. Each probe names its source and the granule it states;
// the null control measures the granule and noise it really has on this machine.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "pinbench/probes/snapshot.hpp"

namespace pinbench {

class Probe {
public:
    virtual ~Probe() = default;
    // Short name used as the key prefix ("cuda", "nvml", "dxgi", "pdh").
    virtual std::string name() const = 0;
    // One line: which API, in which process, for which device.
    virtual std::string source() const = 0;
    // Adds this probe's readings (available or not, with reason) to `out`.
    virtual void read(Readings& out) = 0;
};

// Every probe reachable in this process for one CUDA device. Reading them all is one snapshot.
class ProbeSet {
public:
    void add(std::unique_ptr<Probe> probe) { probes_.push_back(std::move(probe)); }
    Readings read_all() const {
        Readings r;
        for (const auto& p : probes_) p->read(r);
        return r;
    }
    const std::vector<std::unique_ptr<Probe>>& probes() const { return probes_; }

private:
    std::vector<std::unique_ptr<Probe>> probes_;
};

}  // namespace pinbench
