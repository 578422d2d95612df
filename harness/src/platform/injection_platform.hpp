// The OS side of the trace injection library (harness/src/cuda/trace_injection.cpp): where its
// events go, who made a call, the native call stack and where CUPTI is (loaded with
// pinbench/platform/dynamic_library.hpp). Kept apart so the injection itself is one portable file. Platform
// code: injection_platform_{posix,win32}.cpp.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace pinbench::trace {

// The events file a traced process appends to: one JSON line per event, each written with
// one call in append mode, so the lines of several processes (a DataLoader's workers, a
// program that starts others) interleave whole.
class EventFile {
public:
    explicit EventFile(const std::string& path);  // invalid (writes ignored) when it cannot open
    ~EventFile();
    EventFile(const EventFile&) = delete;
    EventFile& operator=(const EventFile&) = delete;
    bool is_open() const { return file_ != nullptr; }
    void append_line(const std::string& line) const;  // adds the newline

private:
    struct File;  // the open descriptor or handle, per platform
    std::unique_ptr<File> file_;
};

std::uint32_t current_process_id();
std::uint64_t current_thread_id();

// Up to `depth` native frames above the caller, innermost first, each "module!symbol+0xOFF"
// (or "module+0xOFF" without a symbol); empty where the platform cannot walk the stack.
std::vector<std::string> native_stack(int depth);

// Where CUPTI is looked for, in order: $PINBENCH_CUPTI_LIBRARY, the toolkit this library was
// built against (PINBENCH_CUPTI_BUILD_DIR), then the loader's own search by name.
std::vector<std::string> cupti_candidates();

}  // namespace pinbench::trace
