// The store lock's OS calls on POSIX: O_CREAT|O_EXCL, link() for a rename that never replaces,
// kill(pid, 0) for liveness, gethostname().
#include "store/store_lock.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <climits>

#include "pinbench/vocabulary/errors.hpp"
#include "platform/fd_posix.hpp"

namespace pinbench::store_detail {

using posix::errno_text;
using posix::UniqueFd;

bool create_exclusive(const std::string& path, const std::string& contents) {
    UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
    if (!fd.valid()) {
        const int error = errno;
        if (error == EEXIST) return false;
        // A store that may not be written (read-only, another owner's): refused before anything
        // was written, bad input (README.md, "Exit codes"), not a write that failed midway.
        if (error == EACCES || error == EPERM || error == EROFS) {
            throw InputError("cannot write the store: cannot create lock file '" + path +
                             "': " + errno_text(error) + "; nothing was written");
        }
        throw SystemError("cannot create lock file '" + path + "': " + errno_text(error));
    }
    auto fail = [&](const char* step) {
        const int error = errno;
        fd.reset();
        ::unlink(path.c_str());  // an empty lock would block others until it ages out
        throw SystemError("cannot write lock file '" + path + "': " + step + ": " + errno_text(error));
    };
    std::size_t written = 0;
    while (written < contents.size()) {
        const ssize_t n = ::write(fd.get(), contents.data() + written, contents.size() - written);
        if (n < 0) {
            if (errno == EINTR) continue;
            fail("write");
        }
        written += static_cast<std::size_t>(n);
    }
    if (::fsync(fd.get()) != 0 && errno != EINVAL) fail("fsync");
    if (fd.close() != 0) fail("close");
    return true;
}

bool rename_no_replace(const std::string& from, const std::string& to) {
    // link() fails with EEXIST instead of replacing; then drop the old name.
    if (::link(from.c_str(), to.c_str()) != 0) return false;
    ::unlink(from.c_str());
    return true;
}

Liveness process_liveness(std::uint32_t pid) {
    // pid 0 and negative values would address process groups.
    if (pid == 0 || pid > static_cast<std::uint32_t>(INT_MAX)) return Liveness::unknown;
    if (::kill(static_cast<pid_t>(pid), 0) == 0) return Liveness::alive;
    if (errno == ESRCH) return Liveness::gone;
    if (errno == EPERM) return Liveness::alive;  // exists, owned by another user
    return Liveness::unknown;
}

std::string host_name() {
    char name[256] = {};
    if (::gethostname(name, sizeof name - 1) != 0) return {};
    return name;
}

}  // namespace pinbench::store_detail
