// Atomic whole-file writes on POSIX: temp file in the same directory, fsync, rename, fsync the
// directory. A writer killed part-way leaves at most a stale "<path>.tmp.<pid>.<random>" file
// beside the target; it is harmless (never read) and may be deleted at any time. A character
// device, a FIFO, or the file standard output or error is open on is written in place instead:
// renaming over /dev/stdout replaced the machine's link with a regular file.
#include "pinbench/platform/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <random>
#include <thread>

#include "pinbench/platform/output_target.hpp"
#include "pinbench/vocabulary/errors.hpp"
#include "pinbench/vocabulary/units.hpp"
#include "platform/fd_posix.hpp"
#include "platform/random_token.hpp"

namespace pinbench {
namespace {

using posix::errno_text;
using posix::UniqueFd;

[[noreturn]] void fail_write(const std::string& path, const std::string& step, int error) {
    throw SystemError("cannot write '" + path + "': " + step + ": " + errno_text(error));
}

[[noreturn]] void refuse_output(const std::string& path, const std::string& why) {
    throw InputError("cannot write '" + path + "': " + why + "; nothing was written");
}

// What a stat() names a file that is not regular, for messages.
std::string file_type_name(mode_t mode) {
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISFIFO(mode)) return "a FIFO";
    if (S_ISSOCK(mode)) return "a socket";
    if (S_ISLNK(mode)) return "a symbolic link";
    return "not a regular file";
}

// The errors of creating a file that say the path was refused, not that a write failed midway.
bool refused(int error) {
    return error == EACCES || error == EPERM || error == ENOENT || error == ENOTDIR || error == EROFS ||
           error == ENAMETOOLONG || error == ELOOP || error == EISDIR;
}

std::string folder_of(const std::string& path) {
    std::string dir = std::filesystem::path(path).parent_path().string();
    return dir.empty() ? "." : dir;
}

// Where an existing target is written in place (pinbench/platform/atomic_file.hpp): the path
// itself (0: a character device or a FIFO, a link to one included), the standard stream whose
// file it is (1 or 2), or nowhere (-1: the rename replaces it).
int in_place_stream(const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return -1;
    if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) return 0;  // /dev/stdout on a terminal or pipe too
    if (!S_ISREG(st.st_mode)) return -1;
    for (const int stream : {1, 2}) {  // /dev/stdout when standard output is a file
        if (is_standard_stream(path, stream)) return stream;
    }
    return -1;
}

void write_all(int fd, const std::string& path, const std::string& step, const std::string& contents) {
    std::size_t written = 0;
    while (written < contents.size()) {
        const ssize_t n = ::write(fd, contents.data() + written, contents.size() - written);
        if (n < 0) {
            if (errno == EINTR) continue;
            fail_write(path, step, errno);
        }
        written += static_cast<std::size_t>(n);
    }
}

void write_in_place(const std::string& path, int stream, const std::string& contents) {
    if (stream > 0) {
        // After what the program printed so far on it, through the same descriptor.
        std::cout.flush();
        std::cerr.flush();
        std::fflush(nullptr);
        write_all(stream, path, "write", contents);
        return;
    }
    // No O_CREAT, no O_TRUNC: a device or FIFO is written as it is. A FIFO that no program reads
    // would hold the program for ever: it is opened without waiting, given a second for a reader
    // that is about to open it, then a failed write (exit 3), as pinreport says it
    // (reports/pinreport/base/atomic_write.py).
    UniqueFd fd;
    for (int tries = 0;; ++tries) {
        fd.reset(::open(path.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC | O_NONBLOCK));
        if (fd.valid() || errno != ENXIO || tries == 50) {
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    if (!fd.valid()) {
        const int error = errno;
        if (error == ENXIO) {
            throw SystemError("cannot write '" + path +
                              "': a FIFO that no program reads; nothing was written");
        }
        if (refused(error)) refuse_output(path, errno_text(error));
        fail_write(path, "open", error);
    }
    const int flags = ::fcntl(fd.get(), F_GETFL);
    if (flags == -1 || ::fcntl(fd.get(), F_SETFL, flags & ~O_NONBLOCK) == -1) {
        fail_write(path, "fcntl", errno);
    }
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0 || !(S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))) {
        refuse_output(path, "it changed into a file while it was opened");
    }
    write_all(fd.get(), path, "write", contents);
    if (fd.close() != 0) fail_write(path, "close", errno);
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

void check_output_path(const std::string& path) {
    if (path.empty()) throw InputError("an output path is empty");
    struct stat st {};
    // lstat: a symbolic link is replaced by the rename, whatever it points at.
    if (::lstat(path.c_str(), &st) == 0) {
        if (in_place_stream(path) >= 0) return;  // written in place: no temporary file in its folder
        if (!S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode)) {
            refuse_output(path, "it is " + file_type_name(st.st_mode) +
                                    " (an output path must be a regular file, a symbolic link, a character "
                                    "device, a FIFO or absent)");
        }
    } else if (errno != ENOENT) {
        if (refused(errno)) refuse_output(path, errno_text(errno));
        fail_write(path, "stat", errno);
    }
    const std::string dir = folder_of(path);
    if (::stat(dir.c_str(), &st) != 0) {
        const int error = errno;
        if (error == ENOENT) refuse_output(path, "the folder '" + dir + "' does not exist");
        if (refused(error)) refuse_output(path, "the folder '" + dir + "': " + errno_text(error));
        fail_write(path, "stat " + dir, error);
    }
    if (!S_ISDIR(st.st_mode)) refuse_output(path, "'" + dir + "' is not a folder");
    if (::access(dir.c_str(), W_OK | X_OK) != 0) {
        refuse_output(path, "the folder '" + dir + "': " + errno_text(errno));
    }
    // The permission bits do not say it all (root, /proc, a read-only mount, ACLs): the
    // temporary file the write makes is made and removed once now, before anything is measured.
    const std::string probe = path + ".tmp." + std::to_string(::getpid()) + "." + random_hex();
    const UniqueFd fd(::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666));
    if (!fd.valid()) {
        const int error = errno;
        if (refused(error)) {
            refuse_output(path, "cannot create a file in '" + dir + "': " + errno_text(error));
        }
        fail_write(path, "create " + probe, error);
    }
    ::unlink(probe.c_str());
}

void write_file_atomically(const std::string& path, const std::string& contents) {
    check_output_path(path);
    if (const int stream = in_place_stream(path); stream >= 0) {
        write_in_place(path, stream, contents);
        return;
    }
    const std::string temp = path + ".tmp." + std::to_string(::getpid()) + "." + random_hex();
    UniqueFd fd(::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666));
    if (!fd.valid()) {
        const int error = errno;
        if (refused(error)) refuse_output(path, "create " + temp + ": " + errno_text(error));
        fail_write(path, "create " + temp, error);
    }
    TempFile guard(temp);

    write_all(fd.get(), path, "write " + temp, contents);
    // The data must be on disk before the rename makes it visible under the real name.
    if (::fsync(fd.get()) != 0) fail_write(path, "fsync " + temp, errno);
    if (fd.close() != 0) fail_write(path, "close " + temp, errno);
    if (::rename(temp.c_str(), path.c_str()) != 0) fail_write(path, "rename " + temp, errno);
    guard.release();

    // The rename itself is durable only once the directory is.
    const std::string dir = folder_of(path);
    UniqueFd dir_fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!dir_fd.valid()) fail_write(path, "open directory " + dir, errno);
    // EINVAL: the file system cannot sync directories; there is nothing more to do.
    if (::fsync(dir_fd.get()) != 0 && errno != EINVAL) fail_write(path, "fsync directory " + dir, errno);
}

bool writes_in_place(const std::string& path) { return !path.empty() && in_place_stream(path) >= 0; }

std::string read_file(const std::string& path, std::uint64_t max_bytes) {
    // O_NONBLOCK: opening a FIFO must not wait for a writer before it can be refused.
    UniqueFd fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
    if (!fd.valid()) throw SystemError("cannot read '" + path + "': " + errno_text(errno));
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0) throw SystemError("cannot read '" + path + "': " + errno_text(errno));
    if (!S_ISREG(st.st_mode)) {
        throw InputError("cannot read '" + path + "': it is " + file_type_name(st.st_mode) +
                         ", not a regular file");
    }
    const auto too_large = [&](const std::string& size) {
        return InputError("cannot read '" + path + "': " + size + " is larger than the " +
                          size_label(max_bytes) + " limit for this kind of file");
    };
    if (static_cast<std::uint64_t>(st.st_size) > max_bytes) {
        throw too_large(size_label(static_cast<std::uint64_t>(st.st_size)));
    }
    std::string contents;
    contents.reserve(static_cast<std::size_t>(st.st_size));
    char buffer[64 * 1024];
    for (;;) {
        const ssize_t n = ::read(fd.get(), buffer, sizeof buffer);
        if (n == 0) break;
        if (n < 0) {
            if (errno == EINTR) continue;
            throw SystemError("cannot read '" + path + "': " + errno_text(errno));
        }
        contents.append(buffer, static_cast<std::size_t>(n));
        // A file that grows while it is read (or that stat() sizes as 0, as /proc does).
        if (contents.size() > max_bytes) throw too_large("more than " + size_label(max_bytes));
    }
    return contents;
}

}  // namespace pinbench
