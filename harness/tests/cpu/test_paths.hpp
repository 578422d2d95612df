// Where the CPU tests find the sources, their fixtures and the programs they start. The paths
// are compiled into test_paths.cpp alone (the pinbench_test_paths library), not given to every
// test file as -D options: a clone in another directory then recompiles that one file and the
// compiler cache serves the others (ci/README.md, "Caches").
#pragma once

namespace pinbench::test_paths {

const char* exe();           // the pinbench program
const char* source_dir();    // the repository
const char* fixtures_dir();  // harness/tests/fixtures
#ifdef _WIN32
const char* test_child();       // pinbench_win32_test_child.exe (win32_test_child.cpp)
const char* planted_library();  // pinbench_planted_library.dll (planted_library_win32.cpp)
#endif

}  // namespace pinbench::test_paths

#define PINBENCH_EXE (::pinbench::test_paths::exe())
#define PINBENCH_SOURCE_DIR (::pinbench::test_paths::source_dir())
#define PINBENCH_FIXTURES (::pinbench::test_paths::fixtures_dir())
#ifdef _WIN32
#define PINBENCH_TEST_CHILD (::pinbench::test_paths::test_child())
#define PINBENCH_PLANTED_LIBRARY (::pinbench::test_paths::planted_library())
#endif
