// The shared device state's file on POSIX (state_mapping.hpp): mmap'd MAP_SHARED, locked with
// flock.
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include "state_mapping.hpp"

namespace pinbench::driver_double {
namespace {

[[noreturn]] void fail(const std::string& what) {
    std::fprintf(stderr, "pinbench driver double: %s: %s\n", what.c_str(), std::strerror(errno));
    std::abort();
}

}  // namespace

struct StateMapping::Os {
    int fd = -1;  // -1: this process's own memory
    ~Os() {
        if (fd >= 0) ::close(fd);
    }
};

StateMapping::StateMapping(const std::string& path) : os_(std::make_unique<Os>()) {
    void* mapped = nullptr;
    if (path.empty()) {
        mapped = ::mmap(nullptr, sizeof(Layout), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    } else {
        os_->fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        if (os_->fd < 0) fail("cannot open the state file " + path);
        lock();
        if (::lseek(os_->fd, 0, SEEK_END) < static_cast<off_t>(sizeof(Layout)) &&
            ::ftruncate(os_->fd, sizeof(Layout)) != 0) {
            fail("ftruncate " + path);
        }
        mapped = ::mmap(nullptr, sizeof(Layout), PROT_READ | PROT_WRITE, MAP_SHARED, os_->fd, 0);
        unlock();
    }
    if (mapped == MAP_FAILED) fail("mmap of the device state");
    layout_ = static_cast<Layout*>(mapped);
}

StateMapping::~StateMapping() { ::munmap(layout_, sizeof(Layout)); }

void StateMapping::lock() {
    if (os_->fd >= 0 && ::flock(os_->fd, LOCK_EX) != 0) fail("flock");
}

void StateMapping::unlock() {
    if (os_->fd >= 0) ::flock(os_->fd, LOCK_UN);
}

std::int64_t current_pid() { return ::getpid(); }

bool process_dead(std::int64_t pid) {
    if (::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) return true;
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string text;
    std::getline(stat, text);
    const auto paren = text.rfind(')');
    return paren != std::string::npos && paren + 2 < text.size() && text[paren + 2] == 'Z';  // a zombie
}

}  // namespace pinbench::driver_double
