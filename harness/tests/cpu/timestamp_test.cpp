// The records' wall-clock timestamps (run/timestamp.hpp): ISO 8601 in UTC, to the second, and
// now (within the seconds the test takes).
#include <gtest/gtest.h>

#include <ctime>
#include <regex>
#include <string>

#include "run/timestamp.hpp"

namespace pinbench {
namespace {

std::time_t seconds_since_epoch(const std::string& iso) {
    const int year = std::stoi(iso.substr(0, 4)), month = std::stoi(iso.substr(5, 2));
    const int day = std::stoi(iso.substr(8, 2)), hour = std::stoi(iso.substr(11, 2));
    const int minute = std::stoi(iso.substr(14, 2)), second = std::stoi(iso.substr(17, 2));
    // Days since 1970 by the days-from-civil rule (no timegm on every platform).
    const int y = year - (month <= 2 ? 1 : 0);
    const int era = (y >= 0 ? y : y - 399) / 400;
    const int yoe = y - era * 400;
    const int doy = (153 * ((month + 9) % 12) + 2) / 5 + day - 1;
    const int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    const long long days = static_cast<long long>(era) * 146097 + doe - 719468;
    return static_cast<std::time_t>(days * 86400 + hour * 3600 + minute * 60 + second);
}

TEST(Timestamp, IsIso8601UtcToTheSecond) {
    const std::string now = utc_now();
    EXPECT_TRUE(std::regex_match(now, std::regex(R"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z)"))) << now;
}

TEST(Timestamp, IsNowInUtc) {
    const std::time_t before = std::time(nullptr);
    const std::string now = utc_now();
    const std::time_t after = std::time(nullptr);
    const std::time_t read = seconds_since_epoch(now);
    EXPECT_GE(read, before) << now;  // a local time east or west of UTC is hours away
    EXPECT_LE(read, after) << now;
}

TEST(Timestamp, TheCalendarArithmeticOfThisTestIsRight) {
    EXPECT_EQ(seconds_since_epoch("1970-01-01T00:00:00Z"), 0);
    EXPECT_EQ(seconds_since_epoch("2026-11-30T01:25:39Z"), 1796001939);
    EXPECT_EQ(seconds_since_epoch("2024-02-29T12:00:00Z"), 1709208000);
}

}  // namespace
}  // namespace pinbench
