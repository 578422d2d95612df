// HeldFile on POSIX: flock(LOCK_EX | LOCK_NB) on a file opened O_CLOEXEC (children do not keep
// it). The holder unlinks the file before it closes it; a taker that locked a file unlinked
// meanwhile (its inode no longer the path's) lets go and tries again, so two takers never both
// hold one path.
#include "platform/held_file.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "pinbench/vocabulary/errors.hpp"
#include "platform/fd_posix.hpp"

namespace pinbench {

struct HeldFile::Handle {
    posix::UniqueFd fd;
};

namespace {

std::string read_all(int fd) {
    std::string text;
    char buffer[512];
    for (off_t at = 0;;) {
        const ssize_t n = ::pread(fd, buffer, sizeof buffer, at);
        if (n <= 0 || text.size() > 4096) return text;
        text.append(buffer, static_cast<std::size_t>(n));
        at += n;
    }
}

}  // namespace

HeldFile::HeldFile(std::string path, std::unique_ptr<Handle> handle)
    : path_(std::move(path)), handle_(std::move(handle)) {}

std::optional<HeldFile> HeldFile::take(const std::string& path, const std::string& contents,
                                       std::string& holder) {
    for (int attempt = 0; attempt < 100; ++attempt) {
        auto handle = std::make_unique<Handle>();
        handle->fd.reset(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644));
        if (!handle->fd.valid())
            throw SystemError("cannot create '" + path + "': " + posix::errno_text(errno));
        if (::flock(handle->fd.get(), LOCK_EX | LOCK_NB) != 0) {
            const int error = errno;
            if (error != EWOULDBLOCK)
                throw SystemError("cannot lock '" + path + "': " + posix::errno_text(error));
            holder = read_all(handle->fd.get());
            return std::nullopt;
        }
        struct stat held {};
        struct stat named {};
        if (::fstat(handle->fd.get(), &held) != 0 || ::stat(path.c_str(), &named) != 0 ||
            held.st_dev != named.st_dev || held.st_ino != named.st_ino) {
            continue;  // its holder removed it after we opened it: that file is no lock any more
        }
        if (::ftruncate(handle->fd.get(), 0) != 0 ||
            ::pwrite(handle->fd.get(), contents.data(), contents.size(), 0) !=
                static_cast<ssize_t>(contents.size())) {
            const int error = errno;
            ::unlink(path.c_str());
            throw SystemError("cannot write '" + path + "': " + posix::errno_text(error));
        }
        return HeldFile(path, std::move(handle));
    }
    throw SystemError("cannot lock '" + path + "': it was replaced 100 times while being taken");
}

HeldFile::~HeldFile() {
    if (handle_ && handle_->fd.valid()) ::unlink(path_.c_str());  // while still held, then closed
}

HeldFile::HeldFile(HeldFile&&) noexcept = default;
HeldFile& HeldFile::operator=(HeldFile&&) noexcept = default;

}  // namespace pinbench
