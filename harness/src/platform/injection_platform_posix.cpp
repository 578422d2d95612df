// The trace injection's OS side on POSIX: an O_APPEND file, getpid / gettid, backtrace +
// dladdr.
#include "platform/injection_platform.hpp"

#include <dlfcn.h>
#include <execinfo.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "pinbench/platform/utf8.hpp"
#include "platform/fd_posix.hpp"

namespace pinbench::trace {

struct EventFile::File {
    posix::UniqueFd fd;
};

EventFile::EventFile(const std::string& path) {
    posix::UniqueFd fd(::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644));
    if (fd.valid()) file_ = std::make_unique<File>(File{std::move(fd)});
}

EventFile::~EventFile() = default;

void EventFile::append_line(const std::string& line) const {
    if (!file_) return;
    std::string whole = line + "\n";
    // One write: O_APPEND places it at the end as a unit, whichever process writes.
    const char* p = whole.data();
    std::size_t left = whole.size();
    while (left > 0) {
        const ssize_t n = ::write(file_->fd.get(), p, left);
        if (n <= 0) return;  // nothing sensible to do inside someone else's CUDA call
        p += n;
        left -= static_cast<std::size_t>(n);
    }
}

std::uint32_t current_process_id() { return static_cast<std::uint32_t>(::getpid()); }

std::uint64_t current_thread_id() {
#ifdef SYS_gettid
    return static_cast<std::uint64_t>(::syscall(SYS_gettid));
#else
    return 0;
#endif
}

std::vector<std::string> native_stack(int depth) {
    std::vector<std::string> frames;
    if (depth <= 0) return frames;
    std::vector<void*> addresses(static_cast<std::size_t>(depth) + 1);
    const int n = ::backtrace(addresses.data(), static_cast<int>(addresses.size()));
    for (int i = 1; i < n; ++i) {  // 0 is native_stack itself
        Dl_info info{};
        char text[512];
        if (::dladdr(addresses[i], &info) != 0 && info.dli_fname != nullptr) {
            const char* slash = std::strrchr(info.dli_fname, '/');
            const char* module = slash != nullptr ? slash + 1 : info.dli_fname;
            if (info.dli_sname != nullptr) {
                std::snprintf(text, sizeof text, "%s!%s+0x%zx", module, info.dli_sname,
                              static_cast<std::size_t>(static_cast<char*>(addresses[i]) -
                                                       static_cast<char*>(info.dli_saddr)));
            } else {
                std::snprintf(text, sizeof text, "%s+0x%zx", module,
                              static_cast<std::size_t>(static_cast<char*>(addresses[i]) -
                                                       static_cast<char*>(info.dli_fbase)));
            }
        } else {
            std::snprintf(text, sizeof text, "%p", addresses[i]);
        }
        frames.emplace_back(text);
    }
    return frames;
}

std::vector<std::string> cupti_candidates() {
    std::vector<std::string> names;
    if (auto explicit_path = environment_variable("PINBENCH_CUPTI_LIBRARY");
        explicit_path && !explicit_path->empty()) {
        names.push_back(*explicit_path);
    }
#ifdef PINBENCH_CUPTI_BUILD_PATH
    names.emplace_back(PINBENCH_CUPTI_BUILD_PATH);
#endif
    for (const char* name : {"libcupti.so", "libcupti.so.13", "libcupti.so.12"}) names.emplace_back(name);
    return names;
}

}  // namespace pinbench::trace
