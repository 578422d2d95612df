// A DLL for DynamicLibraryWin32.* (dynamic_library_win32_test.cpp): copied into the current
// folder as a planted library, it must never be loaded by name.
extern "C" __declspec(dllexport) int pinbench_planted_library() { return 42; }
