// Small helpers shared by the store's files: UTF-8 paths (pinbench/platform/utf8.hpp) and UTC timestamps.
#pragma once

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>

#include "pinbench/platform/utf8.hpp"

namespace pinbench::store_detail {

// UTF-8 paths: the one definition is pinbench/platform/utf8.hpp's.
using ::pinbench::generic_utf8_of;
using ::pinbench::path_from_utf8;
using ::pinbench::utf8_of;

// "2025-06-01T10:00:00Z", also with fractional seconds ("...:00.123Z"); nullopt otherwise.
inline std::optional<std::chrono::sys_seconds> parse_utc_timestamp(const std::string& text) {
    int year = 0;
    unsigned month = 0, day = 0;
    int hour = 0, minute = 0, second = 0, consumed = 0;
    if (std::sscanf(text.c_str(), "%4d-%2u-%2uT%2d:%2d:%2d%n", &year, &month, &day, &hour, &minute, &second,
                    &consumed) != 6 ||
        consumed != 19) {
        return std::nullopt;
    }
    std::size_t i = 19;
    if (i < text.size() && text[i] == '.') {
        ++i;
        const std::size_t digits = i;
        while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i;
        if (i == digits) return std::nullopt;
    }
    if (i + 1 != text.size() || text[i] != 'Z') return std::nullopt;
    const std::chrono::year_month_day date{std::chrono::year{year}, std::chrono::month{month},
                                           std::chrono::day{day}};
    if (!date.ok() || hour > 23 || minute > 59 || second > 60 || hour < 0 || minute < 0 || second < 0) {
        return std::nullopt;
    }
    return std::chrono::sys_days{date} + std::chrono::hours{hour} + std::chrono::minutes{minute} +
           std::chrono::seconds{second};
}

// `compact`: "20250601T100000Z" (file names); otherwise "2025-06-01T10:00:00Z".
inline std::string format_utc_timestamp(std::chrono::sys_seconds t, bool compact = false) {
    const auto day = std::chrono::floor<std::chrono::days>(t);
    const std::chrono::year_month_day date{day};
    const std::chrono::hh_mm_ss time{t - day};
    char text[32];
    std::snprintf(text, sizeof text,
                  compact ? "%04d%02u%02uT%02d%02d%02dZ" : "%04d-%02u-%02uT%02d:%02d:%02dZ",
                  static_cast<int>(date.year()), static_cast<unsigned>(date.month()),
                  static_cast<unsigned>(date.day()), static_cast<int>(time.hours().count()),
                  static_cast<int>(time.minutes().count()), static_cast<int>(time.seconds().count()));
    return text;
}

inline std::string utc_timestamp_now() {
    return format_utc_timestamp(std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now()));
}

}  // namespace pinbench::store_detail
