// HeldFile on Windows: the file opened delete-on-close, sharing read access only (and delete,
// which delete-on-close asks of every later opener), not inheritable: a second taker's open for
// writing fails with a sharing violation while the holder lives, and the kernel closes the
// handle, so removes the file, when the holder ends, however it ends.
#include "platform/held_file.hpp"

#include <windows.h>

#include "pinbench/vocabulary/errors.hpp"
#include "platform/handles_win32.hpp"

namespace pinbench {

struct HeldFile::Handle {
    win32::UniqueHandle file;
};

namespace {

// What the holder wrote: read through a handle that shares everything the holder has open.
std::string holder_text(const std::wstring& path) {
    const win32::UniqueHandle file(::CreateFileW(path.c_str(), GENERIC_READ,
                                                 FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
                                                 nullptr, OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, nullptr));
    if (!file.valid()) return "";
    std::string text(4096, '\0');
    DWORD n = 0;
    if (!::ReadFile(file.get(), text.data(), static_cast<DWORD>(text.size()), &n, nullptr)) return "";
    text.resize(n);
    return text;
}

}  // namespace

HeldFile::HeldFile(std::string path, std::unique_ptr<Handle> handle)
    : path_(std::move(path)), handle_(std::move(handle)) {}

std::optional<HeldFile> HeldFile::take(const std::string& path, const std::string& contents,
                                       std::string& holder) {
    const std::wstring wide = win32::widen(path);
    for (int attempt = 0;; ++attempt) {
        auto handle = std::make_unique<Handle>();
        handle->file.reset(::CreateFileW(wide.c_str(), GENERIC_READ | GENERIC_WRITE | DELETE,
                                         FILE_SHARE_READ | FILE_SHARE_DELETE, nullptr, OPEN_ALWAYS,
                                         FILE_ATTRIBUTE_NORMAL | FILE_FLAG_DELETE_ON_CLOSE, nullptr));
        if (!handle->file.valid()) {
            const DWORD error = ::GetLastError();
            if (error == ERROR_SHARING_VIOLATION) {
                holder = holder_text(wide);
                return std::nullopt;
            }
            // A holder that just let go leaves the file "delete pending" for a moment.
            if (error == ERROR_ACCESS_DENIED && attempt < 50) {
                ::Sleep(20);
                continue;
            }
            throw SystemError("cannot create '" + path + "': " + win32::error_text(error));
        }
        DWORD written = 0;
        if (!::SetEndOfFile(handle->file.get()) ||
            !::WriteFile(handle->file.get(), contents.data(), static_cast<DWORD>(contents.size()), &written,
                         nullptr) ||
            written != contents.size()) {
            throw SystemError("cannot write '" + path + "': " + win32::error_text(::GetLastError()));
        }
        return HeldFile(path, std::move(handle));
    }
}

HeldFile::~HeldFile() = default;  // closing the handle deletes the file
HeldFile::HeldFile(HeldFile&&) noexcept = default;
HeldFile& HeldFile::operator=(HeldFile&&) noexcept = default;

}  // namespace pinbench
