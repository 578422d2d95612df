// Typed errors. Each names where it came from so a one-line message is enough to act on.
#pragma once

#include <stdexcept>
#include <string>

namespace pinbench {

// A CUDA runtime/driver call failed: which API, the error's name and its text.
class CudaError : public std::runtime_error {
public:
    CudaError(std::string api, int code, std::string name, const std::string& text)
        : std::runtime_error(api + " failed: " + name + " (" + text + ")"),
          api_(std::move(api)),
          code_(code),
          name_(std::move(name)) {}
    const std::string& api() const { return api_; }
    int code() const { return code_; }
    const std::string& name() const { return name_; }
    // Out-of-memory is a result (the size cannot be pinned here), not a crash.
    bool is_out_of_memory() const {
        return name_ == "cudaErrorMemoryAllocation" ||
               name_ == "CUDA_ERROR_OUT_OF_MEMORY";  // runtime, driver API
    }

private:
    std::string api_;
    int code_;
    std::string name_;
};

// Bad input in a scenario (or replay script) file; what() is "FILE:LINE:COL: message".
class InputError : public std::runtime_error {
public:
    InputError(const std::string& file, int line, int column, const std::string& message)
        : std::runtime_error(file + ":" + std::to_string(line) + ":" + std::to_string(column) + ": " +
                             message),
          file_(file),
          line_(line),
          column_(column) {}
    explicit InputError(const std::string& message) : std::runtime_error(message) {}
    const std::string& file() const { return file_; }
    int line() const { return line_; }
    int column() const { return column_; }

private:
    std::string file_;
    int line_ = 0;
    int column_ = 0;
};

// An OS call failed (process spawn, file write, library load).
class SystemError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// The machine, driver or OS cannot do what a run asks (API not supported, privilege not held,
// no huge pages configured). The run ends WAIVED with what() as the reason, never as 0.
class UnsupportedError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Process exit codes shared by pinbench and pinreport (README.md, "Exit codes").
namespace exit_code {
inline constexpr int ok = 0;
inline constexpr int regression = 1;      // regression, rule violation, failed positive control verdict
inline constexpr int bad_input = 2;       // unreadable / invalid scenario, results or script file
inline constexpr int infrastructure = 3;  // no GPU, failed runs, a failed control, a blind probe
}  // namespace exit_code

}  // namespace pinbench
