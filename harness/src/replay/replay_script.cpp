// Replay scripts (docs/replay.md): YAML in, a validated ReplayScript out; then the pure
// transformations the replay backend applies to a real results file's repeats.
#include "pinbench/replay/replay_script.hpp"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <iomanip>
#include <iterator>
#include <limits>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string_view>

#include "pinbench/platform/atomic_file.hpp"
#include "pinbench/results/environment_record.hpp"
#include "pinbench/vocabulary/errors.hpp"
#include "pinbench/vocabulary/units.hpp"
#include "scenario/yaml_reader.hpp"

namespace pinbench {

namespace {

constexpr std::string_view baseline_label = "after_context";
constexpr std::string_view freed_label = "after_free";

bool is_probe_key(const std::string& probe) { return probe.find('.') != std::string::npos; }

bool is_timing_name(const std::string& name) {
    return name == "alloc" || name == "free" || name == "first_use" || name == "context" ||
           name == "first_touch" || name == "pin";
}

std::string join(std::initializer_list<std::string_view> words) {
    std::string out;
    for (auto w : words) out += (out.empty() ? "" : ", ") + std::string(w);
    return out;
}

// Parses one script; every error carries the position of the node it is about.
class ScriptParser {
public:
    explicit ScriptParser(std::string file) : yaml_(std::move(file), "a replay script") {}

    ReplayScript parse(const std::string& text) {
        const std::optional<YAML::Node> doc = yaml_.document(text);
        if (!doc || doc->IsNull()) {
            fail(YAML::Mark(), "empty replay script (expected a mapping with replay_script_version)");
        }
        const YAML::Node& root = *doc;
        ReplayScript script;
        script.path = yaml_.file();
        const auto top =
            entries(root, "replay script", {"replay_script_version", "relabel", "transforms", "inject"});
        const Entry& version = require(top, root, "replay script", "replay_script_version");
        const long long v = integer(version, "replay_script_version");
        if (v != replay_script_version) {
            fail(version.value_mark(), "replay_script_version " + std::to_string(v) +
                                           " is not supported (this build reads version " +
                                           std::to_string(replay_script_version) + ")");
        }
        if (const auto it = top.find("relabel"); it != top.end()) parse_relabel(it->second, script);
        if (const auto it = top.find("transforms"); it != top.end()) {
            for (const YAML::Node& t : sequence(it->second, "transforms")) {
                script.transforms.push_back(parse_transform(t));
            }
        }
        if (const auto it = top.find("inject"); it != top.end()) {
            for (const YAML::Node& i : sequence(it->second, "inject")) {
                script.injections.push_back(parse_injection(i));
            }
        }
        return script;
    }

private:
    using Entry = YamlField;
    using Entries = std::map<std::string, Entry>;

    [[noreturn]] void fail(const YAML::Mark& mark, const std::string& message) const {
        yaml_.fail(mark, message);
    }
    [[noreturn]] void fail(const YAML::Node& node, const std::string& message) const {
        yaml_.fail(node, message);
    }

    // A mapping's entries, each key at most once and only from `allowed`.
    Entries entries(const YAML::Node& map, const std::string& what,
                    std::initializer_list<std::string_view> allowed) const {
        if (!map.IsMap()) fail(map, what + ": expected a mapping");
        Entries out;
        for (YamlField& field : yaml_.fields(map, " in " + what)) {
            bool known = false;
            for (auto a : allowed) known = known || field.key == a;
            if (!known) {
                fail(field.key_node,
                     "unknown key '" + field.key + "' in " + what + " (expected " + join(allowed) + ")");
            }
            std::string name = field.key;
            out.emplace(std::move(name), std::move(field));
        }
        return out;
    }

    const Entry& require(const Entries& e, const YAML::Node& map, const std::string& what,
                         const std::string& key) const {
        const auto it = e.find(key);
        if (it == e.end()) fail(map, what + ": missing required key '" + key + "'");
        return it->second;
    }

    std::vector<YAML::Node> sequence(const Entry& e, const std::string& what) const {
        if (!e.value.IsSequence()) fail(e.value_mark(), what + ": expected a list");
        return {e.value.begin(), e.value.end()};
    }

    std::string text(const Entry& e, const std::string& what) const {
        if (!e.value.IsScalar() || e.value.Scalar().empty()) {
            fail(e.value_mark(), what + ": expected a non-empty string");
        }
        return e.value.Scalar();
    }

    long long integer(const Entry& e, const std::string& what) const {
        const ParsedScalar<long long> v = integer_scalar(e.value);
        if (!v.ok()) fail(e.value_mark(), what + ": expected an integer");
        return v.value;
    }

    double number(const Entry& e, const std::string& what) const {
        const ParsedScalar<double> v = number_scalar(e.value);
        if (!v.ok()) fail(e.value_mark(), what + ": expected a finite number");
        return v.value;
    }

    // An integer (may be negative) or a size string ("8MiB", "-8MiB").
    double bytes(const Entry& entry) const {
        const YAML::Node& node = entry.value;
        // Within +-(2^63 - 1024): the largest magnitude a double holds that converts back to int64.
        constexpr double limit = 9223372036854774784.0;
        if (const ParsedScalar<long long> v = integer_scalar(node); v.ok()) {
            if (std::fabs(static_cast<double>(v.value)) > limit) fail(node, "bytes: too large");
            return static_cast<double>(v.value);
        }
        std::string s = text(entry, "bytes");
        const bool negative = s.front() == '-';
        if (negative) s.erase(0, 1);
        std::uint64_t size = 0;
        try {
            size = parse_size(s);
        } catch (const std::invalid_argument& e) {
            fail(node, std::string("bytes: ") + e.what());
        }
        if (static_cast<double>(size) > limit) fail(node, "bytes: too large");
        const double value = static_cast<double>(size);
        return negative ? -value : value;
    }

    void parse_relabel(const Entry& entry, ReplayScript& script) {
        if (!entry.value.IsMap()) fail(entry.value_mark(), "relabel: expected a mapping");
        const auto e = entries(entry.value, "relabel", {"driver_release", "driver_model"});
        if (const auto it = e.find("driver_release"); it != e.end()) {
            script.driver_release = text(it->second, "driver_release");
        }
        if (const auto it = e.find("driver_model"); it != e.end()) {
            const std::string model = text(it->second, "driver_model");
            if (model != "WDDM" && model != "TCC" && model != "MCDM" && model != "linux") {
                fail(it->second.value,
                     "unknown driver_model '" + model + "' (expected WDDM, TCC, MCDM or linux)");
            }
            script.driver_model = model;
        }
    }

    ReplayTransform parse_transform(const YAML::Node& node) {
        const std::string what = "transform";
        const auto e = entries(node, what, {"op", "runs", "probe", "bytes", "ms", "factor", "data"});
        ReplayTransform t;
        const Entry& op = require(e, node, what, "op");
        const std::string op_name = text(op, "op");
        if (op_name == "offset") {
            t.op = ReplayTransform::Op::offset;
        } else if (op_name == "scale") {
            t.op = ReplayTransform::Op::scale;
        } else if (op_name == "set") {
            t.op = ReplayTransform::Op::set;
        } else {
            fail(op.value, "unknown op '" + op_name + "' (expected offset, scale or set)");
        }
        t.runs = text(require(e, node, what, "runs"), "runs");
        const auto misplaced = [&](const char* field, const std::string& why) {
            if (const auto it = e.find(field); it != e.end()) fail(it->second.key_node, why);
        };
        if (t.op == ReplayTransform::Op::set) {
            for (const char* field : {"probe", "bytes", "ms", "factor"}) {
                misplaced(field, std::string("op set takes data (repeat data fields), not ") + field);
            }
            parse_set_data(require(e, node, what, "data"), t);
            return t;
        }
        misplaced("data", "data is for op set");
        const Entry& probe = require(e, node, what, "probe");
        t.probe = text(probe, "probe");
        const bool key = is_probe_key(t.probe);
        if (key && describe_key(t.probe).direction == Direction::fixed) {
            fail(probe.value,
                 "probe '" + t.probe + "' is a capacity (total or budget): it has no cost to transform");
        }
        if (!key && !is_timing_name(t.probe)) {
            fail(probe.value, "unknown timing '" + t.probe +
                                  "' (expected alloc, free, first_use or context; a probe key contains '.')");
        }

        // Exactly the one value field that fits the op and the probe's kind.
        const Entry* value = nullptr;
        if (t.op == ReplayTransform::Op::scale) {
            misplaced("bytes", "bytes is for op offset; op scale takes factor");
            misplaced("ms", "ms is for op offset; op scale takes factor");
            value = &require(e, node, what, "factor");
            t.value = number(*value, "factor");
            if (t.value < 0) fail(value->value, "factor must not be negative");
        } else if (key) {
            misplaced("factor", "factor is for op scale; op offset takes bytes or ms");
            misplaced("ms", "ms offsets a timing; '" + t.probe + "' is a probe key (use bytes)");
            value = &require(e, node, what, "bytes");
            t.value = bytes(*value);
        } else {
            misplaced("factor", "factor is for op scale; op offset takes bytes or ms");
            misplaced("bytes", "bytes offsets a probe key; '" + t.probe + "' is a timing (use ms)");
            value = &require(e, node, what, "ms");
            t.value = number(*value, "ms");
        }
        const YAML::Mark mark = value->value_mark();
        t.where = {yaml_.file(), std::max(mark.line, 0) + 1, std::max(mark.column, 0) + 1};
        return t;
    }

    // set's data: field -> a size ("1536MiB", an integer of bytes, >= 0) or a boolean.
    void parse_set_data(const Entry& entry, ReplayTransform& t) {
        if (!entry.value.IsMap() || entry.value.size() == 0) {
            fail(entry.value_mark(), "data: expected a mapping of repeat data fields to sizes or booleans");
        }
        for (const YamlField& field : yaml_.fields(entry.value, " in data")) {
            if (field.key.empty()) fail(field.key_node, "data: keys must be plain names");
            const std::string& name = field.key;
            if (field.value.IsScalar() &&
                (field.value.Scalar() == "true" || field.value.Scalar() == "false")) {
                t.data[name] = field.value.Scalar() == "true";
                continue;
            }
            const double value = bytes(field);
            if (value < 0) fail(field.value, "data." + name + ": a size must not be negative");
            t.data[name] = static_cast<std::uint64_t>(value);
        }
    }

    ReplayInjection parse_injection(const YAML::Node& node) {
        const std::string what = "inject entry";
        const auto e =
            entries(node, what, {"what", "runs", "repeat", "attempts", "bytes", "ms", "process_lists"});
        ReplayInjection inj;
        const Entry& w = require(e, node, what, "what");
        const std::string name = text(w, "what");
        if (name == "crash") {
            inj.what = ReplayInjection::What::crash;
        } else if (name == "hang") {
            inj.what = ReplayInjection::What::hang;
        } else if (name == "cuda_error") {
            inj.what = ReplayInjection::What::cuda_error;
        } else if (name == "disturbance") {
            inj.what = ReplayInjection::What::disturbance;
        } else if (name == "slow") {
            inj.what = ReplayInjection::What::slow;
        } else {
            fail(w.value,
                 "unknown injection '" + name + "' (expected crash, hang, cuda_error, disturbance or slow)");
        }
        if (const auto it = e.find("ms"); it != e.end()) {
            if (inj.what != ReplayInjection::What::slow) {
                fail(it->second.value_mark(), "'ms' belongs to what: slow");
            }
            inj.ms = number(it->second, "ms");
            if (inj.ms < 0 || inj.ms > 600000) fail(it->second.value, "ms must be 0..600000");
        } else if (inj.what == ReplayInjection::What::slow) {
            fail(node, "inject entry: what: slow needs 'ms'");
        }
        const bool disturbance = inj.what == ReplayInjection::What::disturbance;
        for (const char* only : {"attempts", "bytes", "process_lists"}) {
            if (const auto it = e.find(only); it != e.end() && !disturbance) {
                fail(it->second.value_mark(), std::string("'") + only + "' belongs to what: disturbance");
            }
        }
        if (const auto it = e.find("attempts"); it != e.end()) {
            const long long a = integer(it->second, "attempts");
            if (a < 1 || a > 1000) {
                fail(it->second.value, "attempts must be 1..1000 (omit it: every attempt)");
            }
            inj.attempts = static_cast<int>(a);
        }
        if (const auto it = e.find("bytes"); it != e.end()) {
            const double b = bytes(it->second);
            if (b == 0) fail(it->second.value, "bytes: a disturbance moves memory (not 0)");
            inj.bytes = static_cast<std::int64_t>(b);
        }
        if (const auto it = e.find("process_lists"); it != e.end()) {
            const std::string v = text(it->second, "process_lists");
            if (v != "true" && v != "false") fail(it->second.value, "process_lists is true or false");
            inj.process_lists = v == "true";
        }
        inj.runs = text(require(e, node, what, "runs"), "runs");
        if (const auto it = e.find("repeat"); it != e.end()) {
            const long long r = integer(it->second, "repeat");
            if (r < 0 || r > std::numeric_limits<int>::max()) {
                fail(it->second.value, "repeat must be a repeat index >= 0");
            }
            inj.repeat = static_cast<int>(r);
        }
        return inj;
    }

    YamlReader yaml_;
};

// Checked arithmetic on readings (a replay script may ask for any 64-bit number): nullopt where
// the exact result does not fit.
std::optional<std::int64_t> checked_add(std::int64_t a, std::int64_t b) {
    constexpr std::int64_t max = std::numeric_limits<std::int64_t>::max();
    constexpr std::int64_t min = std::numeric_limits<std::int64_t>::min();
    if ((b > 0 && a > max - b) || (b < 0 && a < min - b)) return std::nullopt;
    return a + b;
}

std::optional<std::int64_t> rounded_int64(double v) {
    constexpr double limit = 9223372036854775808.0;  // 2^63
    if (!std::isfinite(v) || v < -limit || v >= limit) return std::nullopt;
    return static_cast<std::int64_t>(std::llround(v));
}

std::string op_name(const ReplayTransform& t) {
    return t.op == ReplayTransform::Op::offset ? "offset" : "scale";
}

std::string number_text(double v) {
    if (std::nearbyint(v) == v && std::fabs(v) <= 9223372036854774784.0) {
        return std::to_string(static_cast<long long>(v));  // bytes as written, not 9.2e+18
    }
    std::ostringstream out;
    out << std::setprecision(17) << v;
    return out.str();
}

[[noreturn]] void out_of_range(const ReplayTransform& t, const std::string& run_id,
                               const RepeatRecord& repeat, const std::string& what) {
    throw InputError(t.where.file, t.where.line, t.where.column,
                     op_name(t) + " " + number_text(t.value) + " on '" + t.probe + "' takes run " + run_id +
                         ", repeat " + std::to_string(repeat.index) + ": " + what);
}

// Moves one probe key's readings so that its cost (against the baseline) changes by `t`.
void transform_probe(const ReplayTransform& t, const std::string& run_id, RepeatRecord& repeat) {
    const auto base_it = std::find_if(repeat.snapshots.begin(), repeat.snapshots.end(),
                                      [](const Snapshot& s) { return s.label == baseline_label; });
    if (base_it == repeat.snapshots.end()) return;
    const auto base_reading = base_it->readings.find(t.probe);
    const std::optional<std::int64_t> base =
        base_reading == base_it->readings.end() ? std::nullopt : base_reading->second.bytes;
    // +1 for usage keys (cost = after - before), -1 for available keys (cost = before - after).
    const double sign = describe_key(t.probe).direction == Direction::available ? -1.0 : 1.0;

    for (auto it = std::next(base_it); it != repeat.snapshots.end(); ++it) {
        if (it->label == freed_label) continue;  // freeing releases what the transform added
        const auto r = it->readings.find(t.probe);
        if (r == it->readings.end() || !r->second.available()) continue;  // never invent a reading
        std::int64_t& bytes = *r->second.bytes;
        std::optional<std::int64_t> moved;
        if (t.op == ReplayTransform::Op::offset) {
            if (const auto delta = rounded_int64(sign * t.value)) moved = checked_add(bytes, *delta);
        } else if (base) {
            const auto cost =
                *base == std::numeric_limits<std::int64_t>::min() ? std::nullopt : checked_add(bytes, -*base);
            const auto scaled = cost ? rounded_int64(t.value * static_cast<double>(*cost)) : std::nullopt;
            moved = scaled ? checked_add(*base, *scaled) : std::nullopt;
        } else {
            continue;
        }
        // A memory reading is a number of bytes: never negative, never wrapped around.
        if (!moved || *moved < 0) {
            out_of_range(t, run_id, repeat,
                         "the " + it->label + " reading of " + std::to_string(bytes) +
                             " B would leave 0 to 9223372036854775807 B (a memory reading)");
        }
        bytes = *moved;
    }
}

}  // namespace

ReplayScript parse_replay_script(const std::string& text, const std::string& path_for_messages) {
    return ScriptParser(path_for_messages).parse(text);
}

ReplayScript load_replay_script(const std::string& path) {
    std::string text;
    try {
        text = read_file(path, input_limit::text);
    } catch (const SystemError& e) {
        throw InputError(std::string("cannot read replay script: ") + e.what());
    }
    return parse_replay_script(text, path);
}

bool glob_match(const std::string& pattern, const std::string& text) {
    // Iterative matcher: on a mismatch, let the last '*' swallow one more character.
    std::size_t p = 0, t = 0;
    std::size_t star = std::string::npos, star_t = 0;
    while (t < text.size()) {
        if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == text[t])) {
            ++p;
            ++t;
        } else if (p < pattern.size() && pattern[p] == '*') {
            star = p++;
            star_t = t;
        } else if (star != std::string::npos) {
            p = star + 1;
            t = ++star_t;
        } else {
            return false;
        }
    }
    while (p < pattern.size() && pattern[p] == '*') ++p;
    return p == pattern.size();
}

void apply_transforms(const ReplayScript& script, const std::string& run_id, RepeatRecord& repeat) {
    for (const ReplayTransform& t : script.transforms) {
        if (!glob_match(t.runs, run_id)) continue;
        if (t.op == ReplayTransform::Op::set) {
            for (const auto& [name, value] : t.data.items()) {
                if (repeat.data.is_object() && repeat.data.contains(name)) repeat.data[name] = value;
            }
            continue;
        }
        if (is_probe_key(t.probe)) {
            transform_probe(t, run_id, repeat);
            continue;
        }
        const auto it = repeat.timings_ms.find(t.probe);
        if (it == repeat.timings_ms.end()) continue;  // a timing that was not taken stays absent
        const double moved =
            t.op == ReplayTransform::Op::offset ? it->second + t.value : it->second * t.value;
        if (!std::isfinite(moved) || moved < 0) {
            out_of_range(t, run_id, repeat,
                         "the timing of " + number_text(it->second) + " ms would become " +
                             number_text(moved) + " ms (a timing is finite and not negative)");
        }
        it->second = moved;
    }
}

void check_transforms(const ReplayScript& script, const ResultsDocument& source) {
    if (script.transforms.empty()) return;
    for (const RunRecord& run : source.runs) {
        for (const RepeatRecord& recorded : run.repeats) {
            RepeatRecord copy = recorded;
            apply_transforms(script, run.run.id, copy);
        }
    }
}

void offset_probe_cost(const std::string& run_id, RepeatRecord& repeat, const std::string& key,
                       std::int64_t bytes) {
    ReplayTransform t;
    t.op = ReplayTransform::Op::offset;
    t.probe = key;
    t.value = static_cast<double>(bytes);
    transform_probe(t, run_id, repeat);
}

std::optional<ReplayInjection> injection_for(const ReplayScript& script, const std::string& run_id,
                                             int repeat) {
    for (const ReplayInjection& inj : script.injections) {
        if ((inj.repeat == -1 || inj.repeat == repeat) && glob_match(inj.runs, run_id)) return inj;
    }
    return std::nullopt;
}

nlohmann::json relabel_environment(const ReplayScript& script, nlohmann::json environment) {
    return replayed_environment(std::move(environment), script.driver_release, script.driver_model);
}

}  // namespace pinbench
