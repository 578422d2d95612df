#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "pinbench/api_variant.hpp"

namespace pinbench {
namespace {

TEST(ApiVariant, AllVariantsInTheirStableOrder) {
    std::vector<std::string> names;
    for (const ApiVariant& v : all_api_variants()) {
        names.push_back(to_string(v));
    }
    const std::vector<std::string> expected{
        "pageable",
        "cudaMallocHost",
        "cudaHostAlloc",
        "cudaHostAlloc:portable",
        "cudaHostAlloc:mapped",
        "cudaHostAlloc:write_combined",
        "cudaHostAlloc:portable+mapped",
        "cudaHostRegister",
        "cudaHostRegister:portable",
        "cudaHostRegister:mapped",
    };
    EXPECT_EQ(names, expected);
}

TEST(ApiVariant, EveryCanonicalSpellingParsesBack) {
    for (const ApiVariant& v : all_api_variants()) {
        std::string why;
        const auto parsed = parse_api_variant(to_string(v), &why);
        ASSERT_TRUE(parsed.has_value()) << to_string(v) << ": " << why;
        EXPECT_EQ(*parsed, v) << to_string(v);
    }
}

TEST(ApiVariant, ParsesFamiliesAndFlags) {
    EXPECT_EQ(parse_api_variant("pageable", nullptr), (ApiVariant{ApiFamily::pageable, flag_none}));
    EXPECT_EQ(parse_api_variant("cudaMallocHost", nullptr), (ApiVariant{ApiFamily::malloc_host, flag_none}));
    EXPECT_EQ(parse_api_variant("cudaHostAlloc:write_combined", nullptr),
              (ApiVariant{ApiFamily::host_alloc, flag_write_combined}));
    EXPECT_EQ(parse_api_variant("cudaHostRegister:portable+mapped", nullptr),
              (ApiVariant{ApiFamily::host_register, flag_portable | flag_mapped}));
}

TEST(ApiVariant, FlagsInAnyOrderPrintInTheFixedOrder) {
    const auto v = parse_api_variant("cudaHostAlloc:write_combined+mapped+portable", nullptr);
    ASSERT_TRUE(v.has_value());
    EXPECT_EQ(v->flags, unsigned{flag_portable | flag_mapped | flag_write_combined});
    EXPECT_EQ(to_string(*v), "cudaHostAlloc:portable+mapped+write_combined");
    EXPECT_EQ(to_string(*parse_api_variant("cudaHostAlloc:mapped+portable", nullptr)),
              "cudaHostAlloc:portable+mapped");
}

struct Rejected {
    const char* text;
    const char* reason;
};

TEST(ApiVariant, RejectsWithAReason) {
    const Rejected cases[] = {
        {"", "unknown api ''"},
        {"Pageable", "unknown api 'Pageable'"},
        {"cudaMalloc", "unknown api 'cudaMalloc'"},
        {"cudaHostAlloc ", "unknown api 'cudaHostAlloc '"},
        {"pageable:mapped", "api 'pageable' takes no flags"},
        {"cudaMallocHost:portable", "api 'cudaMallocHost' takes no flags"},
        {"cudaHostAlloc:", "empty flag"},
        {"cudaHostAlloc:portable+", "empty flag"},
        {"cudaHostAlloc:+mapped", "empty flag"},
        {"cudaHostAlloc:Mapped", "unknown flag 'Mapped'"},
        {"cudaHostAlloc:pinned", "unknown flag 'pinned'"},
        {"cudaHostAlloc:portable:mapped", "unknown flag 'portable:mapped'"},
        {"cudaHostRegister:write_combined", "flag 'write_combined' is not valid for 'cudaHostRegister'"},
        {"cudaHostRegister:mapped+write_combined",
         "flag 'write_combined' is not valid for 'cudaHostRegister'"},
        {"cudaHostAlloc:mapped+mapped", "duplicate flag 'mapped'"},
        {"cudaHostRegister:portable+mapped+portable", "duplicate flag 'portable'"},
    };
    for (const Rejected& c : cases) {
        SCOPED_TRACE(std::string("input: '") + c.text + "'");
        std::string why;
        EXPECT_FALSE(parse_api_variant(c.text, &why).has_value());
        EXPECT_NE(why.find(c.reason), std::string::npos) << why;
        EXPECT_EQ(why.find('\n'), std::string::npos) << why;
        EXPECT_FALSE(parse_api_variant(c.text, nullptr).has_value()) << "without a reason pointer";
    }
}

TEST(ApiVariant, DevicePointerWhenMappedOrMallocHost) {
    const std::vector<std::pair<std::string, bool>> expected{
        {"pageable", false},
        {"cudaMallocHost", true},
        {"cudaHostAlloc", false},
        {"cudaHostAlloc:portable", false},
        {"cudaHostAlloc:mapped", true},
        {"cudaHostAlloc:write_combined", false},
        {"cudaHostAlloc:portable+mapped", true},
        {"cudaHostRegister", false},
        {"cudaHostRegister:portable", false},
        {"cudaHostRegister:mapped", true},
    };
    for (const auto& [name, device_pointer] : expected) {
        const auto v = parse_api_variant(name, nullptr);
        ASSERT_TRUE(v.has_value()) << name;
        EXPECT_EQ(has_device_pointer(*v), device_pointer) << name;
        EXPECT_EQ(is_pinned(*v), name != "pageable") << name;
    }
}

}  // namespace
}  // namespace pinbench
