// The baseline store (docs/store.md): one function builds every stored path (stored_path), add()
// files a results file's bytes under it, list() reads everything back and says what is wrong.
#include "pinbench/store/store.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <system_error>

// xxHash, header-only: nothing to link (found by CMake, docs/store.md).
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "json/json_reader.hpp"
#include "pinbench/platform/atomic_file.hpp"
#include "pinbench/platform/output_target.hpp"
#include "pinbench/results/budget_document.hpp"
#include "pinbench/results/environment_record.hpp"
#include "pinbench/results/results.hpp"
#include "pinbench/vocabulary/errors.hpp"
#include "pinbench/vocabulary/terminal_text.hpp"
#include "store/gzip.hpp"
#include "store/store_lock.hpp"
#include "store/store_support.hpp"

namespace pinbench {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using store_detail::generic_utf8_of;
using store_detail::path_from_utf8;
using store_detail::utf8_of;

constexpr const char* real_namespace = "real";
constexpr const char* replay_namespace = "replay";
constexpr std::size_t hash_digits = 12;
// Store version 3 keeps each file gzip-compressed; versions 1 and 2 stored the plain bytes.
constexpr const char* compressed_suffix = ".json.gz";
constexpr const char* plain_suffix = ".json";
// A budget document (store version 4) is filed beside the results of its key, under
// <time>-<hash>.budget.json.gz: its kind is in its name, so a reader of one kind never opens the other.
constexpr const char* budget_suffix = ".budget.json.gz";

const char* suffix_of(DocumentKind kind) {
    return kind == DocumentKind::budget ? budget_suffix : compressed_suffix;
}

const char* noun_of(DocumentKind kind) {
    return kind == DocumentKind::budget ? "budget document" : "results";
}

bool ends_with(const std::string& text, const std::string& tail) {
    return text.size() >= tail.size() && text.compare(text.size() - tail.size(), tail.size(), tail) == 0;
}

std::string hex16(std::uint64_t h) {
    char text[17];
    std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(h));
    return text;
}

// XXH3-64 over the file's bytes (store version 2). It names a file, it does not protect one: a
// clash with different contents is detected in add() and refused, never overwritten.
std::string content_hash(const std::string& bytes) {
    return hex16(XXH3_64bits(bytes.data(), bytes.size())).substr(0, hash_digits);
}

// FNV-1a, 64 bits: the names version 1 gave. Still accepted by list() for files stored then.
std::string legacy_content_hash(const std::string& bytes) {
    std::uint64_t h = 14695981039346656037ull;
    for (const unsigned char c : bytes) {
        h ^= c;
        h *= 1099511628211ull;
    }
    return hex16(h).substr(0, hash_digits);
}

bool hash_matches(const std::string& bytes, const std::string& name_hash) {
    return content_hash(bytes) == name_hash || legacy_content_hash(bytes) == name_hash;
}

// Messages quote what they found; a number of 400 digits is shortened to its first digits and
// its length, and the message stays on one line.
std::string one_line(const std::string& text) {
    std::string out;
    for (std::size_t i = 0; i < text.size();) {
        std::size_t j = i;
        while (j < text.size() && text[j] >= '0' && text[j] <= '9') ++j;
        if (j - i > 24) {
            out += text.substr(i, 12) + "...(" + std::to_string(j - i) + " digits)";
            i = j;
            continue;
        }
        if (j > i) {
            out += text.substr(i, j - i);
            i = j;
            continue;
        }
        const unsigned char c = static_cast<unsigned char>(text[i++]);
        out += (c < 0x20 || c == 0x7f) ? ' ' : static_cast<char>(c);
    }
    if (out.size() > 300) out = out.substr(0, 300) + "...";
    return out;
}

// A driver release keeps its dots ("580.65.06"); anything else unsafe in a directory name
// becomes '-', and no component may start with '.' (no "..").
std::string release_component(const std::string& release) {
    std::string out;
    for (const char c : release) {
        const bool safe = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                          c == '.' || c == '-' || c == '_';
        out += safe ? c : '-';
    }
    const auto first = out.find_first_not_of(".-");
    if (first == std::string::npos) return {};
    out.erase(0, first);
    out.erase(out.find_last_not_of(".-") + 1);
    return out;
}

using detail::find_member;
using detail::string_or_empty;

// Distinct slugs of one per-device string, in device order, joined by "--" (a slug never
// contains "--", so the join stays readable both ways). "" when no device has a known value.
template <typename Read>
std::string per_device(const json& environment, Read read) {
    std::vector<std::string> values;
    for (std::size_t i = 0; i < described_device_count(environment); ++i) {
        std::string value = read(environment, i);
        value = store_slug(value == "unknown" ? std::string() : value);
        if (value.empty()) value = "unknown";
        if (std::find(values.begin(), values.end(), value) == values.end()) values.push_back(value);
    }
    if (values.empty() || (values.size() == 1 && values[0] == "unknown")) return {};
    std::string joined;
    for (const std::string& v : values) joined += (joined.empty() ? "" : "--") + v;
    return joined;
}

// A folder name Windows reserves for a device (CON, PRN, AUX, NUL, COM0-9, LPT0-9, in any case,
// alone or before a '.': "nul.1" too) gets a '_' after the reserved part: "con" -> "con_",
// "NUL.1" -> "NUL_.1". pinreport's environment.windows_safe() agrees (the store-key fixture).
std::string windows_safe_component(const std::string& component) {
    const std::string base = component.substr(0, component.find('.'));
    std::string lower;
    for (const char c : base) lower += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
    const bool numbered = lower.size() == 4 && (lower.rfind("com", 0) == 0 || lower.rfind("lpt", 0) == 0) &&
                          lower[3] >= '0' && lower[3] <= '9';
    if (!numbered && lower != "con" && lower != "prn" && lower != "aux" && lower != "nul") return component;
    return base + "_" + component.substr(base.size());
}

std::string or_unknown(const std::string& value, const char* field) {
    return value.empty() ? std::string("unknown-") + field : value;
}

// Replayed contents: a results file of the replay backend, or any document whose environment says
// replayed (a relabelled record: docs/replay.md). A budget has no backend ("" here).
bool is_replayed(const std::string& backend, const json& environment) {
    const json* replayed = find_member(environment, "replayed");
    return backend == "replay" || (replayed && replayed->is_boolean() && replayed->get<bool>());
}

std::string file_stamp(const std::string& started_at) {
    const auto t = store_detail::parse_utc_timestamp(started_at);
    return t ? store_detail::format_utc_timestamp(*t, /*compact=*/true) : std::string("unknown-started-at");
}

std::string key_text(const StoreKey& k) {
    return k.platform + "/" + k.driver_model + "/" + k.gpu + "/" + k.gpu_count + "/" + k.release;
}

// The one function that builds a stored file's place: NS/platform/model/gpu/<n>gpu/release/name,
// the name <time>-<hash>.json.gz (the hash of the uncompressed bytes).
fs::path stored_path(bool replay, const StoreKey& k, const std::string& stamp, const std::string& hash,
                     DocumentKind kind) {
    return fs::path(replay ? replay_namespace : real_namespace) / path_from_utf8(k.platform) /
           path_from_utf8(k.driver_model) / path_from_utf8(k.gpu) / path_from_utf8(k.gpu_count) /
           path_from_utf8(k.release) / path_from_utf8(stamp + "-" + hash + suffix_of(kind));
}

// A key part is a folder name. The driver release is kept as written (its dots): one that cannot
// be a file name as written (a separator, a control character) is refused, not rewritten; and no
// part may be longer than a file name (255 bytes: "File name too long" was exit 3). InputError.
void check_key_names(const json& environment, const StoreKey& key, const std::string& path) {
    const std::string release = driver_release_of(environment);
    for (const char c : release) {
        const auto u = static_cast<unsigned char>(c);
        if (u < 0x20 || u == 0x7f || c == '/' || c == '\\') {
            throw InputError(path + ": the driver release '" + terminal_text(release) +
                             "' cannot name a store folder (it holds a separator or a control character); "
                             "not stored");
        }
    }
    for (const std::string* part :
         {&key.platform, &key.driver_model, &key.gpu, &key.gpu_count, &key.release}) {
        if (part->size() > 255) {
            throw InputError(path + ": the store folder '" + terminal_text(part->substr(0, 40)) +
                             "...' would be " + std::to_string(part->size()) +
                             " bytes, longer than a file name may be (255); not stored");
        }
    }
}

// What an entry of a store is when it is not a regular file (lstat: a link is not followed).
std::string kind_of(fs::file_type type) {
    switch (type) {
        case fs::file_type::symlink:
            return "a symbolic link";
        case fs::file_type::fifo:
            return "a FIFO";
        case fs::file_type::socket:
            return "a socket";
        case fs::file_type::character:
            return "a character device";
        case fs::file_type::block:
            return "a block device";
        case fs::file_type::directory:
            return "a directory";
        case fs::file_type::regular:
            return "a regular file";
        default:
            return "not a regular file";
    }
}

// The uncompressed bytes of one stored file (.json.gz decompressed, .json as it is). The entry is
// looked at first and never opened unless it is a regular file: a FIFO would block the reader, a
// link could lead out of the store.
std::string read_stored_bytes(const std::string& path) {
    std::error_code ec;
    const fs::file_status status = fs::symlink_status(path_from_utf8(path), ec);
    if (ec) throw InputError(path + ": cannot read: " + ec.message());
    if (status.type() != fs::file_type::regular) {
        throw InputError(path + ": " + kind_of(status.type()) + ", not a stored file (never opened)");
    }
    std::string bytes;
    try {
        bytes = read_file(path);
    } catch (const SystemError& e) {
        throw InputError(std::string("cannot read stored file: ") + e.what());
    }
    if (!ends_with(path, ".gz")) return bytes;
    try {
        return store_detail::gzip_decompress(bytes);
    } catch (const InputError& e) {
        throw InputError(path + ": " + e.what());
    }
}

// The folders of a stored file's place (relative to the store), as add() is about to create and
// write them: each one there already is a directory, never a link (a store never follows one out
// of itself: docs/store.md) nor a file. Throws InputError naming the first that is not.
void check_store_folders(const fs::path& root, const fs::path& relative_dir) {
    fs::path at = root;
    for (const fs::path& part : relative_dir) {
        at /= part;
        std::error_code ec;
        const fs::file_type type = fs::symlink_status(at, ec).type();
        if (type == fs::file_type::not_found) return;  // created by add()
        if (ec) throw SystemError("cannot look at '" + utf8_of(at) + "': " + ec.message());
        if (type != fs::file_type::directory) {
            throw InputError(utf8_of(at) + ": " + kind_of(type) +
                             " where the store has a folder (a store never follows a link out of "
                             "itself: docs/store.md); nothing was written");
        }
    }
}

// An error of creating a store's folder that says the store may not be written there (read-only,
// another owner's, a file in the way): refused before anything was written, exit 2. Anything
// else is a failed write (exit 3).
[[noreturn]] void throw_cannot_create(const std::string& what, const std::error_code& ec) {
    const std::string message = "cannot create " + what + ": " + ec.message();
    if (ec == std::errc::permission_denied || ec == std::errc::operation_not_permitted ||
        ec == std::errc::read_only_file_system || ec == std::errc::not_a_directory ||
        ec == std::errc::file_exists || ec == std::errc::filename_too_long) {
        throw InputError(message + "; nothing was written");
    }
    throw SystemError(message);
}

// The top-level measurement_id of a results file's bytes, decoded as JSON decodes it (escapes
// in the key or the value: "m-\u0061" is "m-a"), read up to that member only; "" when it has
// none or is no JSON. What add() compares a stored file's identity by before it reads it whole
// (a search of the bytes for the id missed an escaped one: two files then carried one id).
class MeasurementIdReader : public nlohmann::json_sax<json> {
public:
    std::string id;
    bool null() override { return value(); }
    bool boolean(bool) override { return value(); }
    bool number_integer(number_integer_t) override { return value(); }
    bool number_unsigned(number_unsigned_t) override { return value(); }
    bool number_float(number_float_t, const string_t&) override { return value(); }
    bool string(string_t& s) override {
        if (depth_ == 1 && at_id_) {
            id = s;
            return false;  // found: stop reading
        }
        return value();
    }
    bool binary(binary_t&) override { return value(); }
    bool start_object(std::size_t) override { return open(); }
    bool key(string_t& k) override {
        at_id_ = depth_ == 1 && k == "measurement_id";
        return true;
    }
    bool end_object() override { return close(); }
    bool start_array(std::size_t) override { return open(); }
    bool end_array() override { return close(); }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
        return false;
    }

private:
    bool value() {
        if (depth_ == 1 && at_id_) return false;  // not a string: no id
        return true;
    }
    bool open() {
        if (depth_ == 1 && at_id_) return false;
        ++depth_;
        return true;
    }
    bool close() {
        --depth_;
        return true;
    }
    int depth_ = 0;
    bool at_id_ = false;
};

std::string decoded_measurement_id(const std::string& bytes) {
    MeasurementIdReader reader;
    (void)json::sax_parse(bytes, &reader);
    return reader.id;
}

// A document the store files: a results file or a budget document, read and checked by its own
// reader (results_from_json, budget_from_json), with the facts every rule of the store asks of
// either kind in one place: the environment the key comes from (the one key function,
// store_key_of), when it started, how far it got, and its identity.
struct LoadedDocument {
    std::string bytes;
    json parsed;  // the document as parsed: equal for two formattings of the same data
    DocumentKind kind = DocumentKind::results;
    ResultsDocument doc;  // a results file's (kind results)
    std::string backend;  // "cuda" or "replay"; "" for a budget
    std::string started_at;
    bool complete = false;
    std::size_t runs = 0;  // a results file's runs (how far an interrupted one got)
    json environment;
    std::string measurement_id;  // "" when the file has none (results schema 1 and 2, budgets)
    std::string identity;        // document_identity()

    bool replayed() const { return is_replayed(backend, environment); }
    StoreKey key() const { return store_key_of(environment); }  // the key, from either kind
};

// What identifies one budget measurement: "budget-" + XXH3-64 of "budget\n" + started_at (a
// budget document has no measurement_id and no nonces; one machine measures one budget at a
// time). pinreport's store.measurement_id() agrees.
std::string budget_identity(const std::string& started_at) {
    const std::string text = "budget\n" + started_at;
    return "budget-" + hex16(XXH3_64bits(text.data(), text.size()));
}

LoadedDocument parse_loaded(std::string bytes, const std::string& path);

// Like load_results, but keeps the bytes: the store files them unchanged.
LoadedDocument load_results_bytes(const std::string& path) {
    std::string bytes;
    try {
        bytes = read_file(path);
    } catch (const SystemError& e) {
        throw InputError(std::string("cannot read results file: ") + e.what());
    }
    return parse_loaded(std::move(bytes), path);
}

// A stored file, decompressed (read_stored_bytes), as load_results_bytes reads a results file.
LoadedDocument load_stored(const std::string& path) { return parse_loaded(read_stored_bytes(path), path); }

LoadedDocument parse_loaded(std::string bytes, const std::string& path) {
    LoadedDocument loaded;
    loaded.bytes = std::move(bytes);
    // Strict JSON (json/json_reader.hpp): the store refuses what pinreport refuses (BOM,
    // duplicate keys, NaN, 10^400, ...), with a one-line message naming the file.
    json j;
    try {
        j = detail::parse_strict_json(loaded.bytes, path);
    } catch (const InputError& e) {
        throw InputError(one_line(e.what()));
    } catch (const json::exception& e) {
        const std::string text = e.what();
        const auto bracket = text.find("] ");
        throw InputError(path + ": invalid JSON: " +
                         one_line(bracket == std::string::npos ? text : text.substr(bracket + 2)));
    }
    try {
        if (is_budget_document(j)) {
            const BudgetDocument budget = budget_from_json(j, path);
            loaded.kind = DocumentKind::budget;
            loaded.started_at = budget.started_at;
            loaded.complete = budget.complete;
            loaded.environment = budget.environment;
            loaded.identity = budget_identity(budget.started_at);
        } else {
            loaded.doc = results_from_json(j, path);
            loaded.backend = loaded.doc.backend;
            loaded.started_at = loaded.doc.started_at;
            loaded.complete = loaded.doc.complete;
            loaded.runs = loaded.doc.runs.size();
            loaded.environment = loaded.doc.environment;
            loaded.measurement_id = string_or_empty(j, "measurement_id");
            loaded.identity = measurement_identity(j);
        }
    } catch (const InputError& e) {
        throw InputError(one_line(e.what()));
    } catch (const json::exception& e) {
        throw InputError(path + ": " + one_line(e.what()));
    }
    loaded.parsed = std::move(j);
    return loaded;
}

// A results file as the store keeps it: in the current results version. An older one is stored
// as `pinbench results upgrade` writes it (results_from_json rebuilt its samples already), so
// every stored night reads as this version; a current one keeps its bytes. A budget document
// keeps its bytes: its readers read every budget version (budget_document.hpp).
void as_current_version(LoadedDocument& loaded) {
    if (loaded.kind != DocumentKind::results || loaded.doc.schema_version >= results_schema_version) return;
    loaded.bytes = to_json(loaded.doc).dump(1) + "\n";
    loaded.parsed = json::parse(loaded.bytes);
    loaded.doc.schema_version = results_schema_version;
}

// Reads store.json and returns its version; throws InputError naming it when it is not a store
// file this build reads (versions 1 to 3: version 1 names files by FNV-1a, versions 1 and 2 store
// them uncompressed; all of those are still read).
int check_store_file(const std::string& path) {
    std::string text;
    try {
        text = read_file(path);
    } catch (const SystemError& e) {
        throw InputError(std::string("cannot read store file: ") + e.what());
    }
    const json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) throw InputError(path + ": not valid JSON");
    const std::string schema = string_or_empty(j, "schema");
    if (schema != store_schema_name) {
        throw InputError(path + ": not a pinbench store file (schema is " +
                         (schema.empty() ? std::string("missing") : "\"" + schema + "\"") + ", expected \"" +
                         store_schema_name + "\")");
    }
    const json* version = find_member(j, "schema_version");
    if (!version || !version->is_number_integer()) {
        throw InputError(path + ": schema_version: missing or not an integer");
    }
    const std::int64_t v = version->get<std::int64_t>();
    if (v < store_schema_oldest_version || v > store_schema_version) {
        throw InputError(path + ": store schema version " + std::to_string(v) +
                         " is not supported (this build reads versions " +
                         std::to_string(store_schema_oldest_version) + " to " +
                         std::to_string(store_schema_version) + ")");
    }
    return static_cast<int>(v);
}

void write_store_file(const std::string& path) {
    const json header = {{"schema", store_schema_name}, {"schema_version", store_schema_version}};
    write_file_atomically(path, header.dump(2) + "\n");
}

// write_file_atomically's temporaries are "<name>.tmp.<pid>.<random>". One is stale when it is
// older than `age` and its writer's process is gone from this host: a killed `store add`.
bool stale_temporary(const fs::path& path, std::chrono::seconds age) {
    const std::string name = utf8_of(path.filename());
    const auto at = name.rfind(".tmp.");
    if (at == std::string::npos) return false;
    const std::string rest = name.substr(at + 5);
    const auto dot = rest.find('.');
    if (dot == std::string::npos || dot == 0 || dot > 10) return false;
    std::uint64_t pid = 0;
    for (std::size_t i = 0; i < dot; ++i) {
        if (rest[i] < '0' || rest[i] > '9') return false;
        pid = pid * 10 + static_cast<std::uint64_t>(rest[i] - '0');
    }
    if (pid == 0 || pid > 0xffffffffull) return false;
    std::error_code ec;
    const auto written = fs::last_write_time(path, ec);
    if (ec || fs::file_time_type::clock::now() - written < age) return false;
    return store_detail::process_liveness(static_cast<std::uint32_t>(pid)) == store_detail::Liveness::gone;
}

// Deletes the stale temporaries (stale_temporary) in the store's root and in every directory of
// its namespaces. Called by add() under the lock; returns how many it removed.
int remove_stale_temporaries(const fs::path& root, std::chrono::seconds age) {
    int removed = 0;
    std::vector<fs::path> stale;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(root, ec)) {
        std::error_code type_ec;
        if (e.is_regular_file(type_ec) && stale_temporary(e.path(), age)) stale.push_back(e.path());
    }
    for (const char* ns : {real_namespace, replay_namespace}) {
        std::error_code walk_ec;
        if (!fs::is_directory(root / ns, walk_ec)) continue;
        fs::recursive_directory_iterator it(root / ns, walk_ec), end;
        for (; !walk_ec && it != end; it.increment(walk_ec)) {
            std::error_code type_ec;
            if (it->is_regular_file(type_ec) && stale_temporary(it->path(), age)) stale.push_back(it->path());
        }
    }
    for (const fs::path& p : stale) {
        std::error_code rm_ec;
        if (fs::remove(p, rm_ec)) ++removed;
    }
    return removed;
}

// How far a results file got: complete, else the number of runs it holds (docs/results-schema.md:
// an interrupted file may lack planned runs). A resumed file that finished more replaces its partial.
bool more_finished(const LoadedDocument& a, const LoadedDocument& b) {
    if (a.complete != b.complete) return a.complete;
    return a.runs > b.runs;
}

// Fills `entry` from its place in the store; false (and entry.problem) when the place is wrong.
bool entry_from_place(const fs::path& relative, StoredEntry& entry) {
    std::vector<std::string> parts;
    for (const auto& part : relative) parts.push_back(utf8_of(part));
    if (parts.size() != 7) {
        entry.problem = "not where a stored file belongs (" + parts[0] +
                        "/<platform>/<driver model>/<gpu>/<n>gpu/<release>/<time>-<hash>.json)";
        return false;
    }
    entry.key = StoreKey{parts[1], parts[2], parts[3], parts[4], parts[5]};
    const std::string& name = parts[6];
    entry.kind = ends_with(name, budget_suffix) ? DocumentKind::budget : DocumentKind::results;
    const std::string suffix = entry.kind == DocumentKind::budget   ? budget_suffix
                               : ends_with(name, compressed_suffix) ? compressed_suffix
                                                                    : plain_suffix;
    const std::size_t tail = 1 + hash_digits + suffix.size();
    if (name.size() <= tail || name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0 ||
        name[name.size() - tail] != '-') {
        entry.problem = "file name is not <time>-<hash>.json.gz (or .json, or .budget.json.gz)";
        return false;
    }
    entry.started_at = name.substr(0, name.size() - tail);
    entry.hash = name.substr(name.size() - tail + 1, hash_digits);
    return true;
}

// Reads one stored file and records in entry.problem the first thing wrong with it.
void check_entry(StoredEntry& entry) {
    LoadedDocument loaded;
    try {
        loaded = load_stored(entry.path);
    } catch (const InputError& e) {
        entry.problem = e.what();
        return;
    } catch (const std::exception& e) {  // anything else the reader throws is this file's problem too
        entry.problem = one_line(e.what());
        return;
    }
    const bool replayed = loaded.replayed();
    const bool under_replay = entry.replay;
    entry.replay = entry.replay || replayed;  // replayed contents are never real, wherever they sit
    const std::string noun = noun_of(loaded.kind);
    if (loaded.kind != entry.kind) {
        entry.problem = entry.kind == DocumentKind::budget
                            ? "a results file under the name of a budget document (.budget.json.gz)"
                            : "a budget document under the name of a results file";
    } else if (produced_by_test_double(loaded.environment)) {
        entry.problem = noun + " of the pinbench test-double driver: never a baseline";
    } else if (replayed && !under_replay) {
        entry.problem =
            "replayed " + noun + " under " + std::string(real_namespace) + "/: never a real baseline";
    } else if (!replayed && under_replay) {
        entry.problem = "measured " + noun + " under " + std::string(replay_namespace) + "/";
    } else if (const StoreKey key = loaded.key(); !(key == entry.key)) {
        entry.problem = "filed under " + key_text(entry.key) + " but its environment gives " + key_text(key);
    } else if (!hash_matches(loaded.bytes, entry.hash)) {
        entry.problem = "contents do not match the hash in its name (changed after it was stored)";
    } else if (file_stamp(loaded.started_at) != entry.started_at) {
        entry.problem = "started_at " + loaded.started_at + " does not match its name";
    }
}

}  // namespace

std::string store_slug(const std::string& text) {
    std::string out;
    bool dash = false;
    for (const char raw : text) {
        const char c = (raw >= 'A' && raw <= 'Z') ? static_cast<char>(raw - 'A' + 'a') : raw;
        if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) {
            if (dash && !out.empty()) out += '-';
            out += c;
            dash = false;
        } else {
            dash = true;
        }
    }
    return out;
}

StoreKey store_key_of(const json& environment) {
    StoreKey key;
    const std::string platform = store_slug(platform_of(environment));
    key.platform = or_unknown(platform == "unknown" ? "" : platform, "platform");
    key.driver_model = or_unknown(per_device(environment, driver_model_of), "driver-model");
    key.gpu = or_unknown(per_device(environment, device_name_of), "gpu");
    const std::optional<std::int64_t> count = cuda_device_count_of(environment);
    key.gpu_count = count && *count >= 0 ? std::to_string(*count) + "gpu" : "unknown-gpu-count";
    key.release = or_unknown(release_component(driver_release_of(environment)), "release");
    for (std::string* part : {&key.platform, &key.driver_model, &key.gpu, &key.gpu_count, &key.release}) {
        *part = windows_safe_component(*part);
    }
    return key;
}

std::string measurement_identity(const json& results) {
    std::string given = string_or_empty(results, "measurement_id");
    if (!given.empty()) return given;
    std::vector<std::string> nonces;
    if (const json* runs = find_member(results, "runs"); runs && runs->is_array()) {
        for (const json& run : *runs) {
            const json* repeats = find_member(run, "repeats");
            if (!repeats || !repeats->is_array()) continue;
            for (const json& r : *repeats) nonces.push_back(string_or_empty(r, "nonce"));
        }
    }
    std::sort(nonces.begin(), nonces.end());
    const std::string backend = string_or_empty(results, "backend");
    std::string text = string_or_empty(results, "started_at") + "\n" + (backend.empty() ? "cuda" : backend);
    for (const std::string& n : nonces) text += "\n" + n;
    return "derived-" + hex16(XXH3_64bits(text.data(), text.size()));
}

namespace {

// "--store ''" names no directory (it read as the current one's parent on some paths, and ended
// in a raw filesystem error, exit 3).
void check_store_dir_named(const std::string& dir) {
    if (dir.empty()) throw InputError("the store directory is an empty path; name a directory (--store DIR)");
}

// A --store longer than the system takes (PATH_MAX, or a part past 255 bytes) is bad input, exit
// 2 (it was a failure of the machine, exit 3).
void check_store_dir_length(const std::string& dir, const std::error_code& ec) {
    if (ec == std::errc::filename_too_long) {
        throw InputError("the store directory '" + terminal_text(dir.substr(0, 60)) + "...' (" +
                         std::to_string(dir.size()) +
                         " bytes) is longer than a path may be here: " + ec.message());
    }
}

}  // namespace

Store Store::open(const std::string& dir) {
    check_store_dir_named(dir);
    const fs::path root = path_from_utf8(dir);
    std::error_code ec;
    const fs::file_status status = fs::status(root, ec);
    check_store_dir_length(dir, ec);
    if (status.type() == fs::file_type::not_found) return Store(dir);  // add() creates it
    if (ec) throw SystemError("cannot look at store directory '" + dir + "': " + ec.message());
    if (status.type() != fs::file_type::directory) throw InputError(dir + ": not a directory");
    if (fs::exists(root / "store.json", ec)) {
        check_store_file(utf8_of(root / "store.json"));
        return Store(dir);
    }
    // Never turn an unrelated directory into a store: one that holds anything but another
    // opener's temporary file is refused here already, before any results file is read.
    for (const auto& e : fs::directory_iterator(root, ec)) {
        std::error_code look_ec;  // store.json may have appeared meanwhile: another opener's store
        if (utf8_of(e.path().filename()).rfind("store.json.tmp.", 0) != 0 &&
            !fs::exists(root / "store.json", look_ec)) {
            throw InputError(dir +
                             ": not a pinbench store (no store.json) and not empty; nothing was written");
        }
    }
    if (ec) throw SystemError("cannot list store directory '" + dir + "': " + ec.message());
    return Store(dir);
}

Store Store::open_existing(const std::string& dir) {
    check_store_dir_named(dir);
    const fs::path root = path_from_utf8(dir);
    std::error_code ec;
    const fs::file_status status = fs::status(root, ec);
    check_store_dir_length(dir, ec);
    if (status.type() == fs::file_type::not_found) {
        throw InputError(dir + ": no such store (the directory does not exist)");
    }
    if (ec) throw SystemError("cannot look at store directory '" + dir + "': " + ec.message());
    if (status.type() != fs::file_type::directory) throw InputError(dir + ": not a directory");
    if (!fs::exists(root / "store.json", ec)) {
        throw InputError(dir + ": not a pinbench store (no store.json)");
    }
    check_store_file(utf8_of(root / "store.json"));
    return Store(dir);
}

namespace {

// Makes the store directory and its store.json when absent (the first add). Many writers may do
// this at once: an opener writes nothing but store.json (through store.json.tmp.*) before it
// exists, so a directory that holds anything else is looked at again: if store.json has
// appeared meanwhile, it is a store another opener has just made.
void create_if_absent(const std::string& dir) {
    const fs::path root = path_from_utf8(dir);
    std::error_code ec;
    fs::create_directories(root, ec);
    if (ec) throw_cannot_create("store directory '" + dir + "'", ec);
    const std::string store_file = utf8_of(root / "store.json");
    if (fs::exists(root / "store.json", ec)) return;
    bool foreign = false;
    for (const auto& e : fs::directory_iterator(root, ec)) {
        if (utf8_of(e.path().filename()).rfind("store.json.tmp.", 0) != 0) foreign = true;
    }
    if (ec) throw SystemError("cannot list store directory '" + dir + "': " + ec.message());
    if (foreign) {
        if (fs::exists(root / "store.json", ec)) return;
        throw InputError(dir + ": not a pinbench store (no store.json) and not empty; nothing was written");
    }
    write_store_file(store_file);
}

// Why a file says complete: false, as the file records it: a signal (interrupted), no device
// (controls.skipped: nothing was measured), or neither, when it is still being written or its
// run was killed outright (SIGKILL leaves no record).
std::string why_incomplete(const ResultsDocument& doc) {
    if (doc.interrupted.is_object()) {
        return "the run was interrupted by " +
               terminal_text(doc.interrupted.value("signal", std::string("a signal"))) +
               "; pinbench run --resume continues it";
    }
    if (doc.controls.is_object() && doc.controls.contains("skipped") && doc.controls["skipped"].is_string()) {
        return "nothing was measured: " + terminal_text(doc.controls["skipped"].get<std::string>());
    }
    if (doc.finished_at.empty()) {
        return "the run is still being written, or was killed before it could record why";
    }
    return "the run did not finish, and records no interruption";
}

}  // namespace

StoredEntry Store::add(const std::string& results_path, const StoreAddOptions& options) const {
    LoadedDocument loaded = load_results_bytes(results_path);
    const std::string noun = noun_of(loaded.kind);
    if (!loaded.complete && !options.allow_incomplete) {
        const std::string why =
            loaded.kind == DocumentKind::budget ? "the search was interrupted" : why_incomplete(loaded.doc);
        throw InputError(results_path + ": incomplete " + noun + " (" + why + "); not stored");
    }
    // Like a replay, the test double measured nothing; unlike a replay, nothing keeps its results.
    if (produced_by_test_double(loaded.environment)) {
        throw InputError(
            results_path + ": " + noun + " of the pinbench test-double driver (driver release '" +
            driver_release_of(loaded.environment) + "'): never a measurement nor a baseline; not stored");
    }

    as_current_version(loaded);

    StoredEntry entry;
    entry.kind = loaded.kind;
    entry.replay = loaded.replayed();
    entry.key = loaded.key();
    check_key_names(loaded.environment, entry.key, results_path);
    entry.started_at = file_stamp(loaded.started_at);
    entry.hash = content_hash(loaded.bytes);
    const fs::path relative = stored_path(entry.replay, entry.key, entry.started_at, entry.hash, entry.kind);
    const fs::path target = path_from_utf8(dir_) / relative;
    entry.relative_path = generic_utf8_of(relative);
    entry.path = utf8_of(target);

    const fs::path root = path_from_utf8(dir_);
    create_if_absent(dir_);  // only now, with a valid results file in hand
    const store_detail::StoreLock lock = store_detail::StoreLock::acquire(dir_, options.lock);
    remove_stale_temporaries(root, options.lock.stale_after);
    // A version-1 or 2 store becomes version 3 with its first add: its files keep their names
    // and plain bytes, which list() and pinreport still read; an older reader then refuses the
    // store instead of calling the new compressed files corrupt.
    const std::string store_file = utf8_of(root / "store.json");
    if (check_store_file(store_file) < store_schema_version) write_store_file(store_file);
    std::error_code ec;
    check_store_folders(root, relative.parent_path());
    fs::create_directories(target.parent_path(), ec);
    if (ec) throw_cannot_create("'" + utf8_of(target.parent_path()) + "'", ec);
    if (fs::exists(target, ec)) {
        // Same name, same bytes: this file is stored already. Different bytes: refuse, never replace.
        std::string stored;
        try {
            stored = read_stored_bytes(entry.path);
        } catch (const InputError&) {
        }
        if (stored != loaded.bytes) {
            throw SystemError(entry.path +
                              ": already holds other contents under the same name (hash clash); " +
                              results_path + " was not stored");
        }
        entry.already_stored = true;
        return entry;
    }

    // The same measurement under another name (other formatting, line ends, key order, or a
    // partial of it): files of the same key whose bytes contain its measurement_id, or (no id:
    // the identity starts with started_at) whose names start with the same time.
    const std::string& identity = loaded.identity;
    const std::string& id = loaded.measurement_id;
    std::vector<std::pair<fs::path, LoadedDocument>> same;
    for (const auto& e : fs::directory_iterator(target.parent_path(), ec)) {
        std::error_code type_ec;
        const std::string name = utf8_of(e.path().filename());
        // Only regular files (a FIFO or a link is list()'s to report, never opened here).
        if (e.symlink_status(type_ec).type() != fs::file_type::regular ||
            name.find(".tmp.") != std::string::npos ||
            ends_with(name, budget_suffix) != (loaded.kind == DocumentKind::budget)) {
            continue;  // a document of the other kind is never the same measurement
        }
        if (id.empty() && name.rfind(entry.started_at + "-", 0) != 0) continue;
        try {
            std::string bytes = read_stored_bytes(utf8_of(e.path()));
            if (!id.empty() && decoded_measurement_id(bytes) != id) continue;
            LoadedDocument other = parse_loaded(std::move(bytes), utf8_of(e.path()));
            as_current_version(other);  // compared as stored now: in the current version
            if (other.identity == identity) same.emplace_back(e.path(), std::move(other));
        } catch (const InputError&) {
            // An unreadable stored file is list()'s to report; it is no copy of this one.
        } catch (const SystemError&) {
        }
    }
    if (ec) throw SystemError("cannot list '" + utf8_of(target.parent_path()) + "': " + ec.message());
    // One measurement, one set of data: two complete files with its id that differ in their data
    // (not merely in formatting) are a conflict, refused naming both, never "already stored".
    for (const auto& [path, other] : same) {
        if (loaded.complete && other.complete && loaded.parsed != other.parsed) {
            throw InputError(results_path + ": measurement " + one_line(identity) + " is stored already as " +
                             utf8_of(path) + " with other data (a conflict); not stored");
        }
    }
    for (const auto& [path, other] : same) {
        if (!more_finished(loaded, other)) {  // stored already, as far or further
            entry.already_stored = true;
            entry.relative_path = generic_utf8_of(path.lexically_relative(root));
            entry.path = utf8_of(path);
            return entry;
        }
    }
    // Every stored copy is a partial that finished less: the new file replaces them (one night,
    // never two). Written first, then the partials go: a crash in between leaves both, and
    // readers keep the one that finished more. Never over the file being added (the rule of
    // every output: pinbench/platform/output_target.hpp).
    check_output_target(entry.path, OutputInputs{{results_path}, {}});
    write_file_atomically(entry.path, store_detail::gzip_compress(loaded.bytes));
    for (const auto& [path, other] : same) {
        std::error_code rm_ec;
        fs::remove(path, rm_ec);
        if (rm_ec) {
            throw SystemError("cannot remove the replaced partial '" + utf8_of(path) +
                              "': " + rm_ec.message());
        }
        entry.replaced.push_back(generic_utf8_of(path.lexically_relative(root)));
    }
    return entry;
}

StoreUpgrade Store::upgrade(const StoreLockOptions& lock_options) const {
    const fs::path root = path_from_utf8(dir_);
    const store_detail::StoreLock lock = store_detail::StoreLock::acquire(dir_, lock_options);
    StoreUpgrade out;
    bool wrote = false;
    for (const StoredEntry& entry : list()) {
        if (!entry.problem.empty()) {
            out.problems.push_back(entry);
            continue;
        }
        if (entry.kind == DocumentKind::budget) continue;  // kept as it is (as_current_version)
        LoadedDocument loaded = load_stored(entry.path);
        if (loaded.doc.schema_version >= results_schema_version) {
            ++out.current;
            continue;
        }
        as_current_version(loaded);
        const fs::path relative = stored_path(entry.replay, entry.key, entry.started_at,
                                              content_hash(loaded.bytes), DocumentKind::results);
        const fs::path target = root / relative;
        std::error_code ec;
        if (fs::exists(target, ec)) {
            // A crash after the write, before the removal: the current version is there already.
            std::string stored;
            try {
                stored = read_stored_bytes(utf8_of(target));
            } catch (const InputError&) {
            }
            if (stored != loaded.bytes) {
                throw SystemError(utf8_of(target) +
                                  ": already holds other contents under the same name (hash clash); " +
                                  entry.path + " was not upgraded");
            }
        } else {
            if (!wrote && check_store_file(utf8_of(root / "store.json")) < store_schema_version) {
                write_store_file(utf8_of(root / "store.json"));  // its files are compressed from now on
            }
            write_file_atomically(utf8_of(target), store_detail::gzip_compress(loaded.bytes));
            wrote = true;
        }
        fs::remove(path_from_utf8(entry.path), ec);
        if (ec) throw SystemError("cannot remove the upgraded '" + entry.path + "': " + ec.message());
        out.rewritten.push_back({entry.relative_path, generic_utf8_of(relative)});
    }
    return out;
}

namespace {

// One directory of a namespace and everything below it, in list()'s order of rules. Every entry
// is looked at without following links (symlink_status) and reported unless it is a directory of
// the layout or a regular file: a FIFO, a socket, a device, a link (a loop included) or a
// directory where a stored file belongs is a problem, never opened. A directory that cannot be
// read (permission denied) is named as its own problem and the walk goes on: one bad entry never
// fails the listing.
void walk_namespace(const fs::path& root, const fs::path& dir, bool replay, bool real_only,
                    std::vector<StoredEntry>& entries) {
    const auto entry_at = [&](const fs::path& path) {
        StoredEntry entry;
        entry.replay = replay;
        entry.path = utf8_of(path);
        entry.relative_path = generic_utf8_of(path.lexically_relative(root));
        return entry;
    };
    std::error_code ec;
    std::vector<fs::path> children;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        children.push_back(it->path());
    }
    if (ec) {
        StoredEntry entry = entry_at(dir);
        entry.problem = "a directory that cannot be read (" + ec.message() + ")";
        entries.push_back(std::move(entry));
        return;
    }
    for (const fs::path& path : children) {
        std::error_code type_ec;
        const fs::file_type type = fs::symlink_status(path, type_ec).type();
        if (type_ec) continue;  // removed since the listing
        const std::string name = utf8_of(path.filename());
        const fs::path relative = path.lexically_relative(root);
        const auto depth = static_cast<std::size_t>(std::distance(relative.begin(), relative.end()));
        StoredEntry entry = entry_at(path);
        if (type == fs::file_type::directory) {
            // A directory of the layout (ns/platform/model/gpu/<n>gpu/release) is walked; one
            // named like a stored file, or deeper than the layout, is reported, not entered.
            if (depth < 7 && !ends_with(name, plain_suffix) && !ends_with(name, compressed_suffix)) {
                walk_namespace(root, path, replay, real_only, entries);
                continue;
            }
            entry.problem = "a directory, not a stored file";
        } else if (type != fs::file_type::regular) {
            entry.problem = kind_of(type) + ", not a stored file (never opened)";
        } else if (name.find(".tmp.") != std::string::npos) {
            continue;  // write_file_atomically's leftovers from a killed writer: never read
        } else if (entry_from_place(relative, entry)) {
            check_entry(entry);
        }
        if (!(real_only && entry.replay)) entries.push_back(std::move(entry));
    }
}

}  // namespace

ResultsDocument load_stored_results(const StoredEntry& entry) {
    if (entry.kind != DocumentKind::results) {
        throw InputError(entry.path + ": a budget document, not a results file");
    }
    return load_stored(entry.path).doc;
}

std::vector<StoredEntry> Store::list(bool real_only) const {
    const fs::path root = path_from_utf8(dir_);
    std::vector<StoredEntry> entries;
    for (const char* ns : {real_namespace, replay_namespace}) {
        const bool replay = ns == replay_namespace;
        if (replay && real_only) continue;
        std::error_code ec;
        // The namespace itself is looked at as every entry is: a link is never followed (a
        // `real` linked to /usr/share listed every file there), a file is no namespace.
        const fs::file_type ns_type = fs::symlink_status(root / ns, ec).type();
        if (ns_type == fs::file_type::not_found) continue;
        if (ns_type != fs::file_type::directory) {
            StoredEntry entry;
            entry.replay = replay;
            entry.path = utf8_of(root / ns);
            entry.relative_path = ns;
            entry.problem = kind_of(ns_type) + " where the store's " + std::string(ns) +
                            "/ directory belongs (never followed)";
            entries.push_back(std::move(entry));
            continue;
        }
        walk_namespace(root, root / ns, replay, real_only, entries);
    }
    std::sort(entries.begin(), entries.end(),
              [](const StoredEntry& a, const StoredEntry& b) { return a.relative_path < b.relative_path; });
    return entries;
}

}  // namespace pinbench
