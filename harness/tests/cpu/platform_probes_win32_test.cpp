// The Windows probes without CUDA: the device LUID a CUDA build reads from cudaDeviceProp is
// injected from the adapter list DXGI gives (under Wine: its emulated adapter, with
// WINE_D3D_CONFIG=renderer=no3d). Checks that the DXGI probe finds the adapter by LUID and
// labels the local and non-local segment groups, and that PDH says why it has nothing.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "pinbench/probes/platform_probes.hpp"
#include "pinbench/probes/snapshot.hpp"
#include "windows_support.hpp"

namespace pinbench {
namespace {

// The first adapter DXGI lists, as the LUID bytes CUDA would report for it.
std::optional<Luid> first_dxgi_luid(std::string* description) {
    for (const auto& adapter : list_os_adapters()) {
        if (adapter.value("source", "") != "dxgi" || !adapter.contains("luid_bytes")) continue;
        const std::string hex = adapter["luid_bytes"].get<std::string>();
        if (hex.size() != 16) continue;
        Luid luid{};
        for (std::size_t i = 0; i < luid.size(); ++i)
            luid[i] = static_cast<std::uint8_t>(std::stoul(hex.substr(2 * i, 2), nullptr, 16));
        *description = adapter.value("description", "");
        return luid;
    }
    return std::nullopt;
}

const Probe* find_probe(const std::vector<std::unique_ptr<Probe>>& probes, const std::string& name) {
    for (const auto& p : probes)
        if (p->name() == name) return p.get();
    return nullptr;
}

TEST(PlatformProbesWin32, DxgiListsAnAdapterWithItsLuid) {
    const nlohmann::json adapters = list_os_adapters();
    ASSERT_TRUE(adapters.is_array());
    bool dxgi = false;
    for (const auto& a : adapters) {
        if (a.value("source", "") != "dxgi" || a.contains("unavailable")) continue;
        dxgi = true;
        EXPECT_EQ(a["luid"].get<std::string>().size(), std::string("0x00000000_0x00000000").size())
            << a.dump();
        EXPECT_EQ(a["luid_bytes"].get<std::string>().size(), 16u) << a.dump();
    }
    EXPECT_TRUE(dxgi) << adapters.dump(2);
    // dxcore.dll: absent under Wine and where the SDK lacks dxcore.h (mingw-w64); then an entry says why.
    for (const auto& a : adapters)
        if (a.value("source", "") == "dxcore" && a.contains("unavailable"))
            EXPECT_FALSE(a["unavailable"].get<std::string>().empty());
}

TEST(PlatformProbesWin32, DxgiProbeMatchesTheInjectedLuidAndLabelsLocalAndNonLocal) {
    std::string description;
    const auto luid = first_dxgi_luid(&description);
    ASSERT_TRUE(luid.has_value()) << "DXGI lists no adapter: " << list_os_adapters().dump(2);
    auto probes = make_platform_probes(luid, current_process_id());
    ProbeSet set;
    const Probe* dxgi = find_probe(probes, "dxgi");
    ASSERT_NE(dxgi, nullptr);
    EXPECT_NE(dxgi->source().find("for adapter LUID 0x"), std::string::npos) << dxgi->source();
    EXPECT_NE(dxgi->source().find(description), std::string::npos) << dxgi->source();
    for (auto& p : probes) set.add(std::move(p));
    const Readings r = set.read_all();
    for (const char* key :
         {"dxgi.local.usage", "dxgi.local.budget", "dxgi.nonlocal.usage", "dxgi.nonlocal.budget"}) {
        ASSERT_TRUE(r.count(key)) << key;
        EXPECT_TRUE(r.at(key).bytes.has_value()) << key << ": " << r.at(key).unavailable;
    }
}

TEST(PlatformProbesWin32, AnUnknownLuidSaysNoAdapterHasIt) {
    const Luid nowhere{0xfe, 0xca, 0xfe, 0xca, 0x00, 0x00, 0x00, 0x7f};
    ProbeSet set;
    for (auto& p : make_platform_probes(nowhere, current_process_id())) set.add(std::move(p));
    const Readings r = set.read_all();
    ASSERT_TRUE(r.count("dxgi.local.usage"));
    EXPECT_FALSE(r.at("dxgi.local.usage").bytes.has_value());
    EXPECT_NE(r.at("dxgi.local.usage").unavailable.find("no DXGI adapter with LUID 0x7F000000_0xCAFECAFE"),
              std::string::npos)
        << r.at("dxgi.local.usage").unavailable;
}

TEST(PlatformProbesWin32, NoLuidMeansEveryProbeSaysWhy) {
    ProbeSet set;
    for (auto& p : make_platform_probes(std::nullopt, current_process_id())) set.add(std::move(p));
    for (const auto& [key, reading] : set.read_all()) {
        EXPECT_FALSE(reading.bytes.has_value()) << key;
        EXPECT_NE(reading.unavailable.find("no LUID"), std::string::npos)
            << key << ": " << reading.unavailable;
    }
}

// When no PDH counter could be added (no GPU counters: Wine, Windows before 1709, a machine
// without WDDM adapters), each reading gives the reason its counter failed, not the
// PDH_NO_DATA of collecting an empty query.
TEST(PlatformProbesWin32, PdhSaysWhyEachCounterIsMissing) {
    std::string description;
    const auto luid = first_dxgi_luid(&description);
    ASSERT_TRUE(luid.has_value());
    ProbeSet set;
    for (auto& p : make_platform_probes(luid, current_process_id())) set.add(std::move(p));
    const Readings r = set.read_all();
    int added = 0;
    for (const char* key :
         {"pdh.process.dedicated", "pdh.process.shared", "pdh.adapter.dedicated", "pdh.adapter.shared"}) {
        ASSERT_TRUE(r.count(key)) << key;
        const Reading& reading = r.at(key);
        EXPECT_EQ(reading.unavailable.find("PdhCollectQueryData failed"), std::string::npos)
            << key << ": " << reading.unavailable;
        if (reading.unavailable.find("PdhAddEnglishCounterW") == std::string::npos) ++added;
    }
    if (added > 0)
        GTEST_SKIP() << added << " of 4 GPU counters exist here; the case of none is not this machine's";
}

}  // namespace
}  // namespace pinbench
