// The identity of the standard streams on Windows (pinbench/platform/output_target.hpp): a path
// is the file a standard handle is open on when both have the same volume and file index.
#include "pinbench/platform/output_target.hpp"

#include <windows.h>

#include "pinbench/platform/utf8.hpp"
#include "platform/handles_win32.hpp"

namespace pinbench {

bool is_standard_stream(const std::string& path, int stream) {
    const DWORD which = stream == 0 ? STD_INPUT_HANDLE : (stream == 1 ? STD_OUTPUT_HANDLE : STD_ERROR_HANDLE);
    const HANDLE open = ::GetStdHandle(which);
    if (open == nullptr || open == INVALID_HANDLE_VALUE || ::GetFileType(open) != FILE_TYPE_DISK) {
        return false;
    }
    win32::UniqueHandle named(::CreateFileW(win32::widen(path).c_str(), 0,
                                            FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, nullptr,
                                            OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, nullptr));
    if (!named.valid()) return false;
    BY_HANDLE_FILE_INFORMATION a{}, b{};
    if (!::GetFileInformationByHandle(named.get(), &a) || !::GetFileInformationByHandle(open, &b)) {
        return false;
    }
    return a.dwVolumeSerialNumber == b.dwVolumeSerialNumber && a.nFileIndexHigh == b.nFileIndexHigh &&
           a.nFileIndexLow == b.nFileIndexLow;
}

}  // namespace pinbench
