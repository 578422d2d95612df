// The directory claim on POSIX: flock(LOCK_EX) on a file opened O_CLOEXEC, so children do not
// inherit the lock and it ends with this process. flock holds across pid namespaces that share
// the file system, where kill(pid, 0) cannot see the owner.
#include "pinbench/directory_claim.hpp"

#include <fcntl.h>
#include <sys/file.h>

#include <cerrno>

#include "pinbench/errors.hpp"
#include "platform/fd_posix.hpp"

namespace pinbench {

struct DirectoryClaim::Held {
    posix::UniqueFd fd;
};

DirectoryClaim::DirectoryClaim(const std::string& path) : held_(std::make_unique<Held>()) {
    held_->fd.reset(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600));
    if (!held_->fd.valid()) {
        throw SystemError("cannot create '" + path + "': " + posix::errno_text(errno));
    }
    if (::flock(held_->fd.get(), LOCK_EX | LOCK_NB) != 0) {
        throw SystemError("cannot lock '" + path + "': " + posix::errno_text(errno));
    }
}

DirectoryClaim::~DirectoryClaim() = default;
DirectoryClaim::DirectoryClaim(DirectoryClaim&&) noexcept = default;
DirectoryClaim& DirectoryClaim::operator=(DirectoryClaim&&) noexcept = default;

ClaimState claim_state(const std::string& path) {
    const posix::UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (!fd.valid()) {
        // Another user's directory reads as held: not ours to judge or remove.
        return errno == ENOENT ? ClaimState::absent : ClaimState::held;
    }
    if (::flock(fd.get(), LOCK_EX | LOCK_NB) == 0) return ClaimState::abandoned;  // fd's close unlocks
    return ClaimState::held;
}

}  // namespace pinbench
