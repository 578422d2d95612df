// The directory claim on POSIX: flock(LOCK_EX) on a file opened O_CLOEXEC, so children do not
// inherit the lock and it ends with this process. flock holds across pid namespaces that share
// the file system, where kill(pid, 0) cannot see the owner.
#include "pinbench/platform/directory_claim.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

#include "pinbench/vocabulary/errors.hpp"
#include "platform/fd_posix.hpp"

namespace pinbench {

struct DirectoryClaim::Held {
    posix::UniqueFd fd;
};

// The claim appears already locked: created and locked under another name, then renamed into
// place (the lock belongs to the open file, which the rename keeps). Created and then locked
// under its own name, it would read as abandoned in between, and a pinbench starting beside
// this one would remove the new directory (and, holding the lock while it looks, make this
// flock fail). Killed before the rename, the directory has no claim: an unclaimed one, removed
// after a day.
DirectoryClaim::DirectoryClaim(const std::string& path) : held_(std::make_unique<Held>()) {
    const std::string setup = path + ".new";
    held_->fd.reset(::open(setup.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600));
    if (!held_->fd.valid()) {
        throw SystemError("cannot create '" + setup + "': " + posix::errno_text(errno));
    }
    if (::flock(held_->fd.get(), LOCK_EX | LOCK_NB) != 0) {
        const int error = errno;
        ::unlink(setup.c_str());
        throw SystemError("cannot lock '" + setup + "': " + posix::errno_text(error));
    }
    if (::rename(setup.c_str(), path.c_str()) != 0) {
        const int error = errno;
        ::unlink(setup.c_str());
        throw SystemError("cannot rename '" + setup + "' to '" + path + "': " + posix::errno_text(error));
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
