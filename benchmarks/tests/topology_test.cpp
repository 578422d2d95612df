// Pure helpers of the benchmark programs' context (benchmarks/topology.cpp): the PCIe
// link's theoretical rate, PCI address spellings, CPU lists and size labels, checked against
// values computed by hand.
#include <gtest/gtest.h>

#include <vector>

#include "topology.hpp"

namespace pinbench::bench {
namespace {

TEST(PcieLinkRate, Gen5x16Is63GBps) {
    // 32 GT/s * 16 lanes * 128/130 / 8 = 63.0154 GB/s.
    const LinkRate r = pcie_link_rate(5, 16);
    ASSERT_TRUE(r.bytes_per_second);
    EXPECT_NEAR(*r.bytes_per_second, 63.0154e9, 1e5);
    EXPECT_EQ(r.basis, "PCIe Gen5 x16: 32 GT/s per lane, 128b/130b encoding");
}

TEST(PcieLinkRate, OlderGenerationsUseTheirEncoding) {
    // Gen1 x16: 2.5 * 16 * 0.8 / 8 = 4 GB/s; Gen2 x8: 5 * 8 * 0.8 / 8 = 4 GB/s.
    EXPECT_DOUBLE_EQ(*pcie_link_rate(1, 16).bytes_per_second, 4e9);
    EXPECT_DOUBLE_EQ(*pcie_link_rate(2, 8).bytes_per_second, 4e9);
    // Gen3 x16: 8 * 16 * 128/130 / 8 = 15.7538 GB/s; Gen4 x4: 16 * 4 * 128/130 / 8 = 7.8769 GB/s.
    EXPECT_NEAR(*pcie_link_rate(3, 16).bytes_per_second, 15.7538e9, 1e5);
    EXPECT_NEAR(*pcie_link_rate(4, 4).bytes_per_second, 7.87692e9, 1e4);
    EXPECT_EQ(pcie_link_rate(2, 8).basis, "PCIe Gen2 x8: 5 GT/s per lane, 8b/10b encoding");
}

TEST(PcieLinkRate, Gen6AndUnknownAreNotComputed) {
    for (const auto& [gen, width] :
         std::vector<std::pair<unsigned, unsigned>>{{6, 16}, {7, 16}, {0, 16}, {5, 0}}) {
        const LinkRate r = pcie_link_rate(gen, width);
        EXPECT_FALSE(r.bytes_per_second) << gen << " x" << width;
        EXPECT_EQ(r.basis.rfind("not computed", 0), 0u) << r.basis;
    }
}

TEST(SysfsPciAddress, ShortensNvmlsDomainAndLowersCase) {
    EXPECT_EQ(sysfs_pci_address("00000000:3B:00.0"), "0000:3b:00.0");
    EXPECT_EQ(sysfs_pci_address("00000001:C1:1F.7"), "0001:c1:1f.7");
    EXPECT_EQ(sysfs_pci_address("0000:3b:00.0"), "0000:3b:00.0");
    EXPECT_EQ(sysfs_pci_address(std::string("00000000:3B:00.0\0\0", 18)), "0000:3b:00.0");
}

TEST(SysfsPciAddress, RejectsMalformedText) {
    for (const char* bad : {"", "3B:00.0", "0000:3b:00", "0000:3g:00.0", "not available", "100000000:3B:00.0",
                            "00010000:3B:00.0"}) {
        EXPECT_FALSE(sysfs_pci_address(bad)) << bad;
    }
}

TEST(SamePciDevice, ComparesDomainBusAndDevice) {
    EXPECT_TRUE(same_pci_device("0000:3b:00.0", 0, 0x3b, 0));
    EXPECT_TRUE(same_pci_device("00000000:3B:00.0", 0, 0x3b, 0));
    EXPECT_FALSE(same_pci_device("0000:3b:00.0", 0, 0x3c, 0));
    EXPECT_FALSE(same_pci_device("0000:3b:00.0", 1, 0x3b, 0));
    EXPECT_FALSE(same_pci_device("garbage", 0, 0x3b, 0));
}

TEST(ParseCpulist, RangesAndSinglesInOrder) {
    EXPECT_EQ(parse_cpulist("0-3,8,10-11\n"), (std::vector<unsigned>{0, 1, 2, 3, 8, 10, 11}));
    EXPECT_EQ(parse_cpulist("5"), (std::vector<unsigned>{5}));
    EXPECT_EQ(parse_cpulist("16-17,0-1"), (std::vector<unsigned>{0, 1, 16, 17}));
}

TEST(ParseCpulist, RejectsMalformedLists) {
    for (const char* bad : {"", "\n", "3-1", "a", "1,,2", "1-", "-1", "0-3,"}) {
        EXPECT_FALSE(parse_cpulist(bad)) << '"' << bad << '"';
    }
}

TEST(SizeLabel, LargestExactBinaryUnit) {
    EXPECT_EQ(size_label(0), "0B");
    EXPECT_EQ(size_label(1000), "1000B");
    EXPECT_EQ(size_label(4096), "4KiB");
    EXPECT_EQ(size_label(std::size_t{3} << 20), "3MiB");
    EXPECT_EQ(size_label(std::size_t{1} << 30), "1GiB");
    EXPECT_EQ(size_label(std::size_t{4} << 30), "4GiB");
    EXPECT_EQ(size_label((std::size_t{1} << 20) + 1024), "1025KiB");
}

}  // namespace
}  // namespace pinbench::bench
