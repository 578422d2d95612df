// The OS side of the trace injection library (harness/src/cuda/trace_injection.cpp): where its
// events go, who made a call, the native call stack and where CUPTI is. Kept apart so the
// injection itself is one portable file. Platform code: injection_platform_{posix,win32}.cpp.
#pragma once

#include <cstdint>
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
    bool is_open() const;
    void append_line(const std::string& line) const;  // adds the newline

private:
    std::intptr_t handle_;
};

std::uint32_t current_process_id();
std::uint64_t current_thread_id();

// Up to `depth` native frames above the caller, innermost first, each "module!symbol+0xOFF"
// (or "module+0xOFF" without a symbol); empty where the platform cannot walk the stack.
std::vector<std::string> native_stack(int depth);

// A shared library's handle and symbols, for CUPTI, which is loaded at run time so that a
// machine without it gets a message instead of a driver that silently skips the injection.
class Library {
public:
    // Tries each candidate; on failure is_open() is false and why() lists every attempt.
    explicit Library(const std::vector<std::string>& candidates);
    ~Library();
    Library(const Library&) = delete;
    Library& operator=(const Library&) = delete;
    bool is_open() const { return handle_ != nullptr; }
    const std::string& why() const { return why_; }
    const std::string& name() const { return name_; }
    void* symbol(const char* name) const;

private:
    void* handle_ = nullptr;
    std::string name_;
    std::string why_;
};

// Where CUPTI is looked for, in order: $PINBENCH_CUPTI_LIBRARY, the toolkit this library was
// built against (PINBENCH_CUPTI_BUILD_DIR), then the loader's own search by name.
std::vector<std::string> cupti_candidates();

}  // namespace pinbench::trace
