// The rule of pinbench/platform/output_target.hpp, asked of the file system through
// std::filesystem (both platforms); the identity of the standard streams is
// output_target_{posix,win32}.cpp's.
#include "pinbench/platform/output_target.hpp"

#include <filesystem>
#include <system_error>
#include <vector>

#include "pinbench/platform/utf8.hpp"
#include "pinbench/vocabulary/errors.hpp"
#include "pinbench/vocabulary/terminal_text.hpp"

namespace pinbench {
namespace {

namespace fs = std::filesystem;

[[noreturn]] void refuse(const std::string& path, const std::string& why) {
    throw InputError("cannot write '" + terminal_text(path) + "': " + why + "; nothing was written");
}

// As the write will resolve it: absolute, then one component at a time, as the OS walks it once
// the missing folders are made: a part that exists is made canonical (its links followed), a
// part that does not is a folder to be made (kept as named), `..` goes to the parent of what has
// been resolved so far. So `new/../d/link/../x` re-enters the real tree after `new/..` and
// follows `link` before its `..` (a lexical shortcut from the first missing part on wrote
// over an input: the fuzzer's first finding, harness/tests/fixtures/fuzz-regressions). A part
// that exists but cannot be made canonical (/dev/stdout on a pipe: "pipe:[N]") is kept as named.
fs::path resolve(const fs::path& given) {
    std::error_code ec;
    fs::path absolute = fs::absolute(given, ec);
    if (ec) absolute = given;
    fs::path resolved = absolute.root_path();
    bool real = true;  // `resolved` exists and is canonical
    for (const fs::path& part : absolute.relative_path()) {
        if (part.empty() || part == ".") continue;
        if (part == "..") {
            resolved = resolved.has_relative_path() ? resolved.parent_path() : resolved;
            if (!real) {
                std::error_code exists_ec;
                real = fs::exists(resolved, exists_ec);  // back inside what exists
            }
            continue;
        }
        fs::path next = resolved / part;
        std::error_code exists_ec, canonical_ec;
        if (fs::exists(next, exists_ec)) {
            fs::path canonical = fs::canonical(next, canonical_ec);
            resolved = canonical_ec ? next : canonical;
            real = !canonical_ec;
        } else {
            resolved = std::move(next);
            real = false;
        }
    }
    return resolved.lexically_normal();
}

// Whether `inner` is `outer` or lies below it (both resolved).
bool inside(const fs::path& inner, const fs::path& outer) {
    const fs::path relative = inner.lexically_relative(outer);
    return !relative.empty() && *relative.begin() != "..";
}

std::string type_name(fs::file_type type) {
    switch (type) {
        case fs::file_type::directory:
            return "a directory";
        case fs::file_type::socket:
            return "a socket";
        case fs::file_type::block:
            return "a block device";
        default:
            return "not a file";
    }
}

}  // namespace

std::string resolved_output_path(const std::string& path) { return utf8_of(resolve(path_from_utf8(path))); }

void check_output_target(const std::string& path, const OutputInputs& inputs) {
    if (path.empty()) throw InputError("an output path is empty: name a file");
    const fs::path given = path_from_utf8(path);
    const fs::path target = resolve(given);
    for (const std::string& input : inputs.files) {
        if (input.empty()) continue;
        if (input == "-") {
            if (is_standard_stream(path, 0)) {
                refuse(path,
                       "it is the file standard input reads (the command's input); choose another output");
            }
            continue;
        }
        const fs::path in = path_from_utf8(input);
        std::error_code given_ec, target_ec;
        if ((fs::equivalent(in, given, given_ec) && !given_ec) ||
            (fs::equivalent(in, target, target_ec) && !target_ec)) {
            refuse(path,
                   "it is the input '" + terminal_text(input) + "' (the same file); choose another output");
        }
    }
    for (const std::string& store : inputs.stores) {
        if (store.empty()) continue;
        if (inside(target, resolve(path_from_utf8(store)))) {
            refuse(path, "it lies inside the store '" + terminal_text(store) +
                             "' this command reads or writes; choose an output outside it");
        }
    }
    // What is there, not followed: a link is replaced or written through (atomic_file.hpp).
    std::error_code ec;
    const fs::file_type type = fs::symlink_status(given, ec).type();
    if (type == fs::file_type::directory || type == fs::file_type::socket || type == fs::file_type::block) {
        refuse(path, "it is " + type_name(type) +
                         " (an output is a regular file, a link, a character device, a FIFO or absent)");
    }
}

}  // namespace pinbench
