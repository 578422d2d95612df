// The store lock's OS calls on Windows: CreateFileW(CREATE_NEW), MoveFileExW without
// REPLACE_EXISTING, OpenProcess for liveness, GetComputerNameExW.
#include "store/store_lock.hpp"

#include <windows.h>

#include <algorithm>
#include <iterator>

#include "pinbench/vocabulary/errors.hpp"
#include "platform/handles_win32.hpp"

namespace pinbench::store_detail {

using win32::UniqueHandle;

bool create_exclusive(const std::string& path, const std::string& contents) {
    const std::wstring wide = win32::widen(path);
    // Readers may share delete so that a breaker can rename the lock while it is being read.
    UniqueHandle file(::CreateFileW(wide.c_str(), GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_DELETE, nullptr,
                                    CREATE_NEW, FILE_ATTRIBUTE_NORMAL, nullptr));
    if (!file.valid()) {
        const DWORD error = ::GetLastError();
        if (error == ERROR_FILE_EXISTS || error == ERROR_ALREADY_EXISTS) return false;
        // A store that may not be written: refused before anything was written (exit 2).
        if (error == ERROR_ACCESS_DENIED || error == ERROR_WRITE_PROTECT) {
            throw InputError("cannot write the store: cannot create lock file '" + path +
                             "': " + win32::error_text(error) + "; nothing was written");
        }
        throw SystemError("cannot create lock file '" + path + "': " + win32::error_text(error));
    }
    auto fail = [&](const char* step) {
        const DWORD error = ::GetLastError();
        file.reset();
        ::DeleteFileW(wide.c_str());  // an empty lock would block others until it ages out
        throw SystemError("cannot write lock file '" + path + "': " + step + ": " + win32::error_text(error));
    };
    std::size_t written = 0;
    while (written < contents.size()) {
        const DWORD chunk = static_cast<DWORD>(std::min<std::size_t>(contents.size() - written, 1u << 20));
        DWORD n = 0;
        if (!::WriteFile(file.get(), contents.data() + written, chunk, &n, nullptr)) fail("WriteFile");
        written += n;
    }
    if (!::FlushFileBuffers(file.get())) fail("FlushFileBuffers");
    return true;
}

bool rename_no_replace(const std::string& from, const std::string& to) {
    // Without MOVEFILE_REPLACE_EXISTING the move fails when the target exists.
    return ::MoveFileExW(win32::widen(from).c_str(), win32::widen(to).c_str(), MOVEFILE_WRITE_THROUGH) != 0;
}

Liveness process_liveness(std::uint32_t pid) {
    if (pid == 0) return Liveness::unknown;  // the idle process; never a writer
    UniqueHandle process(::OpenProcess(SYNCHRONIZE, FALSE, static_cast<DWORD>(pid)));
    if (!process.valid()) {
        const DWORD error = ::GetLastError();
        if (error == ERROR_INVALID_PARAMETER) return Liveness::gone;  // no process with this id
        if (error == ERROR_ACCESS_DENIED) return Liveness::alive;     // exists, protected
        return Liveness::unknown;
    }
    // An exited process lives on as an object while anyone holds a handle to it; its handle is
    // signalled then. (GetExitCodeProcess would mistake an exit code of 259 for "running".)
    switch (::WaitForSingleObject(process.get(), 0)) {
        case WAIT_OBJECT_0:
            return Liveness::gone;
        case WAIT_TIMEOUT:
            return Liveness::alive;
        default:
            return Liveness::unknown;
    }
}

std::string host_name() {
    wchar_t name[256];
    DWORD size = static_cast<DWORD>(std::size(name));
    if (!::GetComputerNameExW(ComputerNameDnsHostname, name, &size)) return {};
    return win32::narrow(std::wstring_view(name, size));
}

}  // namespace pinbench::store_detail
