#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "pinbench/vocabulary/api_variant.hpp"

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
        "cudaHostRegister:hugetlb",
        "cudaHostRegister:hugetlb_1g",
        "cudaHostRegister:thp",
        "cudaHostRegister:large_pages",
        "cuMemCreate:host",
        "cuMemCreate:host_numa",
        "cudaMallocFromPoolAsync:host",
        "cudaMallocFromPoolAsync:host_numa",
    };
    EXPECT_EQ(names, expected);
}

TEST(ApiVariant, OnlyTheNewVariantsMayBeUnsupported) {
    std::vector<std::string> may;
    for (const ApiVariant& v : all_api_variants()) {
        if (may_be_unsupported(v)) may.push_back(to_string(v));
    }
    const std::vector<std::string> expected{
        "cudaHostRegister:hugetlb",
        "cudaHostRegister:hugetlb_1g",
        "cudaHostRegister:thp",
        "cudaHostRegister:large_pages",
        "cuMemCreate:host",
        "cuMemCreate:host_numa",
        "cudaMallocFromPoolAsync:host",
        "cudaMallocFromPoolAsync:host_numa",
    };
    EXPECT_EQ(may, expected);
    EXPECT_TRUE(may_be_unsupported(*parse_api_variant("cudaHostRegister:portable+mapped+thp", nullptr)));
}

TEST(ApiVariant, PageKindsCombineWithRegisterFlags) {
    const auto v = parse_api_variant("cudaHostRegister:thp+mapped+portable", nullptr);
    ASSERT_TRUE(v.has_value());
    EXPECT_EQ(*v, (ApiVariant{ApiFamily::host_register, flag_portable | flag_mapped, PageKind::thp}));
    EXPECT_EQ(to_string(*v), "cudaHostRegister:portable+mapped+thp") << "flags first, then the page kind";
    EXPECT_EQ(parse_api_variant("cudaHostRegister:hugetlb_1g", nullptr),
              (ApiVariant{ApiFamily::host_register, flag_none, PageKind::hugetlb_1g}));
    EXPECT_EQ(to_string(ApiVariant{ApiFamily::host_register, flag_mapped, PageKind::large_pages}),
              "cudaHostRegister:mapped+large_pages");
}

TEST(ApiVariant, LocationsOfVmmAndPools) {
    EXPECT_EQ(parse_api_variant("cuMemCreate:host", nullptr),
              (ApiVariant{ApiFamily::vmm_host, flag_none, PageKind::standard, HostLocation::host}));
    EXPECT_EQ(parse_api_variant("cudaMallocFromPoolAsync:host_numa", nullptr),
              (ApiVariant{ApiFamily::pool_host, flag_none, PageKind::standard, HostLocation::host_numa}));
    EXPECT_EQ(to_string(PageKind::standard), "standard");
    EXPECT_EQ(to_string(PageKind::hugetlb), "hugetlb");
    EXPECT_EQ(to_string(HostLocation::host_numa), "host_numa");
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
        {"cudaHostRegister:thp+thp", "duplicate page kind 'thp'"},
        {"cudaHostRegister:hugetlb+thp", "two page kinds 'hugetlb' and 'thp'"},
        {"cudaHostRegister:standard", "unknown flag 'standard'"},
        {"cudaHostRegister:hugepages", "unknown flag 'hugepages'"},
        {"cudaHostAlloc:thp", "page kind 'thp' is not valid for 'cudaHostAlloc'"},
        {"cudaMallocHost:hugetlb", "api 'cudaMallocHost' takes no flags"},
        {"pageable:thp", "api 'pageable' takes no flags"},
        {"cudaHostRegister:host", "location 'host' is not valid for 'cudaHostRegister'"},
        {"cuMemCreate", "api 'cuMemCreate' needs a location: cuMemCreate:host or cuMemCreate:host_numa"},
        {"cudaMallocFromPoolAsync", "api 'cudaMallocFromPoolAsync' needs a location"},
        {"cuMemCreate:portable", "flag 'portable' is not valid for 'cuMemCreate'"},
        {"cuMemCreate:thp", "page kind 'thp' is not valid for 'cuMemCreate'"},
        {"cuMemCreate:host+host", "duplicate location 'host'"},
        {"cuMemCreate:host+host_numa", "two locations 'host' and 'host_numa'"},
        {"cuMemCreate:none", "unknown flag 'none'"},
        {"cuMemCreate:", "empty flag"},
        {"cumemcreate:host", "unknown api 'cumemcreate'"},
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
        {"cudaHostRegister:thp", false},
        {"cudaHostRegister:mapped+hugetlb", true},
        {"cuMemCreate:host", true},
        {"cuMemCreate:host_numa", true},
        {"cudaMallocFromPoolAsync:host", true},
        {"cudaMallocFromPoolAsync:host_numa", true},
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
