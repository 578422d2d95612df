// The store's writer lock: DIR/.lock, created exclusively and holding {pid, hostname,
// created_at, token}. A crashed writer cannot leave it stuck: a lock whose process is gone from
// this host, or that is older than a limit, is stale and is broken (renamed away, then the
// acquisition is retried). Common logic: store_lock.cpp; OS calls: store_lock_{posix,win32}.cpp.
#pragma once

#include <cstdint>
#include <string>

#include "pinbench/store/store.hpp"

namespace pinbench::store_detail {

// --- OS calls (store_lock_posix.cpp / store_lock_win32.cpp) ------------------------------------

// Creates `path` only if it does not exist (O_CREAT|O_EXCL, CREATE_NEW) and writes `contents`
// to it. Returns false when it exists; throws SystemError for any other failure.
bool create_exclusive(const std::string& path, const std::string& contents);

// Renames `from` to `to` unless `to` exists. Returns false when it exists or `from` does not.
bool rename_no_replace(const std::string& from, const std::string& to);

enum class Liveness { alive, gone, unknown };
// Whether process `pid` runs on this host (kill(pid, 0), OpenProcess). A zombie counts as alive.
Liveness process_liveness(std::uint32_t pid);

// This host's name, as written into lock files ("" when it cannot be read).
std::string host_name();

// --- Common ----------------------------------------------------------------------------------

// Holds DIR/.lock for its lifetime; the destructor removes the file if it is still this one's.
class StoreLock {
public:
    // Polls until the lock is taken, breaking stale locks (each reported through
    // options.report). Throws SystemError "store DIR is locked by pid N on HOST since T"
    // once options.wait has passed.
    static StoreLock acquire(const std::string& dir, const StoreLockOptions& options);

    ~StoreLock();
    StoreLock(StoreLock&& other) noexcept;
    StoreLock& operator=(StoreLock&&) = delete;
    StoreLock(const StoreLock&) = delete;
    StoreLock& operator=(const StoreLock&) = delete;

    const std::string& path() const { return path_; }

private:
    StoreLock(std::string path, std::string contents)
        : path_(std::move(path)), contents_(std::move(contents)) {}
    std::string path_;
    std::string contents_;  // what this holder wrote: the destructor removes only that
};

}  // namespace pinbench::store_detail
