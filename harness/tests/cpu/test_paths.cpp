// The paths test_paths.hpp declares, given by CMake (harness/tests/CMakeLists.txt).
#include "test_paths.hpp"

namespace pinbench::test_paths {

const char* exe() { return PINBENCH_TEST_PATH_EXE; }
const char* source_dir() { return PINBENCH_TEST_PATH_SOURCE_DIR; }
const char* fixtures_dir() { return PINBENCH_TEST_PATH_FIXTURES; }
#ifdef _WIN32
const char* test_child() { return PINBENCH_TEST_PATH_TEST_CHILD; }
const char* planted_library() { return PINBENCH_TEST_PATH_PLANTED_LIBRARY; }
#endif

}  // namespace pinbench::test_paths
