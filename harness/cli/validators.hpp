// CLI11 validators for pinbench's options.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>

namespace pinbench::cli {

// Sizes with units ("256MiB").
struct SizeValidator : CLI::Validator {
    SizeValidator();
    // ... from `min` to `max` bytes.
    SizeValidator(std::uint64_t min, std::uint64_t max);
};

// An existing file that is not a directory, as CLI::ExistingFile with its messages, but the name
// read as UTF-8 (pinbench/platform/utf8.hpp): CLI11's reads it in the ANSI code page on Windows, where a
// file under C:\Users\José was then "File does not exist".
struct ExistingFile : CLI::Validator {
    ExistingFile();
};

// An input file a user may name as a path or, for a file the package ships, by its bare name
// (`quick`, `quick.yaml`, `h200-smoke`): ExistingFile's rule first; else the packaged file in
// `folder` (cli/installed_files.hpp), `extension` added where the name has none, and the value
// becomes its path. Not found: ExistingFile's message and where the packaged ones are.
struct PackagedFile : CLI::Validator {
    PackagedFile(const std::string& folder, const std::string& extension);
};

// Every floating-point option: a finite number from `min` to `max` (above `min` when
// `min_excluded`). CLI11's own Range lets NaN through and its messages quote bounds such as the
// largest double with 300 digits.
struct FiniteNumber : CLI::Validator {
    FiniteNumber(double min, double max, bool min_excluded = false);
};

}  // namespace pinbench::cli
