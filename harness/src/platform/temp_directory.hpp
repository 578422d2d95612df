// The temporary directory pinbench works in (a run's child requests and responses, a trace's
// scratch file), as the environment names it (TMPDIR; on Windows TMP or TEMP).
#pragma once

#include <string>

namespace pinbench {

// The directory, checked: it exists and is a directory. Throws InputError (exit 2), one line
// naming the variable and its value, when it is not (a TMPDIR that names a missing folder or a
// file ended in a raw "filesystem error: temp_directory_path", exit 3).
std::string temp_directory();

// Creates the folder `path` (inside temp_directory()); InputError naming the temporary
// directory when it may not be written there (read-only, permission denied), SystemError else.
void create_temp_folder(const std::string& path);

}  // namespace pinbench
