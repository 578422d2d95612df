#include "platform/standard_streams.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <iostream>
#include <streambuf>

#include "pinbench/platform/utf8.hpp"
#include "platform/fd_posix.hpp"

namespace pinbench {
namespace {

extern "C" void on_broken_pipe(int) {}  // the write that raised it returns EPIPE

// std::cout's buffer: write(2) on descriptor 1, keeping the first error's errno (stdio's
// ferror() keeps only that there was one).
class CheckedOutput : public std::streambuf {
public:
    CheckedOutput() : previous_(std::cout.rdbuf(this)) { setp(buffer_, buffer_ + sizeof buffer_); }
    ~CheckedOutput() override {
        sync();
        std::cout.rdbuf(previous_);  // std::cout is flushed once more at exit, after we are gone
    }
    CheckedOutput(const CheckedOutput&) = delete;
    CheckedOutput& operator=(const CheckedOutput&) = delete;

    int error() const { return error_; }

protected:
    int_type overflow(int_type c) override {
        if (!drain()) return traits_type::eof();
        if (!traits_type::eq_int_type(c, traits_type::eof())) {
            *pptr() = traits_type::to_char_type(c);
            pbump(1);
        }
        return traits_type::not_eof(c);
    }
    int sync() override { return drain() ? 0 : -1; }

private:
    bool drain() {
        const char* p = pbase();
        std::size_t left = static_cast<std::size_t>(pptr() - pbase());
        setp(buffer_, buffer_ + sizeof buffer_);
        if (error_ != 0) return false;  // the rest of a failed output is dropped
        while (left > 0) {
            const ssize_t n = ::write(STDOUT_FILENO, p, left);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) {
                error_ = n < 0 ? errno : EIO;
                return false;
            }
            p += n;
            left -= static_cast<std::size_t>(n);
        }
        return true;
    }

    char buffer_[64 * 1024];
    std::streambuf* previous_;
    int error_ = 0;
};

CheckedOutput& checked_output() {
    static CheckedOutput output;
    return output;
}

}  // namespace

void guard_standard_streams() {
    // Input opened write-only and outputs read-only: reads and writes on them fail (EBADF).
    const int wrong_way[3] = {O_WRONLY, O_RDONLY, O_RDONLY};
    for (int fd = 0; fd < 3; ++fd) {
        if (::fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
        const int opened = ::open("/dev/null", wrong_way[fd]);
        if (opened >= 0 && opened != fd) {
            ::dup2(opened, fd);
            ::close(opened);
        }
    }
    struct sigaction sa {};
    sa.sa_handler = on_broken_pipe;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    ::sigaction(SIGPIPE, &sa, nullptr);
    (void)checked_output();
}

std::string standard_output_error() {
    std::cout.flush();
    const int error = checked_output().error();
    if (error == 0 && std::cout.good()) return {};
    return error != 0 ? posix::errno_text(error) : std::string("a write failed");
}

bool standard_error_is_terminal() { return ::isatty(STDERR_FILENO) == 1; }

int standard_error_columns() {
    winsize size{};
    if (::ioctl(STDERR_FILENO, TIOCGWINSZ, &size) != 0 || size.ws_col == 0) return 0;
    return size.ws_col;
}

bool colour_on_standard_error() {
    const auto no_colour = environment_variable("NO_COLOR");
    return standard_error_is_terminal() && (!no_colour || no_colour->empty());
}

}  // namespace pinbench
