// The child side of an isolated repeat: `pinbench __child --request FILE`.
#pragma once

#include <string>

namespace pinbench {

// Runs the request, writes the response file it names, returns the process exit code
// (0 whenever a response was written, even for a failed measurement).
int child_main(const std::string& request_path);

}  // namespace pinbench
