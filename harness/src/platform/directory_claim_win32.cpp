// The directory claim on Windows: the file opened with no sharing, so nobody else can open it
// while this process lives; the kernel closes the handle when the process ends. The handle is
// not inheritable (no SECURITY_ATTRIBUTES), so children do not keep it. One CreateFileW creates
// the file and holds it, so, unlike a POSIX create-then-flock, it never exists unheld: a sweep
// beside a starting claimer finds it absent or held, never abandoned.
#include "pinbench/platform/directory_claim.hpp"

#include "pinbench/vocabulary/errors.hpp"
#include "platform/handles_win32.hpp"

namespace pinbench {

struct DirectoryClaim::Held {
    win32::UniqueHandle file;
};

DirectoryClaim::DirectoryClaim(const std::string& path) : held_(std::make_unique<Held>()) {
    held_->file.reset(::CreateFileW(win32::widen(path).c_str(), GENERIC_READ | GENERIC_WRITE, 0, nullptr,
                                    OPEN_ALWAYS, FILE_ATTRIBUTE_NORMAL, nullptr));
    if (!held_->file.valid()) {
        throw SystemError("cannot create '" + path + "': " + win32::error_text(::GetLastError()));
    }
}

DirectoryClaim::~DirectoryClaim() = default;
DirectoryClaim::DirectoryClaim(DirectoryClaim&&) noexcept = default;
DirectoryClaim& DirectoryClaim::operator=(DirectoryClaim&&) noexcept = default;

ClaimState claim_state(const std::string& path) {
    const win32::UniqueHandle file(::CreateFileW(win32::widen(path).c_str(), GENERIC_READ, 0, nullptr,
                                                 OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, nullptr));
    if (file.valid()) return ClaimState::abandoned;
    const DWORD error = ::GetLastError();
    if (error == ERROR_FILE_NOT_FOUND || error == ERROR_PATH_NOT_FOUND) return ClaimState::absent;
    return ClaimState::held;  // ERROR_SHARING_VIOLATION while its owner lives; any other: leave it
}

}  // namespace pinbench
