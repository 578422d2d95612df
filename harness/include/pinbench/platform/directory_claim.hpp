// A claim on a scratch directory for as long as this process lives: a file in it held open with
// an exclusive lock (flock on POSIX, no sharing on Windows). The OS lets go of the file when the
// process ends, however it ends (SIGKILL, a crash, a cancelled CI job), so a later run can tell
// an abandoned directory from a live one; a pid cannot (reused, or from another pid namespace).
// Implemented in harness/src/platform/directory_claim_{posix,win32}.cpp.
#pragma once

#include <memory>
#include <string>

namespace pinbench {

class DirectoryClaim {
public:
    // Creates `path` (a file) and holds it; throws SystemError when it cannot. The file never
    // exists unheld, so a sweep beside a starting claimer cannot take it for an abandoned one.
    explicit DirectoryClaim(const std::string& path);
    ~DirectoryClaim();
    DirectoryClaim(DirectoryClaim&&) noexcept;
    DirectoryClaim& operator=(DirectoryClaim&&) noexcept;
    DirectoryClaim(const DirectoryClaim&) = delete;
    DirectoryClaim& operator=(const DirectoryClaim&) = delete;

private:
    struct Held;  // the open file, per platform
    std::unique_ptr<Held> held_;
};

// What a claim file says of its directory: a live process holds it, nobody does (its owner is
// gone), or there is no such file (an older pinbench's directory, or one being set up).
enum class ClaimState { held, abandoned, absent };
ClaimState claim_state(const std::string& path);

}  // namespace pinbench
