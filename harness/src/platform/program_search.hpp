// Which file a child program's name starts (docs/windows.md, "Which programs pinbench starts"):
// the one rule for every child pinbench starts (its own repeats, pinreport, a traced program),
// on both platforms, applied by Subprocess and tied_command:
// - a name with a folder in it (`C:\x\pinreport.exe`, `./prog`, `sub/prog`) is used as given:
//   the user named that file;
// - a bare name (`pinreport`) is looked for along PATH, in its absolute folders only: an empty
//   entry, `.` or any other relative entry names the current folder (or one below it), where a
//   download folder may hold a planted program, and is skipped. The current folder itself is
//   never searched, as Windows' CreateProcess and an empty POSIX PATH entry would.
// On Windows a name without an extension is looked for with `.exe` appended (as CreateProcess
// does), and PATH entries may be quoted.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace pinbench {

enum class PathStyle { posix, windows };

// Whether `name` names a folder as well as a file (so is used as given, never searched).
bool names_a_folder(const std::string& name, PathStyle style);

// Whether `folder` is absolute: `/x` (POSIX); `C:\x`, `C:/x` or `\\server\share` (Windows).
bool is_absolute_folder(const std::string& folder, PathStyle style);

// The files a bare `name` may be, in the order they are tried: each absolute PATH entry joined
// with the name (Windows: `.exe` appended when the name has no extension). Empty for a name
// with a folder in it and for an empty name.
std::vector<std::string> program_candidates(const std::string& name, const std::string& path_variable,
                                            PathStyle style);

// The file to start for `name`: `name` itself when it names a folder (Windows: `name.exe` when
// `name` has no extension and only that file is there), else the first of program_candidates
// for which `is_program` holds; nullopt when none does.
std::optional<std::string> resolve_program(const std::string& name, const std::string& path_variable,
                                           PathStyle style,
                                           const std::function<bool(const std::string&)>& is_program);

// resolve_program with this process's PATH, this platform's style and an executable-file test
// (subprocess_{posix,win32}.cpp). Throws SystemError "cannot start 'NAME': ..." naming where it
// looked when nothing is found.
std::string find_program(const std::string& name);

}  // namespace pinbench
