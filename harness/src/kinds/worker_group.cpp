#include "kinds/worker_group.hpp"

#include <cstring>
#include <iostream>
#include <optional>
#include <stdexcept>

#include "kinds/kind_support.hpp"
#include "pinbench/cuda/device.hpp"
#include "pinbench/cuda/transfers.hpp"
#include "pinbench/platform/shared_memory.hpp"
#include "pinbench/probes/platform_probes.hpp"
#include "run/child_launcher.hpp"

namespace pinbench::kinds {

WorkerGroup::WorkerGroup(int n, const WorkerSpec& spec, std::chrono::milliseconds step_timeout)
    : timeout_(step_timeout) {
    std::vector<std::string> argv{current_executable_path(), "__worker", "--api",
                                  to_string(spec.api),       "--bytes",  std::to_string(spec.bytes)};
    if (!spec.cuda) argv.emplace_back("--no-cuda");
    argv.emplace_back("--parent");  // a worker dies with the child that started it
    argv.push_back(std::to_string(current_process_id()));
    if (!spec.shared_name.empty()) {
        argv.emplace_back("--shared");
        argv.push_back(spec.shared_name);
    }
    // Started together, so contexts are created in parallel as a DataLoader's workers would.
    for (int i = 0; i < n; ++i) workers_.push_back(std::make_unique<Subprocess>(argv, child_environment()));
    step("", "ready");
}

WorkerGroup::~WorkerGroup() = default;  // Subprocess kills and reaps what still runs

void WorkerGroup::prepare_all() { step("prepare", "prepared"); }

void WorkerGroup::pin_all() { step("pin", "pinned"); }

void WorkerGroup::release_all() {
    step("release", "released");
    for (auto& w : workers_) (void)w->wait(timeout_);
    workers_.clear();
}

void WorkerGroup::step(const std::string& command, const std::string& answer) {
    if (!command.empty()) {
        for (auto& w : workers_) w->write_line(command);
    }
    for (std::size_t i = 0; i < workers_.size(); ++i) {
        const std::optional<std::string> line = workers_[i]->read_line(timeout_);
        if (!line || *line != answer) {
            throw std::runtime_error("worker " + std::to_string(i) + " (pid " +
                                     std::to_string(workers_[i]->pid()) + ") did not answer '" + answer +
                                     "'" + (line ? ": " + *line : " in time"));
        }
    }
}

namespace {

// What one worker holds between "pin" and "release".
struct Held {
    std::unique_ptr<HostBuffer> own;
    std::optional<SharedMemory> shared;
    std::unique_ptr<HostRegistration> registration;
};

bool expect_line(const char* want) {
    std::string line;
    return static_cast<bool>(std::getline(std::cin, line)) && line == want;
}

}  // namespace

int worker_main(const WorkerSpec& spec) {
    try {
        std::unique_ptr<DeviceContext> context;
        std::unique_ptr<GpuUseWorkspace> workspace;
        std::vector<std::byte> produced;
        if (spec.cuda) {
            // The context alone: the GPU-use workspace comes with "prepare", so that the
            // context's own cost can be read apart from it.
            context = std::make_unique<DeviceContext>(0);
        } else {
            // A producer: makes its batches in ordinary memory, as a DataLoader worker does.
            produced.assign(spec.bytes, std::byte{0x42});
        }
        std::cout << "ready" << std::endl;
        Held held;
        std::string line;
        if (!std::getline(std::cin, line)) throw std::runtime_error("no command");
        if (spec.cuda && line == "prepare") {
            workspace = std::make_unique<GpuUseWorkspace>();
            context->synchronize();
            std::cout << "prepared" << std::endl;
            if (!std::getline(std::cin, line)) throw std::runtime_error("no command");
        }
        if (line != (spec.cuda ? "pin" : "release")) {
            throw std::runtime_error("unexpected command '" + line + "'");
        }
        if (spec.cuda) {
            if (!workspace) workspace = std::make_unique<GpuUseWorkspace>();
            if (!spec.shared_name.empty()) {
                held.shared.emplace(SharedMemory::open(spec.shared_name, spec.bytes));
                held.registration = std::make_unique<HostRegistration>(held.shared->data(),
                                                                       held.shared->size(), spec.api.flags);
                (void)timed_h2d_copy_ms(held.shared->data(), held.shared->size(), *workspace);
            } else {
                held.own = allocate_host_buffer(spec.api, spec.bytes);
                first_gpu_use(*held.own, *workspace);
            }
            context->synchronize();
            std::cout << "pinned" << std::endl;
            if (!expect_line("release")) throw std::runtime_error("unexpected command");
        }
        held.registration.reset();  // unregister before the view goes away
        held.shared.reset();
        held.own.reset();
        if (context) context->synchronize();
        std::cout << "released" << std::endl;
        return 0;
    } catch (const std::exception& e) {
        std::cout << "error: " << e.what() << std::endl;
        return 1;
    }
}

std::vector<std::uint32_t> WorkerGroup::pids() const {
    std::vector<std::uint32_t> out;
    for (const auto& w : workers_) out.push_back(static_cast<std::uint32_t>(w->pid()));
    return out;
}

}  // namespace pinbench::kinds
