// Atomic whole-file writes on Windows: temp file in the same directory, FlushFileBuffers, then
// a rename over the target. A writer killed part-way leaves at most a stale
// "<path>.tmp.<pid>.<random>" file beside the target; it is harmless and may be deleted.
//
// Replacing a file that a reader holds open (docs/windows.md, "Replacing files while others
// read them"): the rename uses POSIX semantics (SetFileInformationByHandle with FileRenameInfoEx and
// FILE_RENAME_FLAG_POSIX_SEMANTICS | FILE_RENAME_FLAG_REPLACE_IF_EXISTS, Windows 10 1607 and
// later, NTFS), under which a target held open with FILE_SHARE_DELETE (pinbench's own
// read_file) is replaced at once; the reader keeps reading the old contents. A reader that did
// not share delete access (Python's open(), most programs) still blocks any replace on
// Windows, so every replace is retried with backoff for up to kReplaceBudget, then fails with
// an error naming the cause. Where the POSIX rename is not implemented (older Windows, FAT,
// some network file systems, Wine: ERROR_INVALID_PARAMETER) MoveFileExW is used, with the same
// retries; then any open reader blocks the replace for as long as it holds the file.
#include "pinbench/platform/atomic_file.hpp"

#include <windows.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <vector>

#include "pinbench/vocabulary/errors.hpp"
#include "pinbench/vocabulary/units.hpp"
#include "platform/handles_win32.hpp"
#include "platform/random_token.hpp"

namespace pinbench {
namespace {

using win32::UniqueHandle;

// How long a replace waits for readers that hold the target without sharing delete access.
constexpr std::chrono::milliseconds kReplaceBudget{2000};

[[noreturn]] void fail_write(const std::string& path, const std::string& step, DWORD error) {
    throw SystemError("cannot write '" + path + "': " + step + ": " + win32::error_text(error));
}

class TempFile {
public:
    explicit TempFile(std::wstring path) : path_(std::move(path)) {}
    ~TempFile() {
        if (!path_.empty()) ::DeleteFileW(path_.c_str());
    }
    TempFile(const TempFile&) = delete;
    TempFile& operator=(const TempFile&) = delete;
    void release() { path_.clear(); }

private:
    std::wstring path_;
};

// FILE_RENAME_INFO as FileRenameInfoEx reads it (Flags in place of ReplaceIfExists); spelled
// out because older SDK headers declare only the BOOLEAN.
struct RenameInfoEx {
    DWORD Flags;
    HANDLE RootDirectory;
    DWORD FileNameLength;  // bytes, without the terminating null
    WCHAR FileName[1];
};
constexpr DWORD kRenameReplaceIfExists = 0x1;  // FILE_RENAME_FLAG_REPLACE_IF_EXISTS
constexpr DWORD kRenamePosixSemantics = 0x2;   // FILE_RENAME_FLAG_POSIX_SEMANTICS
constexpr auto kFileRenameInfoEx = static_cast<FILE_INFO_BY_HANDLE_CLASS>(22);  // FileRenameInfoEx

// The rename of the open temporary file over `target` (a full path) with POSIX semantics.
bool posix_rename(HANDLE file, const std::wstring& target, DWORD& error) {
    const std::size_t name_bytes = target.size() * sizeof(wchar_t);
    std::vector<std::byte> buffer(sizeof(RenameInfoEx) + name_bytes);
    auto* info = reinterpret_cast<RenameInfoEx*>(buffer.data());
    info->Flags = kRenamePosixSemantics | kRenameReplaceIfExists;
    info->RootDirectory = nullptr;
    info->FileNameLength = static_cast<DWORD>(name_bytes);
    std::memcpy(info->FileName, target.c_str(), name_bytes + sizeof(wchar_t));
    if (::SetFileInformationByHandle(file, kFileRenameInfoEx, info, static_cast<DWORD>(buffer.size()))) {
        return true;
    }
    error = ::GetLastError();
    return false;
}

// The rename is not available here (as opposed to refused for this file).
bool posix_rename_unsupported(DWORD error) {
    return error == ERROR_INVALID_PARAMETER || error == ERROR_NOT_SUPPORTED ||
           error == ERROR_INVALID_FUNCTION || error == ERROR_CALL_NOT_IMPLEMENTED;
}

[[noreturn]] void refuse_output(const std::string& path, const std::string& why) {
    throw InputError("cannot write '" + path + "': " + why + "; nothing was written");
}

// The errors of creating a file that say the path was refused, not that a write failed midway.
bool refused(DWORD error) {
    return error == ERROR_ACCESS_DENIED || error == ERROR_PATH_NOT_FOUND || error == ERROR_FILE_NOT_FOUND ||
           error == ERROR_INVALID_NAME || error == ERROR_DIRECTORY || error == ERROR_WRITE_PROTECT ||
           error == ERROR_FILENAME_EXCED_RANGE || error == ERROR_BAD_PATHNAME;
}

// What GetFileType names a handle that is not a file on disk, for messages.
std::string file_type_name(DWORD type) {
    switch (type) {
        case FILE_TYPE_CHAR:
            return "a character device";
        case FILE_TYPE_PIPE:
            return "a pipe";
        default:
            return "not a file on disk";
    }
}

std::string folder_of(const std::string& path) {
    const auto slash = path.find_last_of("\\/");
    if (slash == std::string::npos) return ".";
    return slash == 0 ? path.substr(0, 1) : path.substr(0, slash);
}

// Someone holds the target (or, for a moment, a virus scanner the temporary file).
bool held_open(DWORD error) { return error == ERROR_ACCESS_DENIED || error == ERROR_SHARING_VIOLATION; }

std::wstring full_path(const std::wstring& path) {
    const DWORD n = ::GetFullPathNameW(path.c_str(), 0, nullptr, nullptr);
    if (n == 0) return path;
    std::wstring full(n, L'\0');
    const DWORD written = ::GetFullPathNameW(path.c_str(), n, full.data(), nullptr);
    if (written == 0 || written >= n) return path;
    full.resize(written);
    return full;
}

}  // namespace

void check_output_path(const std::string& path) {
    if (path.empty()) throw InputError("an output path is empty");
    const std::wstring wide = win32::widen(path);
    // No access asked, the link itself (not its target), directories too: only to see what it is.
    UniqueHandle existing(
        ::CreateFileW(wide.c_str(), 0, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, nullptr,
                      OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS | FILE_FLAG_OPEN_REPARSE_POINT, nullptr));
    if (existing.valid()) {
        const DWORD type = ::GetFileType(existing.get());
        if (type != FILE_TYPE_DISK) {
            refuse_output(path, "it is " + file_type_name(type) +
                                    " (an output path must be a regular file, a symbolic link or absent)");
        }
        BY_HANDLE_FILE_INFORMATION info{};
        if (::GetFileInformationByHandle(existing.get(), &info) &&
            (info.dwFileAttributes & FILE_ATTRIBUTE_REPARSE_POINT) == 0 &&
            (info.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) != 0) {
            refuse_output(
                path, "it is a directory (an output path must be a regular file, a symbolic link or absent)");
        }
    } else {
        const DWORD error = ::GetLastError();
        if (error == ERROR_PATH_NOT_FOUND) refuse_output(path, "its folder does not exist");
        if (error != ERROR_FILE_NOT_FOUND && refused(error)) refuse_output(path, win32::error_text(error));
    }
    const std::string dir = folder_of(path);
    const DWORD attributes = ::GetFileAttributesW(win32::widen(dir).c_str());
    if (attributes == INVALID_FILE_ATTRIBUTES) {
        refuse_output(path, "the folder '" + dir + "': " + win32::error_text(::GetLastError()));
    }
    if ((attributes & FILE_ATTRIBUTE_DIRECTORY) == 0) refuse_output(path, "'" + dir + "' is not a folder");
    // The attributes do not say whether a file may be made there (a read-only folder's ACL, a
    // write-protected medium): the temporary file the write makes is made and removed once now,
    // before anything is measured.
    const std::string probe = path + ".tmp." + std::to_string(::GetCurrentProcessId()) + "." + random_hex();
    const UniqueHandle created(::CreateFileW(win32::widen(probe).c_str(), GENERIC_WRITE, 0, nullptr,
                                             CREATE_NEW, FILE_ATTRIBUTE_TEMPORARY | FILE_FLAG_DELETE_ON_CLOSE,
                                             nullptr));
    if (!created.valid()) {
        const DWORD error = ::GetLastError();
        if (refused(error)) {
            refuse_output(path, "cannot create a file in '" + dir + "': " + win32::error_text(error));
        }
        fail_write(path, "create " + probe, error);
    }
}

void write_file_atomically(const std::string& path, const std::string& contents) {
    check_output_path(path);
    const std::string temp = path + ".tmp." + std::to_string(::GetCurrentProcessId()) + "." + random_hex();
    const std::wstring wide_path = win32::widen(path);
    const std::wstring wide_temp = win32::widen(temp);

    // DELETE access: the handle itself is renamed over the target. Delete sharing: the guard
    // below can delete the file while the handle is still open (on an error path).
    UniqueHandle file(::CreateFileW(wide_temp.c_str(), GENERIC_WRITE | DELETE, FILE_SHARE_DELETE, nullptr,
                                    CREATE_NEW, FILE_ATTRIBUTE_NORMAL, nullptr));
    if (!file.valid()) {
        const DWORD error = ::GetLastError();  // before anything else can overwrite it
        if (refused(error)) refuse_output(path, "create " + temp + ": " + win32::error_text(error));
        fail_write(path, "create " + temp, error);
    }
    TempFile guard(wide_temp);

    std::size_t written = 0;
    while (written < contents.size()) {
        const DWORD chunk = static_cast<DWORD>(std::min<std::size_t>(contents.size() - written, 1u << 30));
        DWORD n = 0;
        if (!::WriteFile(file.get(), contents.data() + written, chunk, &n, nullptr)) {
            const DWORD error = ::GetLastError();
            fail_write(path, "write " + temp, error);
        }
        written += n;
    }
    // The data must be on disk before the rename makes it visible under the real name.
    if (!::FlushFileBuffers(file.get())) {
        const DWORD error = ::GetLastError();
        fail_write(path, "flush " + temp, error);
    }

    const std::wstring target = full_path(wide_path);
    const DWORD target_attributes = ::GetFileAttributesW(target.c_str());
    if (target_attributes != INVALID_FILE_ATTRIBUTES && (target_attributes & FILE_ATTRIBUTE_DIRECTORY) != 0) {
        fail_write(path, "rename " + temp + ": the target is a directory", ERROR_ACCESS_DENIED);
    }
    const auto start = std::chrono::steady_clock::now();
    DWORD delay_ms = 1;
    bool posix = true;
    int attempts = 0;
    for (;;) {
        DWORD error = ERROR_SUCCESS;
        ++attempts;
        if (posix) {
            if (posix_rename(file.get(), target, error)) {
                guard.release();
                return;
            }
            if (posix_rename_unsupported(error)) {
                posix = false;
                file.reset();  // MoveFileExW opens the temporary file itself
                continue;
            }
        } else {
            if (::MoveFileExW(wide_temp.c_str(), wide_path.c_str(),
                              MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH)) {
                guard.release();
                return;
            }
            error = ::GetLastError();
        }
        const auto waited = std::chrono::steady_clock::now() - start;
        if (!held_open(error)) fail_write(path, "rename " + temp, error);
        if (waited >= kReplaceBudget) {
            char seconds[32];
            std::snprintf(seconds, sizeof seconds, "%.1f", std::chrono::duration<double>(waited).count());
            fail_write(
                path,
                std::string("replace: another program holds the file open without sharing delete access ") +
                    "(Python's open() and most programs do" +
                    (posix ? "" : "; without POSIX rename semantics here, any reader does") +
                    "); still refused after " + std::to_string(attempts) + " attempts over " + seconds + " s",
                error);
        }
        ::Sleep(delay_ms);
        delay_ms = std::min<DWORD>(delay_ms * 2, 50);
    }
}

std::string read_file(const std::string& path, std::uint64_t max_bytes) {
    const std::wstring wide = win32::widen(path);
    // A directory opens only with FILE_FLAG_BACKUP_SEMANTICS (else "Access denied"): say what it is.
    if (const DWORD attributes = ::GetFileAttributesW(wide.c_str());
        attributes != INVALID_FILE_ATTRIBUTES && (attributes & FILE_ATTRIBUTE_DIRECTORY) != 0) {
        throw InputError("cannot read '" + path + "': it is a directory, not a regular file");
    }
    // Share everything: a concurrent atomic replace of this file must not fail because we read it.
    UniqueHandle file(::CreateFileW(wide.c_str(), GENERIC_READ,
                                    FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, nullptr,
                                    OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, nullptr));
    if (!file.valid()) {
        const DWORD error = ::GetLastError();
        throw SystemError("cannot read '" + path + "': " + win32::error_text(error));
    }
    const DWORD type = ::GetFileType(file.get());
    if (type != FILE_TYPE_DISK) {
        throw InputError("cannot read '" + path + "': it is " + file_type_name(type) +
                         ", not a regular file");
    }
    const auto too_large = [&](const std::string& size) {
        return InputError("cannot read '" + path + "': " + size + " is larger than the " +
                          size_label(max_bytes) + " limit for this kind of file");
    };
    LARGE_INTEGER size{};
    if (!::GetFileSizeEx(file.get(), &size)) {
        const DWORD error = ::GetLastError();
        throw SystemError("cannot read '" + path + "': " + win32::error_text(error));
    }
    if (static_cast<std::uint64_t>(size.QuadPart) > max_bytes) {
        throw too_large(size_label(static_cast<std::uint64_t>(size.QuadPart)));
    }
    std::string contents;
    contents.reserve(static_cast<std::size_t>(size.QuadPart));
    char buffer[64 * 1024];
    for (;;) {
        DWORD n = 0;
        if (!::ReadFile(file.get(), buffer, sizeof buffer, &n, nullptr)) {
            const DWORD error = ::GetLastError();
            throw SystemError("cannot read '" + path + "': " + win32::error_text(error));
        }
        if (n == 0) break;
        contents.append(buffer, n);
        if (contents.size() > max_bytes) throw too_large("more than " + size_label(max_bytes));  // it grew
    }
    return contents;
}

}  // namespace pinbench
