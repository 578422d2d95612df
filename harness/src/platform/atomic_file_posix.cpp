// Atomic whole-file writes on POSIX: temp file in the same directory, fsync, rename, fsync the
// directory. A writer killed part-way leaves at most a stale "<path>.tmp.<pid>.<random>" file
// beside the target; it is harmless (never read) and may be deleted at any time.
#include "pinbench/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <random>

#include "pinbench/errors.hpp"
#include "platform/fd_posix.hpp"
#include "platform/random_token.hpp"

namespace pinbench {
namespace {

using posix::errno_text;
using posix::UniqueFd;

[[noreturn]] void fail_write(const std::string& path, const std::string& step, int error) {
    throw SystemError("cannot write '" + path + "': " + step + ": " + errno_text(error));
}

// Removes the temporary file unless the rename consumed it.
class TempFile {
public:
    explicit TempFile(std::string path) : path_(std::move(path)) {}
    ~TempFile() {
        if (!path_.empty()) ::unlink(path_.c_str());
    }
    TempFile(const TempFile&) = delete;
    TempFile& operator=(const TempFile&) = delete;
    void release() { path_.clear(); }

private:
    std::string path_;
};

}  // namespace

void write_file_atomically(const std::string& path, const std::string& contents) {
    const std::string temp = path + ".tmp." + std::to_string(::getpid()) + "." + random_hex();
    UniqueFd fd(::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666));
    if (!fd.valid()) fail_write(path, "create " + temp, errno);
    TempFile guard(temp);

    std::size_t written = 0;
    while (written < contents.size()) {
        const ssize_t n = ::write(fd.get(), contents.data() + written, contents.size() - written);
        if (n < 0) {
            if (errno == EINTR) continue;
            fail_write(path, "write " + temp, errno);
        }
        written += static_cast<std::size_t>(n);
    }
    // The data must be on disk before the rename makes it visible under the real name.
    if (::fsync(fd.get()) != 0) fail_write(path, "fsync " + temp, errno);
    if (fd.close() != 0) fail_write(path, "close " + temp, errno);
    if (::rename(temp.c_str(), path.c_str()) != 0) fail_write(path, "rename " + temp, errno);
    guard.release();

    // The rename itself is durable only once the directory is.
    std::string dir = std::filesystem::path(path).parent_path().string();
    if (dir.empty()) dir = ".";
    UniqueFd dir_fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!dir_fd.valid()) fail_write(path, "open directory " + dir, errno);
    // EINVAL: the file system cannot sync directories; there is nothing more to do.
    if (::fsync(dir_fd.get()) != 0 && errno != EINVAL) fail_write(path, "fsync directory " + dir, errno);
}

std::string read_file(const std::string& path) {
    UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (!fd.valid()) throw SystemError("cannot read '" + path + "': " + errno_text(errno));
    std::string contents;
    struct stat st {};
    if (::fstat(fd.get(), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
        contents.reserve(static_cast<std::size_t>(st.st_size));
    }
    char buffer[64 * 1024];
    for (;;) {
        const ssize_t n = ::read(fd.get(), buffer, sizeof buffer);
        if (n == 0) break;
        if (n < 0) {
            if (errno == EINTR) continue;
            throw SystemError("cannot read '" + path + "': " + errno_text(errno));
        }
        contents.append(buffer, static_cast<std::size_t>(n));
    }
    return contents;
}

}  // namespace pinbench
