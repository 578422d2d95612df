// The "did you mean" hints of the scenario file's messages (scenario/did_you_mean.hpp): the edit
// distance they are decided by, the hint for a close name, and the list of known names otherwise.
#include <gtest/gtest.h>

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "scenario/did_you_mean.hpp"

namespace pinbench {
namespace {

TEST(EditDistance, CountsInsertionsDeletionsAndSubstitutions) {
    EXPECT_EQ(edit_distance("", ""), 0u);
    EXPECT_EQ(edit_distance("", "api"), 3u);
    EXPECT_EQ(edit_distance("repeats", ""), 7u);
    EXPECT_EQ(edit_distance("repeats", "repeats"), 0u);
    EXPECT_EQ(edit_distance("repeat", "repeats"), 1u);    // one inserted
    EXPECT_EQ(edit_distance("repeatss", "repeats"), 1u);  // one deleted
    EXPECT_EQ(edit_distance("sizse", "sizes"), 2u);       // two letters swapped: two substitutions
    EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
    EXPECT_EQ(edit_distance("sitting", "kitten"), 3u);  // symmetric
}

TEST(DidYouMean, ACloseNameIsSuggestedAndAFarOneListsWhatIsKnown) {
    const std::vector<std::string> keys{"name", "kind", "repeats", "sizes"};
    EXPECT_EQ(suggestion("repets", keys, "keys"), "; did you mean 'repeats'?");
    EXPECT_EQ(suggestion("szes", keys, "keys"), "; did you mean 'sizes'?");
    // Three edits away from every key: the list, in its order.
    EXPECT_EQ(suggestion("timeout", keys, "keys"), " (keys: name, kind, repeats, sizes)");
    // The first close name wins.
    const std::array<std::string_view, 2> two{"gpus", "gpu"};
    EXPECT_EQ(suggestion("gpux", two, "choices"), "; did you mean 'gpus'?");
}

TEST(DidYouMean, TheUnknownKeyMessageNamesTheKeyWhereAndTheHint) {
    const std::vector<std::string> keys{"name", "kind", "repeats"};
    EXPECT_EQ(unknown_key_message("knd", keys, " in scenario 'quick'"),
              "unknown key 'knd' in scenario 'quick'; did you mean 'kind'?");
    EXPECT_EQ(unknown_key_message("warmup_seconds", keys, ""),
              "unknown key 'warmup_seconds' (keys: name, kind, repeats)");
}

TEST(DidYouMean, ContainsAndJoin) {
    const std::vector<std::string> names{"pageable", "cudaMallocHost"};
    EXPECT_TRUE(contains(names, "cudaMallocHost"));
    EXPECT_FALSE(contains(names, "cudamallochost"));
    EXPECT_EQ(join(names), "pageable, cudaMallocHost");
    EXPECT_EQ(join(std::vector<std::string>{}), "");
}

}  // namespace
}  // namespace pinbench
