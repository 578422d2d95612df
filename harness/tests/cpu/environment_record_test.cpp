// The environment record's one home (pinbench/results/environment_record.hpp): typed facts written by
// environment_json() and read back by the record's readers, and the committed fixture
// (reports/tests/written_by_cpp/environment_records.json) that pinreport's readers are checked
// against (reports/tests/test_environment_fixture.py): the records as C++ writes them, with
// what C++ reads from each. Regenerate after a deliberate change:
// PINBENCH_WRITE_FIXTURES=1 ctest -R EnvironmentRecordFixture
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "committed_fixture.hpp"
#include "pinbench/results/environment_record.hpp"
#include "pinbench/store/store.hpp"

namespace pinbench {
namespace {

using nlohmann::json;

template <typename T>
Maybe<T> of(T v) {
    return Maybe<T>::of(std::move(v));
}
Maybe<std::string> text(const char* v) { return Maybe<std::string>::of(v); }

CudaDeviceFacts cuda_device(int index, const char* name, const char* uuid, bool windows) {
    CudaDeviceFacts d;
    d.cuda_index = index;
    CudaDeviceProperties p;
    p.name = name;
    p.uuid = uuid;
    p.total_global_mem = std::uint64_t{25386352640};
    if (windows) {
        p.luid = text(index == 0 ? "a1b2c3d400000000" : "a1b2c3d500000000");
        p.luid_device_node_mask = 1;
    } else {
        p.luid = Maybe<std::string>::none("LUIDs exist on Windows only");
    }
    d.properties = of(p);
    d.compute_capability = text("8.9");
    for (Maybe<int>* a : {&d.tcc_driver, &d.integrated}) *a = of(0);
    for (Maybe<int>* a : {&d.unified_addressing, &d.can_map_host_memory, &d.pageable_memory_access,
                          &d.host_register_supported, &d.pci_domain_id})
        *a = of(windows ? 1 : 0);
    d.async_engine_count = of(2);
    d.pci_bus_id = of(1 + index);
    d.pci_device_id = of(0);
    d.numa_id = Maybe<int>::none("cudaDeviceGetAttribute(NumaId): cudaErrorInvalidValue");
    d.stack_limit_bytes = of(std::uint64_t{1024});
    return d;
}

NvmlDeviceFacts nvml_device(unsigned index, const char* name, const char* uuid, const char* model) {
    NvmlDeviceFacts n;
    n.nvml_index = index;
    n.name = text(name);
    n.uuid = text(uuid);
    n.pci_bus_id = text(index == 0 ? "00000000:01:00.0" : "00000000:02:00.0");
    n.architecture = text("Ada Lovelace");
    n.pcie_gen_current = n.pcie_gen_max = of(4u);
    n.pcie_width_current = n.pcie_width_max = of(16u);
    n.numa_node = Maybe<int>::none("not supported");
    n.persistence_mode = text("disabled");
    n.compute_mode = text("default");
    n.display_active = of(index == 0);
    n.ecc = Maybe<std::string>::none("not supported");
    n.mig = Maybe<std::string>::none("not supported");
    if (model) {
        n.driver_model_current = n.driver_model_pending = text(model);
    } else {
        n.driver_model_current = n.driver_model_pending = Maybe<std::string>::none("not available on Linux");
    }
    n.memory_total = of(std::uint64_t{25757220864});
    return n;
}

OsFacts windows_os() {
    OsFacts os;
    os.platform = "windows";
    os.os_name = text("Windows 11 Pro");
    os.os_build = text("10.0.26100.4061");
    os.hostname = text("gpu-runner-7");
    os.host_ram_bytes = of(std::uint64_t{68451041280});
    os.cpu_count = of(std::uint64_t{32});
    OsFacts::Windows w;
    w.os_edition = text("Professional");
    w.hardware_accelerated_gpu_scheduling = text("on");
    w.session_id = of(std::uint32_t{0});
    w.sysmem_fallback_policy = Maybe<std::string>::none("not exposed through a documented API");
    os.windows = w;
    return os;
}

OsFacts linux_os() {
    OsFacts os;
    os.platform = "linux";
    os.os_name = text("Ubuntu 24.04.2 LTS");
    os.kernel = text("6.8.0-60-generic");
    os.os_build = text("#63-Ubuntu SMP PREEMPT_DYNAMIC");
    os.hostname = text("h200-control");
    os.host_ram_bytes = of(std::uint64_t{135089954816});
    os.cpu_count = of(std::uint64_t{16});
    return os;
}

CudaFacts cuda_13() {
    return {of(13000), of(13000), of(13000), Maybe<std::string>::none("not set (driver default)")};
}

// Two WDDM GPUs on a Windows runner, with a neighbour on the first.
EnvironmentRecord windows_two_gpus() {
    EnvironmentRecord r;
    r.os = windows_os();
    r.cuda = cuda_13();
    r.driver_release = text("581.57");
    r.cuda_device_order = text("PCI_BUS_ID");
    r.cuda_visible_devices = Maybe<std::string>::none("not set");
    r.cuda_device_count = 2;
    r.nvml_device_count = of(2u);
    for (unsigned i = 0; i < 2; ++i) {
        const char* uuid =
            i == 0 ? "GPU-00000000-1111-2222-3333-444444444444" : "GPU-55555555-6666-7777-8888-999999999999";
        DeviceRecord d;
        d.cuda = cuda_device(static_cast<int>(i), "NVIDIA GeForce RTX 4090", uuid, true);
        d.nvml_index = i;
        d.nvml = of(nvml_device(i, "NVIDIA GeForce RTX 4090", uuid, "WDDM"));
        r.devices.push_back(d);
    }
    r.other_compute_processes.push_back({0, 4242, Maybe<std::uint64_t>::none("not available under WDDM")});
    return r;
}

// The Linux control: one H200, CUDA_VISIBLE_DEVICES mapping CUDA 0 to NVML 3.
EnvironmentRecord linux_one_gpu() {
    EnvironmentRecord r;
    r.os = linux_os();
    r.cuda = cuda_13();
    r.driver_release = text("580.95.05");
    r.cuda_device_order = Maybe<std::string>::none("not set");
    r.cuda_visible_devices = text("3");
    r.cuda_device_count = 1;
    r.nvml_device_count = of(8u);
    DeviceRecord d;
    d.cuda = cuda_device(0, "NVIDIA H200", "GPU-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee", false);
    d.nvml_index = 3;
    d.nvml = of(nvml_device(3, "NVIDIA H200", "GPU-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee", nullptr));
    r.devices.push_back(d);
    return r;
}

// WSL2 on a Windows desktop: the Linux binary on the Windows WDDM driver through /dev/dxg. NVML
// there has no driver model and no process list; the record says WDDM (WSL2).
EnvironmentRecord wsl2_one_gpu() {
    EnvironmentRecord r;
    r.os = linux_os();
    r.os.os_name = text("Ubuntu 24.04.1 LTS");
    r.os.kernel = text("5.15.167.4-microsoft-standard-WSL2");
    r.os.os_build = text("#1 SMP Tue Nov 5 00:21:55 UTC 2024");
    r.os.hostname = text("desktop-wsl");
    r.os.wsl = wsl_facts({"5.15.167.4-microsoft-standard-WSL2", "", true, true});
    r.cuda = cuda_13();
    r.driver_release = text("581.57");
    r.cuda_device_order = r.cuda_visible_devices = Maybe<std::string>::none("not set");
    r.cuda_device_count = 1;
    r.nvml_device_count = of(1u);
    DeviceRecord d;
    d.cuda = cuda_device(0, "NVIDIA GeForce RTX 4090", "GPU-00000000-1111-2222-3333-444444444444", false);
    d.nvml_index = 0;
    NvmlDeviceFacts n =
        nvml_device(0, "NVIDIA GeForce RTX 4090", "GPU-00000000-1111-2222-3333-444444444444", nullptr);
    n.driver_model_current = n.driver_model_pending =
        Maybe<std::string>::none("nvmlDeviceGetDriverModel_v2: Not Supported");
    d.nvml = of(n);
    r.devices.push_back(d);
    return r;
}

// A Windows GPU NVML does not list (no UUID match): its driver model is unknown.
EnvironmentRecord windows_unmatched() {
    EnvironmentRecord r = windows_two_gpus();
    r.devices.resize(1);
    r.cuda_device_count = 1;
    r.devices[0].nvml_index.reset();
    r.devices[0].nvml = Maybe<NvmlDeviceFacts>::none("no NVML device has this GPU's UUID or PCI bus id");
    r.other_compute_processes.clear();
    return r;
}

// No driver: no NVML, no CUDA device.
EnvironmentRecord no_gpu() {
    EnvironmentRecord r;
    r.os = linux_os();
    const auto none = Maybe<int>::none("cudaDriverGetVersion: cudaErrorInsufficientDriver");
    r.cuda = {none, none, of(13000), Maybe<std::string>::none("not set (driver default)")};
    r.driver_release = Maybe<std::string>::none("NVML: libnvidia-ml.so.1: cannot open shared object file");
    r.cuda_device_order = r.cuda_visible_devices = Maybe<std::string>::none("not set");
    r.nvml_why = "libnvidia-ml.so.1: cannot open shared object file";
    r.cuda_device_count = 0;
    r.cuda_device_count_why = "cudaGetDeviceCount: cudaErrorNoDevice";
    r.nvml_device_count = Maybe<unsigned>::none(r.nvml_why);
    return r;
}

struct Case {
    const char* name;
    EnvironmentRecord record;
};

std::vector<Case> cases() {
    return {{"windows-two-gpus", windows_two_gpus()},
            {"linux-one-gpu", linux_one_gpu()},
            {"windows-unmatched", windows_unmatched()},
            {"no-gpu", no_gpu()},
            {"wsl2-one-gpu", wsl2_one_gpu()}};
}

// What the harness's readers get from a written record.
json reads(const json& env) {
    json names = json::array(), models = json::array(), luids = json::array(), nvml = json::array();
    for (std::size_t i = 0; i < described_device_count(env); ++i) {
        names.push_back(device_name_of(env, i));
        models.push_back(driver_model_of(env, i));
        luids.push_back(device_luid_of(env, i));
        const auto n = nvml_index_of(env, i);
        nvml.push_back(n ? json(*n) : json(nullptr));
    }
    const auto count = cuda_device_count_of(env);
    const StoreKey k = store_key_of(env);
    return {{"platform", platform_of(env)},
            {"driver_release", driver_release_of(env)},
            {"cuda_device_count", count ? json(*count) : json(nullptr)},
            {"device_names", names},
            {"driver_models", models},
            {"device_luids", luids},
            {"nvml_indices", nvml},
            {"store_key",
             {{"platform", k.platform},
              {"driver_model", k.driver_model},
              {"gpu", k.gpu},
              {"gpu_count", k.gpu_count},
              {"release", k.release}}}};
}

json fixture() {
    json out = json::array();
    for (const Case& c : cases()) {
        const json env = environment_json(c.record);
        out.push_back({{"name", c.name}, {"environment", env}, {"reads", reads(env)}});
    }
    return {{"written_by", "harness/tests/cpu/environment_record_test.cpp"}, {"records", out}};
}

TEST(EnvironmentRecord, ReadersGiveBackTheTypedFacts) {
    for (const Case& c : cases()) {
        SCOPED_TRACE(c.name);
        const EnvironmentRecord& r = c.record;
        const json env = environment_json(r);
        EXPECT_EQ(platform_of(env), r.os.platform);
        EXPECT_EQ(driver_release_of(env), r.driver_release.value.value_or(""));
        EXPECT_EQ(cuda_device_count_of(env), r.cuda_device_count);
        EXPECT_EQ(cuda_device_count_why_of(env), r.cuda_device_count == 0 ? r.cuda_device_count_why : "");
        ASSERT_EQ(described_device_count(env), r.devices.size());
        for (std::size_t i = 0; i < r.devices.size(); ++i) {
            const DeviceRecord& d = r.devices[i];
            EXPECT_EQ(device_name_of(env, i), d.cuda.properties.value->name);
            EXPECT_EQ(device_luid_of(env, i), d.cuda.properties.value->luid.value.value_or(""));
            EXPECT_EQ(nvml_index_of(env, i), d.nvml_index);
            const std::string model = r.os.wsl                   ? kWsl2DriverModel
                                      : r.os.platform == "linux" ? "linux"
                                      : d.nvml.value             ? *d.nvml.value->driver_model_current.value
                                                                 : "unknown";
            EXPECT_EQ(driver_model_of(env, i), model);
        }
    }
}

TEST(EnvironmentRecord, WritesWindowsFactsOnlyOnWindowsAndUnavailableWithTheReason) {
    const json win = environment_json(windows_two_gpus()), lin = environment_json(linux_one_gpu());
    EXPECT_EQ(win["os"]["session0"], true);
    EXPECT_EQ(win["os"]["hardware_accelerated_gpu_scheduling"], "on");
    EXPECT_FALSE(win["os"].contains("kernel"));
    EXPECT_FALSE(lin["os"].contains("session0"));
    EXPECT_EQ(lin["os"]["kernel"], "6.8.0-60-generic");
    EXPECT_EQ(lin["devices"][0]["luid"], json({{"unavailable", "LUIDs exist on Windows only"}}));
    EXPECT_EQ(lin["devices"][0]["nvml_index"], 3);
    EXPECT_EQ(lin["devices"][0]["nvml"]["nvml_index"], 3);
    const json none = environment_json(no_gpu());
    EXPECT_EQ(none["nvml"],
              json({{"available", false}, {"why", "libnvidia-ml.so.1: cannot open shared object file"}}));
    EXPECT_EQ(none["driver"]["release"]["unavailable"],
              "NVML: libnvidia-ml.so.1: cannot open shared object file");
    EXPECT_EQ(none["cuda_device_count_why"], "cudaGetDeviceCount: cudaErrorNoDevice");
    EXPECT_EQ(none["devices"], json::array());
    EXPECT_EQ(win["other_compute_processes"][0]["used"]["unavailable"], "not available under WDDM");
}

TEST(EnvironmentRecord, OlderRecordsGiveTheNvmlIndexOfTheirNvmlBlock) {
    json old = json::object();
    old["devices"] = json::array({json::object(), json::object(), 7});
    old["devices"][0]["nvml"]["nvml_index"] = 2;
    old["devices"][1]["nvml"]["unavailable"] = "x";
    EXPECT_EQ(nvml_index_of(old, 0), 2u);
    EXPECT_EQ(nvml_index_of(old, 1), std::nullopt);
    EXPECT_EQ(nvml_index_of(old, 2), std::nullopt);
    EXPECT_EQ(driver_model_of(old, 2), "unknown");
    EXPECT_EQ(device_name_of(old, 5), "");
}

TEST(EnvironmentRecord, ReplayedCopiesAreMarkedAndRelabelled) {
    const json env = replayed_environment(environment_json(windows_two_gpus()), "590.01", "MCDM");
    EXPECT_EQ(driver_release_of(env), "590.01");
    EXPECT_EQ(driver_model_of(env, 1), "MCDM");
    EXPECT_EQ(env["replayed"], true);
}

TEST(EnvironmentRecord, ResumeComparesTheMachineIdentity) {
    const auto a = machine_identity_of(environment_json(windows_two_gpus()));
    ASSERT_EQ(a.size(), 5u);
    EXPECT_EQ(a[1], std::make_pair(std::string("driver.release"), std::string("581.57")));
    EXPECT_EQ(a[4].second, "WDDM");
    EXPECT_NE(machine_identity_of(environment_json(windows_unmatched())), a);
}

// doctor's lines: a driver model NVML could not read says why, one NVML does not list says unknown.
TEST(EnvironmentRecord, SummarySaysWhyADriverModelIsNotKnown) {
    EnvironmentRecord r = windows_two_gpus();
    r.devices[1].nvml.value->driver_model_current =
        Maybe<std::string>::none("nvmlDeviceGetDriverModel: NVML_ERROR_NO_PERMISSION");
    const auto lines = environment_summary(environment_json(r));
    const auto line = [&](const std::string& label) {
        for (const auto& [l, text] : lines) {
            if (l == label) return text;
        }
        return std::string("(no line)");
    };
    EXPECT_EQ(line("device 0"), "NVIDIA GeForce RTX 4090, driver model WDDM");
    EXPECT_EQ(line("device 1"),
              "NVIDIA GeForce RTX 4090, driver model not available (nvmlDeviceGetDriverModel: "
              "NVML_ERROR_NO_PERMISSION)");
    EXPECT_EQ(line("driver release"), "581.57");
    EXPECT_EQ(line("other compute procs"), "1");
    const auto unmatched = environment_summary(environment_json(windows_unmatched()));
    EXPECT_EQ(unmatched[5].second, "NVIDIA GeForce RTX 4090, driver model unknown");
}

TEST(EnvironmentRecordFixture, CommittedCopyIsCurrent) {
    fixtures::expect_committed_fixture("environment_records.json", fixture(), "EnvironmentRecordFixture");
}

// The fixture is worth reading only if its cases cover what pinreport reads.
TEST(EnvironmentRecordFixture, HoldsKnownAndUnknownFacts) {
    const json f = fixture();
    EXPECT_EQ(f["records"][0]["reads"]["store_key"]["driver_model"], "wddm");
    EXPECT_EQ(f["records"][1]["reads"]["store_key"]["platform"], "linux");
    EXPECT_EQ(f["records"][2]["reads"]["store_key"]["driver_model"], "unknown-driver-model");
    EXPECT_EQ(f["records"][3]["reads"]["store_key"]["release"], "unknown-release");
    EXPECT_EQ(f["records"][3]["reads"]["store_key"]["gpu"], "unknown-gpu");
    EXPECT_EQ(f["records"][4]["reads"]["driver_models"][0], kWsl2DriverModel);
    EXPECT_EQ(f["records"][4]["reads"]["store_key"]["driver_model"], "wddm-wsl2");
}

}  // namespace
}  // namespace pinbench
