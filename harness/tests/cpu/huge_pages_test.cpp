// Huge pages: the pure decisions over the kernel's text files (fixtures in
// fixtures/huge_pages/), and on Linux the OS side as far as this machine allows.
#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "pinbench/vocabulary/errors.hpp"
#include "platform/huge_pages.hpp"
#include "test_paths.hpp"

namespace pinbench::platform {
namespace {

constexpr std::uint64_t MiB = std::uint64_t{1} << 20;

std::string fixture(const std::string& name) {
    std::ifstream in(std::string(PINBENCH_FIXTURES) + "/huge_pages/" + name, std::ios::binary);
    EXPECT_TRUE(in) << name;
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

TEST(HugePages, PageSizeLabels) {
    EXPECT_EQ(page_size_label(2 * MiB), "2 MiB");
    EXPECT_EQ(page_size_label(1024 * MiB), "1 GiB");
    EXPECT_EQ(page_size_label(64 * 1024), "64 KiB");
    EXPECT_EQ(page_size_label(4097), "4097 B");
    EXPECT_EQ(page_size_label(0), "0 B");
}

TEST(HugePages, MeminfoWithoutConfiguredPages) {
    const auto pool = parse_meminfo_huge_pages(fixture("meminfo_none.txt"));
    ASSERT_TRUE(pool.has_value());
    EXPECT_EQ(pool->page_bytes, 2 * MiB);
    EXPECT_EQ(pool->total, 0u);
    EXPECT_EQ(pool->free, 0u);
    EXPECT_EQ(hugetlb_unsupported_reason(*pool, 64 * MiB),
              "no 2 MiB huge pages configured: /proc/meminfo HugePages_Total is 0");
}

TEST(HugePages, MeminfoWithConfiguredPages) {
    const auto pool = parse_meminfo_huge_pages(fixture("meminfo_configured.txt"));
    ASSERT_TRUE(pool.has_value());
    EXPECT_EQ(pool->total, 1024u);
    EXPECT_EQ(pool->free, 600u);
    EXPECT_EQ(hugetlb_unsupported_reason(*pool, 1200 * MiB), std::nullopt) << "600 pages of 2 MiB";
    EXPECT_EQ(
        hugetlb_unsupported_reason(*pool, 1200 * MiB + 1),
        "not enough free 2 MiB huge pages: 601 needed, 600 free of 1024 (/proc/meminfo HugePages_Free)");
    EXPECT_EQ(hugetlb_unsupported_reason(*pool, 0), std::nullopt) << "0 bytes still takes one page";
}

TEST(HugePages, MeminfoOfAKernelWithoutHugetlb) {
    EXPECT_EQ(parse_meminfo_huge_pages(fixture("meminfo_no_hugetlb.txt")), std::nullopt);
    EXPECT_EQ(parse_meminfo_huge_pages(""), std::nullopt);
}

TEST(HugePages, SysfsPoolWithOvercommit) {
    HugeTlbPool pool;
    pool.page_bytes = 1024 * MiB;
    pool.total = 0;
    pool.free = 0;
    pool.total_source = "/sys/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages";
    pool.free_source = "/sys/kernel/mm/hugepages/hugepages-1048576kB/free_hugepages";
    EXPECT_EQ(
        hugetlb_unsupported_reason(pool, 1),
        "no 1 GiB huge pages configured: /sys/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages is 0");
    pool.overcommit = 4;
    pool.surplus = 1;
    EXPECT_EQ(hugetlb_unsupported_reason(pool, 3 * 1024 * MiB), std::nullopt) << "3 more by overcommit";
    EXPECT_EQ(hugetlb_unsupported_reason(pool, 4 * 1024 * MiB),
              "not enough free 1 GiB huge pages: 4 needed, 0 free of 0 "
              "(/sys/kernel/mm/hugepages/hugepages-1048576kB/free_hugepages), 3 more by overcommit");
}

TEST(HugePages, UnreadablePoolNamesTheFile) {
    HugeTlbPool pool;
    pool.page_bytes = 2 * MiB;
    pool.total_source = "/sys/x/nr_hugepages";
    EXPECT_EQ(hugetlb_unsupported_reason(pool, 1),
              "cannot read the number of 2 MiB huge pages (/sys/x/nr_hugepages)");
}

TEST(HugePages, ThpModes) {
    const std::string path = "/sys/kernel/mm/transparent_hugepage/enabled";
    EXPECT_EQ(bracketed_choice(fixture("thp_enabled_madvise.txt")), "madvise");
    EXPECT_EQ(bracketed_choice(fixture("thp_enabled_always.txt")), "always");
    EXPECT_EQ(bracketed_choice("always madvise never"), std::nullopt);
    EXPECT_EQ(bracketed_choice("[]"), std::nullopt);
    EXPECT_EQ(thp_unsupported_reason(fixture("thp_enabled_madvise.txt"), path), std::nullopt);
    EXPECT_EQ(thp_unsupported_reason(fixture("thp_enabled_always.txt"), path), std::nullopt);
    EXPECT_EQ(thp_unsupported_reason(fixture("thp_enabled_never.txt"), path),
              "THP disabled: /sys/kernel/mm/transparent_hugepage/enabled is [never]");
    EXPECT_EQ(thp_unsupported_reason(std::nullopt, path),
              "THP not available: /sys/kernel/mm/transparent_hugepage/enabled not found");
    EXPECT_EQ(thp_unsupported_reason(std::string("garbage\n"), path),
              "THP state unknown: /sys/kernel/mm/transparent_hugepage/enabled reads 'garbage'");
}

struct Range {
    std::uintptr_t begin;
    std::uint64_t bytes;
};
SmapsBacking smaps_of(Range r) { return parse_smaps(fixture("smaps.txt"), r.begin, r.begin + r.bytes); }

TEST(HugePages, SmapsThpThatGotHugePages) {
    const SmapsBacking s = smaps_of({0x7f0000000000, 8 * MiB});
    EXPECT_EQ(s.mappings, 1u);
    EXPECT_EQ(s.mapping_bytes, 8 * MiB);
    EXPECT_EQ(s.rss_bytes, 8 * MiB);
    EXPECT_EQ(s.anon_huge_bytes, 8 * MiB);
    EXPECT_EQ(s.hugetlb_bytes, 0u);
    EXPECT_EQ(s.kernel_page_sizes, std::vector<std::uint64_t>{4096});
    const auto record = smaps_backing_record(PageKind::thp, s);
    EXPECT_EQ(record["verified"], true);
    EXPECT_EQ(record["requested"], "thp");
    EXPECT_EQ(record["pages"], "huge");
    EXPECT_EQ(record["huge_bytes"], 8 * MiB);
    EXPECT_EQ(record["as_requested"], true);
}

TEST(HugePages, SmapsThpThatGotBasePagesSaysSo) {
    const auto record = smaps_backing_record(PageKind::thp, smaps_of({0x7f0001000000, 8 * MiB}));
    EXPECT_EQ(record["verified"], true);
    EXPECT_EQ(record["anon_huge_bytes"], 0u);
    EXPECT_EQ(record["rss_bytes"], 8 * MiB);
    EXPECT_EQ(record["pages"], "base");
    EXPECT_EQ(record["as_requested"], false);
}

TEST(HugePages, SmapsHugetlbCountsPagesRssOmits) {
    const SmapsBacking s = smaps_of({0x7f0002000000, 3 * MiB});  // a buffer smaller than its mapping
    EXPECT_EQ(s.rss_bytes, 0u);
    EXPECT_EQ(s.hugetlb_bytes, 4 * MiB);
    EXPECT_EQ(s.resident_bytes, 4 * MiB);
    EXPECT_EQ(s.mapping_bytes, 4 * MiB);
    EXPECT_EQ(s.kernel_page_sizes, std::vector<std::uint64_t>{2 * MiB});
    const auto record = smaps_backing_record(PageKind::hugetlb, s);
    EXPECT_EQ(record["pages"], "huge");
    EXPECT_EQ(record["as_requested"], true);
    EXPECT_EQ(smaps_backing_record(PageKind::hugetlb_1g, s)["as_requested"], false)
        << "2 MiB pages, not 1 GiB";
    const auto one_gib = smaps_backing_record(PageKind::hugetlb_1g, smaps_of({0x40000000, 1024 * MiB}));
    EXPECT_EQ(one_gib["kernel_page_sizes"], nlohmann::json::array({1024 * MiB}));
    EXPECT_EQ(one_gib["as_requested"], true);
}

TEST(HugePages, SmapsSumsEveryOverlappingMapping) {
    const SmapsBacking s = smaps_of({0x7f0003000000, 8 * MiB});
    EXPECT_EQ(s.mappings, 2u);
    EXPECT_EQ(s.anon_huge_bytes, 6 * MiB);
    EXPECT_EQ(s.rss_bytes, 8 * MiB);
    const auto record = smaps_backing_record(PageKind::thp, s);
    EXPECT_EQ(record["pages"], "mixed");
    EXPECT_EQ(record["as_requested"], false);
    // One byte into the second VMA only.
    EXPECT_EQ(smaps_of({0x7f0003400000, 1}).mappings, 1u);
    // The end is exclusive: a range ending where the second VMA begins sees only the first.
    EXPECT_EQ(smaps_of({0x7f0003000000, 4 * MiB}).mappings, 1u);
}

TEST(HugePages, SmapsUntouchedAndMissing) {
    const auto untouched = smaps_backing_record(PageKind::standard, smaps_of({0x7f0005000000, 16 * MiB}));
    EXPECT_EQ(untouched["pages"], "not_resident");
    EXPECT_FALSE(untouched.contains("as_requested")) << "standard pages are not a request to verify";
    const auto missing = smaps_backing_record(PageKind::thp, smaps_of({0x1000, 4096}));
    EXPECT_EQ(missing["verified"], false);
    EXPECT_TRUE(missing.contains("why"));
    EXPECT_EQ(parse_smaps("", 0, ~std::uintptr_t{0}).mappings, 0u);
}

TEST(HugePages, StandardPagesAreNotAPageMemoryKind) {
    EXPECT_THROW(PageMemory(PageKind::standard, 4096), std::invalid_argument);
}

#ifdef __linux__
TEST(HugePagesLinux, LargePagesAreTheWindowsKind) {
    try {
        PageMemory memory(PageKind::large_pages, 4096);
        FAIL() << "large_pages allocated on Linux";
    } catch (const UnsupportedError& e) {
        EXPECT_NE(std::string(e.what()).find("Windows"), std::string::npos) << e.what();
    }
}

// On this machine each kind either allocates (aligned, touched, and smaps sees it) or is
// unsupported with a reason; which one depends on the machine's configuration.
TEST(HugePagesLinux, EachKindAllocatesOrSaysWhyNot) {
    for (const PageKind kind : {PageKind::hugetlb, PageKind::hugetlb_1g, PageKind::thp}) {
        SCOPED_TRACE(std::string(to_string(kind)));
        std::unique_ptr<PageMemory> memory;
        try {
            memory = std::make_unique<PageMemory>(kind, 3 * MiB);
        } catch (const UnsupportedError& e) {
            EXPECT_FALSE(std::string(e.what()).empty());
            EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
            continue;
        }
        const std::uint64_t page = kind == PageKind::hugetlb_1g ? 1024 * MiB : 2 * MiB;
        EXPECT_EQ(reinterpret_cast<std::uintptr_t>(memory->data()) % page, 0u);
        EXPECT_GE(memory->mapped_bytes(), 3 * MiB);
        const auto record = verified_backing(memory->data(), 3 * MiB, kind);
        EXPECT_EQ(record["verified"], true) << record.dump();
        EXPECT_EQ(record["requested"], to_string(kind));
        EXPECT_TRUE(record.contains("as_requested")) << record.dump();
    }
}

TEST(HugePagesLinux, OrdinaryMemoryIsVerified) {
    std::vector<std::byte> bytes(8 * MiB, std::byte{1});
    const auto record = verified_backing(bytes.data(), bytes.size(), PageKind::standard);
    EXPECT_EQ(record["verified"], true) << record.dump();
    EXPECT_GE(record["resident_bytes"].get<std::uint64_t>(), 4 * MiB) << record.dump();
}
#endif

}  // namespace
}  // namespace pinbench::platform
