// The baseline store: a directory of results files filed by platform, driver model, GPU model,
// GPU count and driver release, so that nightly runs accumulate as per-release history.
// Layout and file schema: docs/store.md. Implemented in harness/src/store/.
#pragma once

#include <chrono>
#include <functional>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

namespace pinbench {

inline constexpr const char* store_schema_name = "pinbench.store";
// Version 2 names new files by XXH3-64 instead of FNV-1a; version 3 stores them gzip-compressed
// (<time>-<hash>.json.gz, the hash of the uncompressed bytes) and keeps Windows' reserved device
// names (CON, NUL, ...) out of its folder names. Version 1 and 2 stores still read, and become
// version 3 with their first add (their files stay as they are: docs/store.md).
inline constexpr int store_schema_version = 3;
inline constexpr int store_schema_oldest_version = 1;

// What identifies one measurement however its file was copied or re-saved, from a results
// document: its measurement_id (results schema 3), else "derived-" + XXH3-64 of started_at,
// backend and the sorted repeat nonces (docs/store.md gives the exact text). pinreport's
// store.measurement_id() agrees.
std::string measurement_identity(const nlohmann::json& results);

// The five path components a results file is filed under. Every component is safe as a
// directory name on every platform (a name Windows reserves, such as "con", gets a '_':
// "con_"); a value the environment record lacks is "unknown-<field>".
struct StoreKey {
    std::string platform;      // "linux", "windows", ... (environment.platform)
    std::string driver_model;  // "wddm", "tcc", "mcdm", "linux" (devices[*].driver_model.current)
    std::string gpu;           // slug of devices[*].name: "nvidia-h200"
    std::string gpu_count;     // "<n>gpu" from environment.cuda_device_count
    std::string release;       // driver release as NVML reports it: "580.65.06"

    bool operator==(const StoreKey&) const = default;
};

// The key a results file's environment record files it under.
StoreKey store_key_of(const nlohmann::json& environment);

// Lowercase; every run of characters other than [a-z0-9] becomes one '-'; no '-' at the ends.
std::string store_slug(const std::string& text);

struct StoredEntry {
    std::string path;           // full path of the stored file (UTF-8)
    std::string relative_path;  // below the store directory, '/'-separated: "real/linux/..."
    bool replay = false;        // under replay/ (backend "replay"): never a real baseline
    StoreKey key;
    std::string started_at;             // from the file name: "20250601T100000Z"
    std::string hash;                   // from the file name: 12 hex digits
    bool already_stored = false;        // add(): the same measurement was there already; nothing was written
    std::vector<std::string> replaced;  // add(): stored partials of this measurement it replaced
    std::string problem;                // list(): why this file is not a usable entry; "" when it is
};

struct ResultsDocument;

// The document of a stored file (a list() entry), decompressed and read as load_results reads
// one (the eta's earlier repeat times: run/eta.hpp). Throws InputError as load_results does.
ResultsDocument load_stored_results(const StoredEntry& entry);

// How a writer waits for the store's lock and when it may break one left behind.
struct StoreLockOptions {
    std::chrono::milliseconds wait{30'000};  // give up (SystemError) after this long
    std::chrono::milliseconds poll{100};
    std::chrono::seconds stale_after{600};  // a lock older than this is stale whoever holds it
    // A lock file without readable contents (its writer died between creating and filling
    // it) is stale once its modification time is this old.
    std::chrono::seconds unreadable_after{10};
    // Told, in one line, about every stale lock that was broken. Unset: not reported.
    std::function<void(const std::string&)> report;
};

// What upgrade() did: every stored file of an older results version rewritten in the current one.
struct StoreUpgrade {
    struct Rewritten {
        std::string from;  // the older file's path below the store (removed)
        std::string to;    // the current version's path below the store
    };
    std::vector<Rewritten> rewritten;
    std::size_t current = 0;            // files that were in the current version already
    std::vector<StoredEntry> problems;  // unusable files, as list() reports them: left as they are
};

struct StoreAddOptions {
    bool allow_incomplete = false;  // store results with complete == false (interrupted runs)
    StoreLockOptions lock;
};

class Store {
public:
    // Opens the store in `dir` for adding; nothing is created here: the first add() that has a
    // valid results file in hand creates the directory and its store.json. Throws InputError
    // naming store.json when it holds another schema or version, and when `dir` exists, is not
    // empty and has no store.json (not a store: nothing is ever written there).
    static Store open(const std::string& dir);

    // Opens an existing store for reading; never creates anything. Throws InputError when `dir`
    // does not exist, is not a directory, has no store.json, or its store.json is not one this
    // build reads (a typo must not look like an empty store).
    static Store open_existing(const std::string& dir);

    // Files a copy of the results file under its key: its bytes unchanged when it is of the
    // current results version, else the current version's bytes (as `pinbench results upgrade`
    // writes them), so every stored night reads as this version. Only complete
    // results unless options.allow_incomplete. Adding the same measurement again (the same file,
    // or a copy with other formatting: measurement_identity) writes nothing and returns
    // already_stored, unless every stored copy is a partial that finished less (complete false,
    // fewer runs): then the new file replaces them (`replaced`). Also deletes the stale
    // temporaries of killed writers (older than options.lock.stale_after, process gone). Throws InputError
    // for an unreadable, invalid or incomplete results file, SystemError when the store cannot be written or
    // its lock cannot be taken in time.
    StoredEntry add(const std::string& results_path, const StoreAddOptions& options = {}) const;

    // Every stored file, sorted by relative path; each is read and checked (schema, backend
    // matching its namespace, key matching its path, hash of its uncompressed bytes), and a file
    // that fails says so in `problem` instead of being left out. An entry that is not a regular
    // file (a FIFO, a socket, a device, a symbolic link, a directory where a file belongs) is
    // reported the same way and never opened. real_only: the replay namespace is not read and no
    // entry with replayed contents is returned.
    std::vector<StoredEntry> list(bool real_only = false) const;

    // Rewrites every stored file of an older results version in the current one (`pinbench store
    // upgrade`), in place: the current version's bytes under their own name (the hash of the new
    // bytes) are written first, atomically, then the older file is removed; a crash in between
    // leaves both, one measurement, and running it again finishes the job. Files list() reports as
    // unusable are left as they are and returned. Throws SystemError when the store cannot be
    // written or its lock cannot be taken in time.
    StoreUpgrade upgrade(const StoreLockOptions& lock = {}) const;

    const std::string& dir() const { return dir_; }

private:
    explicit Store(std::string dir) : dir_(std::move(dir)) {}
    std::string dir_;
};

}  // namespace pinbench
