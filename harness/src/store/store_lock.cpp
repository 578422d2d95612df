// The store's writer lock, common part: who holds it, when it is stale, how it is broken.
// Breaking is rename-then-check: the lock is renamed to a unique name and compared with what was
// judged stale; if a live lock was moved by mistake (it changed in between) it is put back.
#include "store/store_lock.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <system_error>
#include <thread>
#include <utility>

#include "pinbench/platform/atomic_file.hpp"
#include "pinbench/probes/platform_probes.hpp"
#include "pinbench/vocabulary/errors.hpp"
#include "platform/random_token.hpp"
#include "store/store_support.hpp"

namespace pinbench::store_detail {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

std::optional<std::string> read_if_present(const std::string& path) {
    try {
        return read_file(path);
    } catch (const SystemError&) {
        return std::nullopt;  // released (or broken) between our attempts: try again
    }
}

// What a lock file says about its holder; nullopt when it cannot be parsed.
struct Holder {
    std::uint32_t pid = 0;
    std::string hostname;
    std::string created_at;
};

std::optional<Holder> parse_holder(const std::string& text) {
    const nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (!j.is_object()) return std::nullopt;
    const auto pid = j.find("pid");
    const auto host = j.find("hostname");
    const auto created = j.find("created_at");
    if (pid == j.end() || !pid->is_number_unsigned() || host == j.end() || !host->is_string() ||
        created == j.end() || !created->is_string()) {
        return std::nullopt;
    }
    if (pid->get<std::uint64_t>() > UINT32_MAX) return std::nullopt;
    return Holder{pid->get<std::uint32_t>(), host->get<std::string>(), created->get<std::string>()};
}

std::string describe(const Holder& h) {
    return "pid " + std::to_string(h.pid) + " on " + (h.hostname.empty() ? "an unnamed host" : h.hostname) +
           " since " + h.created_at;
}

std::string minutes_text(std::chrono::seconds s) {
    return s.count() % 60 == 0 ? std::to_string(s.count() / 60) + " min" : std::to_string(s.count()) + " s";
}

// Why the lock is stale, or nullopt while it must be respected.
std::optional<std::string> stale_reason(const std::string& lock_path, const std::optional<Holder>& holder,
                                        const StoreLockOptions& options) {
    if (!holder) {
        std::error_code ec;
        const auto written = fs::last_write_time(path_from_utf8(lock_path), ec);
        if (ec) return std::nullopt;
        const auto age =
            std::chrono::duration_cast<std::chrono::seconds>(fs::file_time_type::clock::now() - written);
        if (age >= options.unreadable_after) {
            return "the lock file has no readable owner and was last written " + std::to_string(age.count()) +
                   " s ago";
        }
        return std::nullopt;
    }
    // No writer holds pid 0 (on POSIX kill(0, 0) would signal our own process group, on Windows
    // it is the System Idle Process): such a lock names no live holder, on any host.
    if (holder->pid == 0) return std::string("its pid 0 names no process");
    // A pid means something only on the host that wrote it (a store may sit on a shared drive).
    if (holder->hostname == host_name() && process_liveness(holder->pid) == Liveness::gone) {
        return "process " + std::to_string(holder->pid) + " is no longer running";
    }
    if (const auto created = parse_utc_timestamp(holder->created_at)) {
        const auto age =
            std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now()) - *created;
        if (age >= options.stale_after) return "it is older than " + minutes_text(options.stale_after);
    } else {
        return "its created_at '" + holder->created_at + "' is not a timestamp";
    }
    return std::nullopt;
}

// Renames the stale lock away; true when the caller should retry at once.
bool break_lock(const std::string& dir, const std::string& lock_path, const std::string& judged,
                const std::string& who, const std::string& reason, const StoreLockOptions& options) {
    const std::string aside =
        lock_path + ".stale." + std::to_string(current_process_id()) + "." + random_hex();
    std::error_code ec;
    fs::rename(path_from_utf8(lock_path), path_from_utf8(aside), ec);
    if (ec) return false;  // gone already, or held open (Windows): look again after a poll
    const std::optional<std::string> moved = read_if_present(aside);
    if (moved && *moved != judged) {
        // Between our read and the rename its holder released it and a new writer took it.
        const bool restored = rename_no_replace(aside, lock_path);
        if (options.report && !restored) {
            options.report("store " + dir +
                           ": a fresh lock was moved aside while breaking a stale one and could "
                           "not be put back; it is kept as " +
                           aside);
        }
        return true;
    }
    fs::remove(path_from_utf8(aside), ec);
    if (options.report) options.report("store " + dir + ": broke the stale lock of " + who + ": " + reason);
    return true;
}

}  // namespace

StoreLock StoreLock::acquire(const std::string& dir, const StoreLockOptions& options) {
    const std::string lock_path = utf8_of(path_from_utf8(dir) / ".lock");
    const nlohmann::json mine = {{"pid", current_process_id()},
                                 {"hostname", host_name()},
                                 {"created_at", utc_timestamp_now()},
                                 {"token", random_hex()}};
    const std::string contents = mine.dump() + "\n";
    const auto deadline = Clock::now() + options.wait;
    for (;;) {
        if (create_exclusive(lock_path, contents)) return StoreLock(lock_path, contents);

        const std::optional<std::string> text = read_if_present(lock_path);
        std::error_code ec;
        if (!text && !fs::exists(path_from_utf8(lock_path), ec)) continue;  // released meanwhile
        const std::optional<Holder> holder = text ? parse_holder(*text) : std::nullopt;
        const std::string who = holder ? describe(*holder) : std::string("an unknown holder");
        if (const auto reason = stale_reason(lock_path, holder, options)) {
            if (break_lock(dir, lock_path, text.value_or(""), who, *reason, options)) continue;
        }

        const auto now = Clock::now();
        if (now >= deadline) {
            const auto waited = std::chrono::duration_cast<std::chrono::milliseconds>(options.wait);
            throw SystemError("store " + dir + " is locked by " + who + " (lock file " + lock_path +
                              "; gave up after " + std::to_string(waited.count()) + " ms)");
        }
        std::this_thread::sleep_for(std::min<Clock::duration>(options.poll, deadline - now));
    }
}

StoreLock::~StoreLock() {
    if (path_.empty()) return;
    // Remove only our own lock: had it been broken as stale, the file may be someone else's now.
    const std::optional<std::string> text = read_if_present(path_);
    if (text && *text == contents_) {
        std::error_code ec;
        fs::remove(path_from_utf8(path_), ec);
    }
}

StoreLock::StoreLock(StoreLock&& other) noexcept
    : path_(std::exchange(other.path_, {})), contents_(std::exchange(other.contents_, {})) {}

}  // namespace pinbench::store_detail
