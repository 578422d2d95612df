// Random hex tokens (platform/random_token.hpp): 16 lower-case hex digits per word, and two
// tokens in a row differ (temporary names, lock owners and nonces rely on it).
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "platform/random_token.hpp"

namespace pinbench {
namespace {

bool is_lower_hex(const std::string& s) {
    return s.find_first_not_of("0123456789abcdef") == std::string::npos;
}

TEST(RandomToken, SixteenHexDigitsPerWord) {
    EXPECT_EQ(random_hex().size(), 16u);
    EXPECT_EQ(random_hex(1).size(), 16u);
    EXPECT_EQ(random_hex(3).size(), 48u);
    EXPECT_EQ(random_hex(0), "");
    EXPECT_TRUE(is_lower_hex(random_hex(4)));
}

TEST(RandomToken, ThousandTokensAreAllDifferent) {
    std::set<std::string> seen;
    for (int i = 0; i < 1000; ++i) seen.insert(random_hex());
    EXPECT_EQ(seen.size(), 1000u);
}

}  // namespace
}  // namespace pinbench
