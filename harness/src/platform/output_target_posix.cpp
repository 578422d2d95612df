// The identity of the standard streams on POSIX (pinbench/platform/output_target.hpp): a path is
// the file a descriptor is open on when both have the same device and inode.
#include "pinbench/platform/output_target.hpp"

#include <sys/stat.h>

namespace pinbench {

bool is_standard_stream(const std::string& path, int stream) {
    struct stat named {};
    struct stat open {};
    if (::stat(path.c_str(), &named) != 0 || ::fstat(stream, &open) != 0) return false;
    return named.st_dev == open.st_dev && named.st_ino == open.st_ino;
}

}  // namespace pinbench
