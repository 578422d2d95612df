// A lock file that only a living process holds: `OUT.lock` beside a file two processes must not
// write at once (results_file.hpp: two `pinbench run -o OUT`). The OS lets go when the holder
// ends, however it ends (SIGKILL, a crash, TerminateProcess), so a dead holder never blocks the
// next run; the holder removes the file when it lets go. Platform code:
// harness/src/platform/held_file_{posix,win32}.cpp (flock; a handle that shares neither write
// nor delete access, opened delete-on-close).
#pragma once

#include <memory>
#include <optional>
#include <string>

namespace pinbench {

class HeldFile {
public:
    // Takes `path` (creating it) and writes `contents` into it, or nullopt when another living
    // process holds it; `holder` then gets what that process wrote (empty when unreadable).
    // Throws SystemError when the file cannot be created at all (a folder that may not be written).
    static std::optional<HeldFile> take(const std::string& path, const std::string& contents,
                                        std::string& holder);
    ~HeldFile();  // removes the file, then lets go
    HeldFile(HeldFile&&) noexcept;
    HeldFile& operator=(HeldFile&&) noexcept;
    HeldFile(const HeldFile&) = delete;
    HeldFile& operator=(const HeldFile&) = delete;

    const std::string& path() const { return path_; }

private:
    struct Handle;  // the open file, per platform
    HeldFile(std::string path, std::unique_ptr<Handle> handle);
    std::string path_;
    std::unique_ptr<Handle> handle_;
};

}  // namespace pinbench
