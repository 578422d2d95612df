#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

#include "pinbench/vocabulary/units.hpp"

namespace pinbench {
namespace {

constexpr std::uint64_t KiB = 1024;
constexpr std::uint64_t MiB = KiB * KiB;
constexpr std::uint64_t GiB = MiB * KiB;
constexpr std::uint64_t TiB = GiB * KiB;

TEST(ParseSize, AcceptsEveryUnitWithAndWithoutSpace) {
    EXPECT_EQ(parse_size("4096B"), 4096u);
    EXPECT_EQ(parse_size("1KiB"), KiB);
    EXPECT_EQ(parse_size("64MiB"), 64 * MiB);
    EXPECT_EQ(parse_size("64 MiB"), 64 * MiB);
    EXPECT_EQ(parse_size("1GiB"), GiB);
    EXPECT_EQ(parse_size("2TiB"), 2 * TiB);
    EXPECT_EQ(parse_size("512KB"), 512'000u);
    EXPECT_EQ(parse_size("3MB"), 3'000'000u);
    EXPECT_EQ(parse_size("4GB"), 4'000'000'000u);
    EXPECT_EQ(parse_size("1TB"), 1'000'000'000'000u);
    EXPECT_EQ(parse_size("007MiB"), 7 * MiB);
}

TEST(ParseSize, AcceptsFractionsThatAreWholeBytes) {
    EXPECT_EQ(parse_size("1.5GiB"), GiB + GiB / 2);
    EXPECT_EQ(parse_size("0.5KiB"), 512u);
    EXPECT_EQ(parse_size("2.25MiB"), 2 * MiB + MiB / 4);
    EXPECT_EQ(parse_size("1.5KB"), 1500u);
    EXPECT_EQ(parse_size("1.000GiB"), GiB);
    EXPECT_EQ(parse_size("0.001KB"), 1u);
    EXPECT_EQ(parse_size("4096.0B"), 4096u);
}

TEST(ParseSize, AcceptsTheLargestValue) {
    EXPECT_EQ(parse_size("18446744073709551615B"), std::numeric_limits<std::uint64_t>::max());
    EXPECT_EQ(parse_size("16777215TiB"), 16777215 * TiB);
}

struct Rejected {
    const char* text;
    const char* reason;  // substring of the message
};

TEST(ParseSize, RejectsWithAOneLineReason) {
    const Rejected cases[] = {
        {"", "does not start with a number"},
        {"64", "has no unit"},
        {"MiB", "does not start with a number"},
        {" 64MiB", "does not start with a number"},
        {"64MiB ", "unknown unit 'MiB '"},
        {"64mib", "unknown unit 'mib'"},
        {"64MIB", "unknown unit 'MIB'"},
        {"64kb", "unknown unit 'kb'"},
        {"64Kib", "unknown unit 'Kib'"},
        {"64 bytes", "unknown unit 'bytes'"},
        {"1e3MiB", "unknown unit 'e3MiB'"},
        {"1,5GiB", "unknown unit ',5GiB'"},
        {"0B", "is zero"},
        {"0.0GiB", "is zero"},
        {"-1MiB", "is negative"},
        {"+1MiB", "has a sign"},
        {"1.5B", "not a whole number of bytes"},
        {"0.1KiB", "not a whole number of bytes"},
        {"1.0001KiB", "not a whole number of bytes"},
        {"0.0000000000000000001TB", "not a whole number of bytes"},
        {"1.KiB", "no digits after the decimal point"},
        {".5KiB", "does not start with a number"},
        {"18446744073709551616B", "too large"},
        {"16777216TiB", "too large"},
        {"99999999999999999999999GiB", "too large"},
        {"18446744073709551615.5KiB", "too large"},
    };
    for (const Rejected& c : cases) {
        SCOPED_TRACE(std::string("input: '") + c.text + "'");
        try {
            parse_size(c.text);
            ADD_FAILURE() << "accepted";
        } catch (const std::invalid_argument& e) {
            const std::string what = e.what();
            EXPECT_NE(what.find(c.reason), std::string::npos) << what;
            EXPECT_NE(what.find(std::string("'") + c.text + "'"), std::string::npos)
                << "names the input: " << what;
            EXPECT_EQ(what.find('\n'), std::string::npos) << what;
        }
    }
}

TEST(FormatBytes, SmallValuesAreExactBytes) {
    EXPECT_EQ(format_bytes(0), "0 B");
    EXPECT_EQ(format_bytes(1), "1 B");
    EXPECT_EQ(format_bytes(4096), "4096 B");
    EXPECT_EQ(format_bytes(10 * KiB - 1), "10239 B");
}

TEST(FormatBytes, LargerValuesUseTheLargestBinaryUnit) {
    EXPECT_EQ(format_bytes(10 * KiB), "10 KiB");
    EXPECT_EQ(format_bytes(64 * MiB), "64 MiB");
    EXPECT_EQ(format_bytes(GiB + GiB / 2), "1.5 GiB");
    EXPECT_EQ(format_bytes(GiB + GiB / 8), "1.125 GiB");
    EXPECT_EQ(format_bytes(1536 * KiB), "1.5 MiB");
    EXPECT_EQ(format_bytes(3 * TiB), "3 TiB");
    EXPECT_EQ(format_bytes(1000 * TiB), "1000 TiB");
}

TEST(FormatBytes, RoundsToThreeDecimals) {
    // 1234567 B = 1.17737... MiB
    EXPECT_EQ(format_bytes(1234567), "1.177 MiB");
    // 123456789 B = 117.7376... MiB
    EXPECT_EQ(format_bytes(123456789), "117.738 MiB");
    // One byte short of 1 GiB rounds to 1024 MiB, which is printed as the next unit.
    EXPECT_EQ(format_bytes(GiB - 1), "1 GiB");
    EXPECT_EQ(format_bytes(std::numeric_limits<std::uint64_t>::max()), "16777216 TiB");
}

TEST(FormatBytesSigned, PrefixesNegativeDeltas) {
    EXPECT_EQ(format_bytes_signed(-2 * static_cast<std::int64_t>(MiB)), "-2 MiB");
    EXPECT_EQ(format_bytes_signed(-4096), "-4096 B");
    EXPECT_EQ(format_bytes_signed(0), "0 B");
    EXPECT_EQ(format_bytes_signed(static_cast<std::int64_t>(GiB + GiB / 2)), "1.5 GiB");
    EXPECT_EQ(format_bytes_signed(std::numeric_limits<std::int64_t>::min()), "-8388608 TiB");
}

TEST(SizeLabel, UsesTheLargestUnitThatDividesExactly) {
    EXPECT_EQ(size_label(64 * MiB), "64MiB");
    EXPECT_EQ(size_label(GiB), "1GiB");
    EXPECT_EQ(size_label(1536 * KiB), "1536KiB");
    EXPECT_EQ(size_label(GiB + GiB / 2), "1536MiB");
    EXPECT_EQ(size_label(1000), "1000B");
    EXPECT_EQ(size_label(512'000), "500KiB");
    EXPECT_EQ(size_label(1), "1B");
    EXPECT_EQ(size_label(0), "0B");
    EXPECT_EQ(size_label(4 * TiB), "4TiB");
    EXPECT_EQ(size_label(2048 * TiB), "2048TiB");
}

TEST(SizeLabel, ParsesBackToTheSameBytes) {
    for (std::uint64_t bytes : {std::uint64_t{1}, std::uint64_t{1000}, 1536 * KiB, 64 * MiB, 3 * GiB + MiB,
                                5 * TiB, std::numeric_limits<std::uint64_t>::max()}) {
        EXPECT_EQ(parse_size(size_label(bytes)), bytes) << size_label(bytes);
    }
}

}  // namespace
}  // namespace pinbench
