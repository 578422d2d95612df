// The output-target rule (pinbench/platform/output_target.hpp) under a fuzzer, checked by its
// invariant, not by crashes: whatever path and inputs the bytes give, a target the rule accepts,
// once written as a command writes it (its folders made, write_file_atomically), has left every
// input and every store file as it was, and every directory, FIFO and device still what it was.
//
// Each input is run in a fresh scratch tree (below): files, a hard link and symbolic links to an
// input, links to a folder, to the parent, to /dev/null, a dangling link, a loop, a FIFO, and a
// store with its files, in a folder of its own. The bytes choose the path's components from those names (and
// `..`, `.`, new folders, doubled separators), whether it is absolute, and which names are the command's
// inputs and stores (standard input "-" among them). POSIX only (FIFOs, /dev/null).
#pragma once

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "pinbench/platform/atomic_file.hpp"
#include "pinbench/platform/output_target.hpp"
#include "pinbench/vocabulary/errors.hpp"

namespace pinbench::fuzz {

// A broken invariant: a finding (libFuzzer stops on the uncaught exception; the CPU test that
// replays the regression inputs fails).
struct InvariantBroken : std::logic_error {
    using std::logic_error::logic_error;
};

namespace output_target_detail {

namespace fs = std::filesystem;

inline const char* const kNames[] = {"in.json", "other.json", "d",     "link_in",    "link_d", "link_up",
                                     "fifo",    "devnull",    "store", "store.json", "real",   "x.json.gz",
                                     "hard_in", "dangling",   "loop",  "..",         ".",      "new",
                                     "",        "in.json/",   "tree"};
inline constexpr std::size_t kNameCount = sizeof(kNames) / sizeof(kNames[0]);

// The scratch tree, made afresh for every input: <tmp>/pinbench_fuzz_output.<pid>/tree (its own
// name is a name the bytes can choose, so a path may leave it and come back through a link).
// In memory where there is /dev/shm: every write flushes the file and its folder to disk, which
// on a disk held the target to 25 inputs a second.
inline fs::path scratch_base() {
    std::error_code ec;
    return fs::is_directory("/dev/shm", ec) ? fs::path("/dev/shm") : fs::temp_directory_path();
}

// The folder that holds the tree, removed when the process ends (the CTest property test; a
// libFuzzer run that stops on a finding may leave it for the next run of that pid to remove).
struct Scratch {
    fs::path folder = scratch_base() / ("pinbench_fuzz_output." + std::to_string(::getpid()));
    ~Scratch() {
        std::error_code ec;
        fs::remove_all(folder, ec);
    }
};

inline const fs::path& scratch_folder() {
    static const Scratch scratch;
    return scratch.folder;
}

inline fs::path make_tree() {
    static const fs::path root = scratch_folder() / "tree";
    std::error_code ec;
    fs::remove_all(root.parent_path(), ec);
    fs::create_directories(root / "d" / "sub");
    fs::create_directories(root / "store" / "real");
    std::ofstream(root / "in.json") << "{\"input\": 1}\n";
    std::ofstream(root / "other.json") << "other\n";
    std::ofstream(root / "store" / "store.json") << "{\"schema\": \"pinbench.store\"}\n";
    std::ofstream(root / "store" / "real" / "x.json.gz") << "stored\n";
    fs::create_hard_link(root / "in.json", root / "hard_in");
    fs::create_symlink("in.json", root / "link_in");
    fs::create_directory_symlink("d", root / "link_d");
    fs::create_directory_symlink("..", root / "d" / "link_up");
    fs::create_symlink("/dev/null", root / "devnull");
    fs::create_symlink("nowhere", root / "dangling");
    fs::create_symlink("loop", root / "loop");
    ::mkfifo((root / "fifo").c_str(), 0600);
    return root;
}

inline std::string read_all(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

// What must not change: each entry's type (not followed) and a regular file's bytes.
inline std::map<std::string, std::string> snapshot(const fs::path& root) {
    std::map<std::string, std::string> out;
    std::error_code ec;
    for (fs::recursive_directory_iterator it(root, fs::directory_options::none, ec), end; !ec && it != end;
         it.increment(ec)) {
        const fs::file_type type = it->symlink_status(ec).type();
        std::string what = std::to_string(static_cast<int>(type));
        if (type == fs::file_type::regular) what += ":" + read_all(it->path());
        out[fs::relative(it->path(), root, ec).generic_string()] = what;
    }
    return out;
}

}  // namespace output_target_detail

// One input: bytes -> (path, inputs) -> the rule -> the write -> the invariant.
inline void output_target(const std::uint8_t* data, std::size_t size) {
    namespace d = output_target_detail;
    namespace fs = std::filesystem;
    if (size < 2) return;
    const fs::path root = d::make_tree();
    // Byte 0: which names are inputs (bits 0-4: in.json, link_in, hard_in, other.json, "-"), bit 5:
    // the store is a store of the command, bit 6: the path is absolute. The rest: one name each,
    // a byte of 0xF0 or more starting a literal name of the bytes after it.
    const std::uint8_t flags = data[0];
    OutputInputs inputs;
    const char* const input_names[] = {"in.json", "link_in", "hard_in", "other.json"};
    for (int bit = 0; bit < 4; ++bit) {
        if ((flags >> bit) & 1) inputs.files.push_back((root / input_names[bit]).string());
    }
    if ((flags >> 4) & 1) inputs.files.emplace_back("-");
    if ((flags >> 5) & 1) inputs.stores.push_back((root / "store").string());
    std::string path = ((flags >> 6) & 1) ? root.string() + "/" : std::string();
    for (std::size_t i = 1; i < size; ++i) {
        if (data[i] >= 0xF0) {
            path.append(reinterpret_cast<const char*>(data + i + 1), size - i - 1);
            break;
        }
        path += std::string(d::kNames[data[i] % d::kNameCount]) + (i + 1 < size ? "/" : "");
    }
    if (path.find('\0') != std::string::npos) return;  // no OS path holds one
    const auto before = d::snapshot(root);
    const std::string cwd = fs::current_path().string();
    fs::current_path(root);
    struct Back {
        std::string to;
        ~Back() {
            std::error_code ec;
            fs::current_path(to, ec);
        }
    } back{cwd};
    try {
        check_output_target(path, inputs);
    } catch (const InputError&) {
        return;  // refused: nothing was written
    }
    // Accepted, but outside the scratch folder (`tree/../../x` is /dev/shm/x): not written. The
    // invariant is about the tree; a write there would litter a folder other programs share (the
    // first property runs left files and folders in /dev/shm).
    const fs::path resolved(resolved_output_path(path));
    std::error_code canonical_ec;
    const fs::path inside =
        resolved.lexically_relative(fs::weakly_canonical(d::scratch_folder(), canonical_ec));
    const bool in_scratch = !inside.empty() && *inside.begin() != "..";
    if (!in_scratch && !writes_in_place(path)) return;
    // Accepted: written as a command writes it (cli/output_path.cpp): its folders made first, then
    // whether it is written in place, then the write. (Asked before the folders, as this target
    // first did, `x.json.gz//../fifo` was no FIFO yet, and the write then waited on the FIFO
    // for ever: the property test at 20 times its inputs.)
    std::error_code folders_ec;
    const fs::path parent = fs::path(path).parent_path();
    if (!parent.empty()) fs::create_directories(parent, folders_ec);
    if (writes_in_place(path)) {
        struct stat st {};
        if (::stat(path.c_str(), &st) != 0 || !(S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))) {
            throw InvariantBroken("written in place, but neither a device nor a FIFO: " + path);
        }
        if (S_ISFIFO(st.st_mode)) return;  // no reader here: writing would wait for one
    }
    try {
        write_file_atomically(path, "written\n");
    } catch (const InputError&) {
        return;  // the writer's own checks (a folder that is a file, a link loop): nothing written
    } catch (const SystemError&) {
        return;
    }
    const auto after = d::snapshot(root);
    for (const auto& [name, what] : before) {
        const auto it = after.find(name);
        const bool input =
            name == "in.json" || name == "hard_in" || (name == "other.json" && ((flags >> 3) & 1) != 0);
        const bool in_store = name.rfind("store", 0) == 0 && ((flags >> 5) & 1) != 0;
        const bool not_regular =
            what.rfind(std::to_string(static_cast<int>(fs::file_type::regular)) + ":", 0) != 0 &&
            what != std::to_string(static_cast<int>(fs::file_type::symlink));
        const bool guarded =
            (input && ((flags & 0x7) != 0 || name == "other.json")) || in_store || not_regular;
        if (guarded && (it == after.end() || it->second != what)) {
            throw InvariantBroken("writing '" + path + "' changed '" + name + "'");
        }
    }
}

}  // namespace pinbench::fuzz
