// Byte sizes with explicit units. Parsing is exact: a decimal fraction is accepted only when it
// names a whole number of bytes, so "1.5GiB" is fine and "1.5B" is not.
#include "pinbench/vocabulary/units.hpp"

#include <array>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace pinbench {
namespace {

struct Unit {
    std::string_view name;
    std::uint64_t bytes;
};

constexpr std::uint64_t KiB = 1024;
constexpr std::array<Unit, 9> kUnits{{
    {"B", 1},
    {"KiB", KiB},
    {"MiB", KiB* KiB},
    {"GiB", KiB* KiB* KiB},
    {"TiB", KiB* KiB* KiB* KiB},
    {"KB", 1000},
    {"MB", std::uint64_t{1000} * 1000},
    {"GB", 1000ull * 1000 * 1000},
    {"TB", 1000ull * 1000 * 1000 * 1000},
}};

// Binary units from largest to smallest, for printing.
constexpr std::array<Unit, 5> kBinaryDescending{{
    {"TiB", KiB* KiB* KiB* KiB},
    {"GiB", KiB* KiB* KiB},
    {"MiB", KiB* KiB},
    {"KiB", KiB},
    {"B", 1},
}};

constexpr std::string_view kUnitList = "B, KiB, MiB, GiB, TiB, KB, MB, GB, TB";
constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();

bool is_digit(char c) { return c >= '0' && c <= '9'; }

std::string in_quotes(std::string_view text) { return "'" + std::string(text) + "'"; }

[[noreturn]] void fail(std::string_view text, const std::string& why) {
    throw std::invalid_argument("size " + in_quotes(text) + " " + why);
}

// Parses a run of decimal digits; false on overflow.
bool parse_digits(std::string_view digits, std::uint64_t& out) {
    out = 0;
    for (char c : digits) {
        const auto d = static_cast<std::uint64_t>(c - '0');
        if (out > (kMax - d) / 10) {
            return false;
        }
        out = out * 10 + d;
    }
    return true;
}

}  // namespace

std::uint64_t parse_size(std::string_view text) {
    std::size_t i = 0;
    if (!text.empty() && (text[0] == '-' || text[0] == '+')) {
        if (text[0] == '-') {
            fail(text, "is negative; sizes must be greater than zero");
        }
        fail(text, "has a sign; write the number alone, e.g. '64MiB'");
    }
    while (i < text.size() && is_digit(text[i])) {
        ++i;
    }
    const std::string_view whole = text.substr(0, i);
    if (whole.empty()) {
        fail(text, "does not start with a number (expected e.g. '64MiB')");
    }
    std::string_view fraction;
    if (i < text.size() && text[i] == '.') {
        const std::size_t start = ++i;
        while (i < text.size() && is_digit(text[i])) {
            ++i;
        }
        fraction = text.substr(start, i - start);
        if (fraction.empty()) {
            fail(text, "has no digits after the decimal point");
        }
    }
    std::size_t unit_start = i;
    while (unit_start < text.size() && text[unit_start] == ' ') {
        ++unit_start;
    }
    const std::string_view unit_text = text.substr(unit_start);
    if (unit_text.empty()) {
        fail(text, "has no unit (use one of " + std::string(kUnitList) + ")");
    }

    const Unit* unit = nullptr;
    for (const Unit& u : kUnits) {
        if (u.name == unit_text) {
            unit = &u;
        }
    }
    if (unit == nullptr) {
        fail(text, "has an unknown unit " + in_quotes(unit_text) +
                       " (units, case-sensitive: " + std::string(kUnitList) + ")");
    }

    std::uint64_t whole_value = 0;
    if (!parse_digits(whole, whole_value) || (whole_value != 0 && unit->bytes > kMax / whole_value)) {
        fail(text, "is too large");
    }
    std::uint64_t bytes = whole_value * unit->bytes;

    // The fraction f / 10^n, reduced to p / q, adds p * (unit / q) bytes; exact only when q
    // divides the unit. Trailing zeros carry no value, and more than 18 digits can never be exact.
    while (!fraction.empty() && fraction.back() == '0') {
        fraction.remove_suffix(1);
    }
    if (!fraction.empty()) {
        std::uint64_t p = 0;
        if (fraction.size() > 18 || !parse_digits(fraction, p)) {
            fail(text, "is not a whole number of bytes");
        }
        std::uint64_t q = 1;
        for (std::size_t k = 0; k < fraction.size(); ++k) {
            q *= 10;
        }
        const std::uint64_t g = std::gcd(p, q);
        p /= g;
        q /= g;
        if (unit->bytes % q != 0) {
            fail(text, "is not a whole number of bytes");
        }
        const std::uint64_t extra = p * (unit->bytes / q);  // < unit->bytes: cannot overflow
        if (bytes > kMax - extra) {
            fail(text, "is too large");
        }
        bytes += extra;
    }
    if (bytes == 0) {
        fail(text, "is zero; sizes must be greater than zero");
    }
    return bytes;
}

std::string format_bytes(std::uint64_t bytes) {
    // Below 10 KiB the exact byte count reads best ("4096 B" is a page, not "4 KiB").
    if (bytes < 10 * KiB) {
        return std::to_string(bytes) + " B";
    }
    std::size_t u = 0;
    while (bytes < kBinaryDescending[u].bytes) {
        ++u;
    }
    double value = static_cast<double>(bytes) / static_cast<double>(kBinaryDescending[u].bytes);
    // Rounding to 3 decimals can reach 1024 of this unit: print it in the next one up.
    if (u > 0 && std::round(value * 1000) / 1000 >= 1024) {
        --u;
        value /= 1024;
    }
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.3f", value);
    std::string number(buf);
    while (number.back() == '0') {
        number.pop_back();
    }
    if (number.back() == '.') {
        number.pop_back();
    }
    return number + " " + std::string(kBinaryDescending[u].name);
}

std::string format_bytes_signed(std::int64_t bytes) {
    if (bytes >= 0) {
        return format_bytes(static_cast<std::uint64_t>(bytes));
    }
    // Negate in unsigned arithmetic so INT64_MIN works too.
    return "-" + format_bytes(std::uint64_t{0} - static_cast<std::uint64_t>(bytes));
}

std::string size_label(std::uint64_t bytes) {
    for (const Unit& u : kBinaryDescending) {
        if (bytes != 0 && bytes % u.bytes == 0) {
            return std::to_string(bytes / u.bytes) + std::string(u.name);
        }
    }
    return std::to_string(bytes) + "B";
}

}  // namespace pinbench
