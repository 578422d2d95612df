// Terminal-safe text (pinbench/vocabulary/terminal_text.hpp).
#include "pinbench/vocabulary/terminal_text.hpp"

namespace pinbench {

std::size_t utf8_sequence_length(std::string_view s, std::size_t i) {
    const auto* p = reinterpret_cast<const unsigned char*>(s.data());
    const std::size_t n = s.size();
    if (i >= n) return 0;
    const unsigned char c = p[i];
    if (c < 0x80) return 1;
    std::size_t len = 0;
    unsigned char lo = 0x80, hi = 0xBF;  // the allowed range of the second byte
    if (c >= 0xC2 && c <= 0xDF) {
        len = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        if (c == 0xE0) lo = 0xA0;  // overlong
        if (c == 0xED) hi = 0x9F;  // UTF-16 surrogates
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        if (c == 0xF0) lo = 0x90;  // overlong
        if (c == 0xF4) hi = 0x8F;  // above U+10FFFF
    } else {
        return 0;
    }
    if (i + len > n || p[i + 1] < lo || p[i + 1] > hi) return 0;
    for (std::size_t k = 2; k < len; ++k) {
        if (p[i + k] < 0x80 || p[i + k] > 0xBF) return 0;
    }
    return len;
}

namespace {

constexpr char hex[] = "0123456789abcdef";

// The code point of a well-formed sequence of `len` bytes at p.
char32_t code_point(const unsigned char* p, std::size_t len) {
    if (len == 1) return p[0];
    char32_t cp = p[0] & (0xFF >> (len + 1));
    for (std::size_t k = 1; k < len; ++k) cp = (cp << 6) | (p[k] & 0x3F);
    return cp;
}

bool acted_on(char32_t cp) {
    return (cp >= 0x80 && cp <= 0x9F) || (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
}

}  // namespace

std::string terminal_text(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (std::size_t i = 0; i < s.size();) {
        const auto c = static_cast<unsigned char>(s[i]);
        const std::size_t len = utf8_sequence_length(s, i);
        if (c == '\n') {
            out += "\\n";
        } else if (c == '\t') {
            out += "\\t";
        } else if (c == '\r') {
            out += "\\r";
        } else if (len == 0 || c < 0x20 || c == 0x7F) {
            out += "\\x";
            out += hex[c >> 4];
            out += hex[c & 0xF];
        } else if (const char32_t cp = code_point(reinterpret_cast<const unsigned char*>(s.data()) + i, len);
                   len > 1 && acted_on(cp)) {
            out += "\\u";
            for (int shift = 12; shift >= 0; shift -= 4) out += hex[(cp >> shift) & 0xF];
            i += len;
            continue;
        } else {
            out.append(s.substr(i, len));
            i += len;
            continue;
        }
        ++i;
    }
    return out;
}

}  // namespace pinbench
