// Windows probes: DXGI QueryVideoMemoryInfo (the WDDM budget and usage of this process on one
// adapter), PDH "GPU Process Memory" / "GPU Adapter Memory" counters (what Task Manager shows),
// the adapters DXGI and DXCore list, and the OS part of the environment record.
// dxgi.dll, pdh.dll and dxcore.dll are not KnownDLLs: imported, Windows would look for them in
// the program's folder first, where a planted copy would run inside pinbench (a download
// folder). So none is imported: each is loaded at run time from System32 only
// (DynamicLibrary::open_system), its functions looked up by name (docs/windows.md, "Which DLLs
// pinbench loads").
#include "pinbench/probes/platform_probes.hpp"

#include <windows.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "pinbench/platform/dynamic_library.hpp"
#include "platform/handles_win32.hpp"
// The Windows headers below rely on <windows.h> coming first (kept apart from the sorted block).
#include <dxgi1_4.h>
#include <pdh.h>
#include <pdhmsg.h>
#include <winreg.h>
#include <wrl/client.h>

#if __has_include(<dxcore.h>)
#include <dxcore.h>
#define PINBENCH_HAVE_DXCORE 1
#else
#define PINBENCH_HAVE_DXCORE 0  // older SDKs and mingw-w64 lack it
#endif

namespace pinbench {
namespace {

using Microsoft::WRL::ComPtr;

using Text = Maybe<std::string>;

std::string hresult_text(HRESULT hr) { return win32::error_text(static_cast<DWORD>(hr)); }

// --- The system DLLs, loaded at run time ---------------------------------------------------

// The PDH functions the probe calls, from System32's pdh.dll; `why` when it did not load.
struct PdhApi {
    std::unique_ptr<DynamicLibrary> library;
    std::string why;
    decltype(&::PdhOpenQueryW) open_query = nullptr;
    decltype(&::PdhCloseQuery) close_query = nullptr;
    decltype(&::PdhAddEnglishCounterW) add_english_counter = nullptr;
    decltype(&::PdhCollectQueryData) collect_query_data = nullptr;
    decltype(&::PdhGetFormattedCounterArrayW) get_formatted_counter_array = nullptr;
};

template <typename Fn>
bool look_up(const DynamicLibrary& library, const char* name, Fn& out, std::string& why) {
    out = reinterpret_cast<Fn>(library.symbol(name));
    if (out == nullptr && why.empty()) why = library.loaded_name() + " has no " + name;
    return out != nullptr;
}

PdhApi load_pdh() {
    PdhApi api;
    api.library = DynamicLibrary::open_system("pdh.dll", &api.why);
    if (!api.library) return api;
    const DynamicLibrary& l = *api.library;
    const bool all = look_up(l, "PdhOpenQueryW", api.open_query, api.why) &&
                     look_up(l, "PdhCloseQuery", api.close_query, api.why) &&
                     look_up(l, "PdhAddEnglishCounterW", api.add_english_counter, api.why) &&
                     look_up(l, "PdhCollectQueryData", api.collect_query_data, api.why) &&
                     look_up(l, "PdhGetFormattedCounterArrayW", api.get_formatted_counter_array, api.why);
    if (!all) api.library.reset();
    return api;
}

// Loaded once, on first use, and never changed after.
const PdhApi& pdh() {
    static const PdhApi api = load_pdh();
    return api;
}

using CreateDxgiFactory1 = HRESULT(WINAPI*)(REFIID, void**);

struct DxgiApi {
    std::unique_ptr<DynamicLibrary> library;
    std::string why;
    CreateDxgiFactory1 create_factory1 = nullptr;
};

const DxgiApi& dxgi() {
    static const DxgiApi api = [] {
        DxgiApi a;
        a.library = DynamicLibrary::open_system("dxgi.dll", &a.why);
        if (a.library && !look_up(*a.library, "CreateDXGIFactory1", a.create_factory1, a.why)) {
            a.library.reset();
        }
        return a;
    }();
    return api;
}

// CreateDXGIFactory1 from System32's dxgi.dll, or why there is none.
HRESULT create_dxgi_factory(ComPtr<IDXGIFactory1>& factory, std::string& why) {
    if (dxgi().library == nullptr) {
        why = "dxgi.dll not loaded: " + dxgi().why;
        return E_NOTIMPL;
    }
    const HRESULT hr =
        dxgi().create_factory1(__uuidof(IDXGIFactory1), reinterpret_cast<void**>(factory.GetAddressOf()));
    if (FAILED(hr)) why = "CreateDXGIFactory1 failed: " + hresult_text(hr);
    return hr;
}

std::string pdh_text(PDH_STATUS status) {
    const HMODULE module = ::GetModuleHandleW(L"pdh.dll");  // the one pdh() loaded, for its messages
    return win32::error_text(static_cast<DWORD>(status), module);
}

// --- LUIDs ---------------------------------------------------------------------------------
// cudaDeviceProp::luid holds the 8 bytes of a LUID struct: LowPart (little-endian), then HighPart.

LUID to_luid(const Luid& b) {
    const auto word = [&](int at) {
        return static_cast<DWORD>(b[at]) | static_cast<DWORD>(b[at + 1]) << 8 |
               static_cast<DWORD>(b[at + 2]) << 16 | static_cast<DWORD>(b[at + 3]) << 24;
    };
    LUID luid{};
    luid.LowPart = word(0);
    luid.HighPart = static_cast<LONG>(word(4));
    return luid;
}

bool same_luid(const LUID& a, const LUID& b) { return a.LowPart == b.LowPart && a.HighPart == b.HighPart; }

// "0x00000000_0x0000D1B7": HighPart then LowPart, the spelling of PDH instance names.
std::string luid_text(const LUID& luid) {
    char text[32];
    std::snprintf(text, sizeof text, "0x%08lX_0x%08lX",
                  static_cast<unsigned long>(static_cast<DWORD>(luid.HighPart)),
                  static_cast<unsigned long>(luid.LowPart));
    return text;
}

// The 8 bytes in cudaDeviceProp::luid order, as lowercase hex (as the CUDA environment record writes them).
std::string luid_bytes(const LUID& luid) {
    const auto high = static_cast<DWORD>(luid.HighPart);
    std::string text;
    char byte[3];
    for (const DWORD word : {luid.LowPart, high}) {
        for (int shift = 0; shift < 32; shift += 8) {
            std::snprintf(byte, sizeof byte, "%02x", static_cast<unsigned>((word >> shift) & 0xFF));
            text += byte;
        }
    }
    return text;
}

std::string lowercase(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

// --- DXGI ----------------------------------------------------------------------------------

// QueryVideoMemoryInfo per read: usage and budget of the local (dedicated) and non-local
// (shared) segment groups, as the OS video memory manager accounts them for this process.
class DxgiProbe final : public Probe {
public:
    DxgiProbe(const std::optional<Luid>& luid, std::uint32_t pid) : pid_(pid) {
        if (!luid) {
            why_ = "no LUID for this device (TCC or a device CUDA reports no WDDM adapter for)";
            return;
        }
        luid_ = to_luid(*luid);
        if (pid != ::GetCurrentProcessId()) {
            why_ = "DXGI QueryVideoMemoryInfo reports only the calling process (pid " +
                   std::to_string(::GetCurrentProcessId()) + "), not pid " + std::to_string(pid);
            return;
        }
        ComPtr<IDXGIFactory1> factory;
        HRESULT hr = create_dxgi_factory(factory, why_);
        if (FAILED(hr)) return;
        for (UINT i = 0;; ++i) {
            ComPtr<IDXGIAdapter1> adapter;
            hr = factory->EnumAdapters1(i, adapter.GetAddressOf());
            if (hr == DXGI_ERROR_NOT_FOUND) break;
            if (FAILED(hr)) {
                why_ = "IDXGIFactory1::EnumAdapters1 failed: " + hresult_text(hr);
                return;
            }
            DXGI_ADAPTER_DESC1 desc{};
            if (FAILED(adapter->GetDesc1(&desc)) || !same_luid(desc.AdapterLuid, *luid_)) continue;
            description_ = win32::narrow(desc.Description);
            hr = adapter.As(&adapter_);
            if (FAILED(hr)) why_ = "IDXGIAdapter3 not supported (needs Windows 10): " + hresult_text(hr);
            return;
        }
        why_ = "no DXGI adapter with LUID " + luid_text(*luid_) + ": TCC adapters are not listed by DXGI";
    }

    std::string name() const override { return "dxgi"; }
    std::string source() const override {
        std::string s = "IDXGIAdapter3::QueryVideoMemoryInfo in pid " + std::to_string(pid_);
        if (luid_) s += " for adapter LUID " + luid_text(*luid_);
        if (!description_.empty()) s += " (" + description_ + ")";
        return s;
    }
    void read(Readings& out) override {
        read_group(out, DXGI_MEMORY_SEGMENT_GROUP_LOCAL, "dxgi.local.");
        read_group(out, DXGI_MEMORY_SEGMENT_GROUP_NON_LOCAL, "dxgi.nonlocal.");
    }

private:
    void read_group(Readings& out, DXGI_MEMORY_SEGMENT_GROUP group, const std::string& prefix) {
        if (!adapter_) {
            out[prefix + "usage"] = Reading::not_available(why_);
            out[prefix + "budget"] = Reading::not_available(why_);
            return;
        }
        DXGI_QUERY_VIDEO_MEMORY_INFO info{};
        const HRESULT hr = adapter_->QueryVideoMemoryInfo(0, group, &info);
        if (FAILED(hr)) {
            const std::string why = "QueryVideoMemoryInfo failed: " + hresult_text(hr);
            out[prefix + "usage"] = Reading::not_available(why);
            out[prefix + "budget"] = Reading::not_available(why);
            return;
        }
        out[prefix + "usage"] = Reading::of(static_cast<std::int64_t>(info.CurrentUsage));
        out[prefix + "budget"] = Reading::of(static_cast<std::int64_t>(info.Budget));
    }

    std::uint32_t pid_;
    std::optional<LUID> luid_;
    std::string description_;
    ComPtr<IDXGIAdapter3> adapter_;
    std::string why_;  // when adapter_ is null
};

// --- PDH -----------------------------------------------------------------------------------

class PdhQuery {
public:
    PdhQuery() = default;
    ~PdhQuery() {
        if (query_ != nullptr) pdh().close_query(query_);
    }
    PdhQuery(const PdhQuery&) = delete;
    PdhQuery& operator=(const PdhQuery&) = delete;
    PDH_STATUS open() { return pdh().open_query(nullptr, 0, &query_); }  // pdh() is loaded
    PDH_HQUERY get() const { return query_; }

private:
    PDH_HQUERY query_ = nullptr;
};

struct PdhCounterSpec {
    const char* key;
    const wchar_t* path;
    bool per_process;
};

// English names (PdhAddEnglishCounterW) work on every display language. All instances are
// collected and filtered here: instance names are "pid_<pid>_luid_0x<high>_0x<low>_phys_<n>"
// and "luid_0x<high>_0x<low>_phys_<n>"; filtering by hand avoids "pid_12*" also matching pid 123.
constexpr PdhCounterSpec kPdhCounters[] = {
    {"pdh.process.dedicated", L"\\GPU Process Memory(*)\\Dedicated Usage", true},
    {"pdh.process.shared", L"\\GPU Process Memory(*)\\Shared Usage", true},
    {"pdh.adapter.dedicated", L"\\GPU Adapter Memory(*)\\Dedicated Usage", false},
    {"pdh.adapter.shared", L"\\GPU Adapter Memory(*)\\Shared Usage", false},
};

class PdhProbe final : public Probe {
public:
    PdhProbe(const std::optional<Luid>& luid, std::uint32_t pid) : pid_(pid) {
        if (!luid) {
            why_ = "no LUID for this device (TCC or a device CUDA reports no WDDM adapter for)";
            return;
        }
        luid_tag_ = lowercase("luid_" + luid_text(to_luid(*luid)));
        pid_tag_ = "pid_" + std::to_string(pid) + "_";
        if (pdh().library == nullptr) {
            why_ = "pdh.dll not loaded: " + pdh().why;
            return;
        }
        const PDH_STATUS status = query_.open();
        if (status != ERROR_SUCCESS) {
            why_ = "PdhOpenQueryW failed: " + pdh_text(status);
            return;
        }
        for (const auto& spec : kPdhCounters) {
            Counter c{spec, nullptr, {}};
            const PDH_STATUS added = pdh().add_english_counter(query_.get(), spec.path, 0, &c.handle);
            if (added != ERROR_SUCCESS) {
                c.handle = nullptr;
                c.why = "PdhAddEnglishCounterW(" + win32::narrow(spec.path) + ") failed: " + pdh_text(added) +
                        " (GPU counters need Windows 10 1709 or later)";
            }
            counters_.push_back(std::move(c));
        }
    }

    std::string name() const override { return "pdh"; }
    std::string source() const override {
        return "PDH \"GPU Process Memory\" (pid " + std::to_string(pid_) +
               ") and \"GPU Adapter Memory\" counters for " +
               (luid_tag_.empty() ? std::string("no adapter") : luid_tag_);
    }

    void read(Readings& out) override {
        if (counters_.empty()) {
            for (const auto& spec : kPdhCounters) out[spec.key] = Reading::not_available(why_);
            return;
        }
        // With no counter added, collecting says only PDH_NO_DATA: each reading gives the reason
        // its counter could not be added instead.
        const bool any_added = std::any_of(counters_.begin(), counters_.end(),
                                           [](const Counter& c) { return c.handle != nullptr; });
        if (!any_added) {
            for (const auto& c : counters_) out[c.spec.key] = Reading::not_available(c.why);
            return;
        }
        // Memory counters are raw values: one collection gives current figures.
        const PDH_STATUS status = pdh().collect_query_data(query_.get());
        if (status != ERROR_SUCCESS) {
            const std::string why = "PdhCollectQueryData failed: " + pdh_text(status);
            for (const auto& c : counters_) {
                out[c.spec.key] = Reading::not_available(c.handle != nullptr ? why : c.why);
            }
            return;
        }
        for (const auto& c : counters_) out[c.spec.key] = sum_instances(c);
    }

private:
    struct Counter {
        PdhCounterSpec spec;
        PDH_HCOUNTER handle;
        std::string why;  // when handle is null
    };

    Reading sum_instances(const Counter& c) const {
        if (c.handle == nullptr) return Reading::not_available(c.why);
        // One buffer holds the items and, after them, the instance names they point to.
        std::vector<PDH_FMT_COUNTERVALUE_ITEM_W> items;
        DWORD bytes = 0;
        DWORD count = 0;
        const auto get_array = pdh().get_formatted_counter_array;
        PDH_STATUS status = get_array(c.handle, PDH_FMT_LARGE, &bytes, &count, nullptr);
        for (int attempt = 0; status == static_cast<PDH_STATUS>(PDH_MORE_DATA) && attempt < 4; ++attempt) {
            items.resize(bytes / sizeof(PDH_FMT_COUNTERVALUE_ITEM_W) + 1);
            bytes = static_cast<DWORD>(items.size() * sizeof(PDH_FMT_COUNTERVALUE_ITEM_W));
            status = get_array(c.handle, PDH_FMT_LARGE, &bytes, &count, items.data());
        }
        if (status != ERROR_SUCCESS) {
            return Reading::not_available("PdhGetFormattedCounterArrayW failed: " + pdh_text(status));
        }

        std::int64_t sum = 0;
        bool matched = false;
        std::string bad_status;
        for (DWORD i = 0; i < count && i < items.size(); ++i) {
            const std::string instance =
                lowercase(win32::narrow(items[i].szName != nullptr ? items[i].szName : L""));
            if (c.spec.per_process && instance.rfind(pid_tag_, 0) != 0) continue;
            if (instance.find(luid_tag_) == std::string::npos) continue;
            const DWORD cstatus = items[i].FmtValue.CStatus;
            if (cstatus != PDH_CSTATUS_VALID_DATA && cstatus != PDH_CSTATUS_NEW_DATA) {
                bad_status = pdh_text(static_cast<PDH_STATUS>(cstatus));
                continue;
            }
            sum += items[i].FmtValue.largeValue;
            matched = true;
        }
        if (matched) return Reading::of(sum);
        if (!bad_status.empty()) return Reading::not_available("counter status: " + bad_status);
        return Reading::not_available(
            c.spec.per_process ? "no \"GPU Process Memory\" instance for pid " + std::to_string(pid_) +
                                     " on " + luid_tag_ + " (no GPU memory in use by it yet)"
                               : "no \"GPU Adapter Memory\" instance for " + luid_tag_);
    }

    std::uint32_t pid_;
    std::string luid_tag_;  // "luid_0x00000000_0x0000d1b7"
    std::string pid_tag_;   // "pid_1234_"
    PdhQuery query_;
    std::vector<Counter> counters_;
    std::string why_;  // when counters_ is empty
};

// --- Adapter lists -------------------------------------------------------------------------

// An entry saying why one API listed nothing.
nlohmann::json source_unavailable(const char* source, std::string why) {
    return nlohmann::json::object({{"source", source}, {"unavailable", std::move(why)}});
}

void append_dxgi_adapters(nlohmann::json& list) {
    ComPtr<IDXGIFactory1> factory;
    std::string why;
    HRESULT hr = create_dxgi_factory(factory, why);
    if (FAILED(hr)) {
        list.push_back(source_unavailable("dxgi", why));
        return;
    }
    for (UINT i = 0;; ++i) {
        ComPtr<IDXGIAdapter1> adapter;
        hr = factory->EnumAdapters1(i, adapter.GetAddressOf());
        if (hr == DXGI_ERROR_NOT_FOUND) break;
        if (FAILED(hr)) {
            list.push_back(source_unavailable("dxgi", "EnumAdapters1 failed: " + hresult_text(hr)));
            return;
        }
        DXGI_ADAPTER_DESC1 desc{};
        hr = adapter->GetDesc1(&desc);
        if (FAILED(hr)) {
            list.push_back(source_unavailable("dxgi", "GetDesc1 failed: " + hresult_text(hr)));
            continue;
        }
        list.push_back(nlohmann::json::object({
            {"source", "dxgi"},
            {"description", win32::narrow(desc.Description)},
            {"luid", luid_text(desc.AdapterLuid)},
            {"luid_bytes", luid_bytes(desc.AdapterLuid)},
            {"vendor_id", desc.VendorId},
            {"device_id", desc.DeviceId},
            {"dedicated_video_memory", static_cast<std::uint64_t>(desc.DedicatedVideoMemory)},
            {"shared_system_memory", static_cast<std::uint64_t>(desc.SharedSystemMemory)},
            {"software", (desc.Flags & DXGI_ADAPTER_FLAG_SOFTWARE) != 0},
        }));
    }
}

#if PINBENCH_HAVE_DXCORE
// DriverDescription is a char string; keep it if it is UTF-8, else read it in the ANSI code page.
std::string description_utf8(const std::string& text) {
    if (text.empty()) return text;
    const int n = ::MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, text.data(),
                                        static_cast<int>(text.size()), nullptr, 0);
    if (n > 0) return text;
    std::wstring wide(text.size(), L'\0');
    const int m = ::MultiByteToWideChar(CP_ACP, 0, text.data(), static_cast<int>(text.size()), wide.data(),
                                        static_cast<int>(wide.size()));
    wide.resize(m > 0 ? static_cast<std::size_t>(m) : 0);
    return win32::narrow(wide);
}

void append_dxcore_adapters(nlohmann::json& list) {
    // Loaded at run time: dxcore.dll exists only from Windows 10 2004 on, and linking it would
    // stop the whole program from starting on older systems.
    std::string why;
    const auto library = DynamicLibrary::open_system("dxcore.dll", &why);
    if (!library) {
        list.push_back(source_unavailable("dxcore", "dxcore.dll not loadable: " + why));
        return;
    }
    using CreateFactory = HRESULT(WINAPI*)(REFIID, void**);
    const auto create = reinterpret_cast<CreateFactory>(library->symbol("DXCoreCreateAdapterFactory"));
    if (create == nullptr) {
        list.push_back(source_unavailable("dxcore", "dxcore.dll has no DXCoreCreateAdapterFactory"));
        return;
    }
    // Declared before use and so released before `library` unloads the DLL.
    ComPtr<IDXCoreAdapterFactory> factory;
    HRESULT hr = create(__uuidof(IDXCoreAdapterFactory), reinterpret_cast<void**>(factory.GetAddressOf()));
    if (FAILED(hr)) {
        list.push_back(
            source_unavailable("dxcore", "DXCoreCreateAdapterFactory failed: " + hresult_text(hr)));
        return;
    }
    // DXCORE_ADAPTER_ATTRIBUTE_D3D12_CORE_COMPUTE, spelled out: the header only declares it
    // extern. Compute-only adapters (TCC, MCDM) have it, and DXGI does not list them.
    static constexpr GUID kCoreCompute = {
        0x248e2800, 0xa793, 0x4724, {0xab, 0xaa, 0x23, 0xa6, 0xde, 0x1b, 0xe0, 0x90}};
    ComPtr<IDXCoreAdapterList> adapters;
    hr = factory->CreateAdapterList(1, &kCoreCompute, __uuidof(IDXCoreAdapterList),
                                    reinterpret_cast<void**>(adapters.GetAddressOf()));
    if (FAILED(hr)) {
        list.push_back(source_unavailable("dxcore", "CreateAdapterList failed: " + hresult_text(hr)));
        return;
    }
    const std::uint32_t count = adapters->GetAdapterCount();
    for (std::uint32_t i = 0; i < count; ++i) {
        ComPtr<IDXCoreAdapter> adapter;
        hr = adapters->GetAdapter(i, __uuidof(IDXCoreAdapter),
                                  reinterpret_cast<void**>(adapter.GetAddressOf()));
        if (FAILED(hr)) continue;
        nlohmann::json entry = nlohmann::json::object({{"source", "dxcore"}});
        std::size_t size = 0;
        if (SUCCEEDED(adapter->GetPropertySize(DXCoreAdapterProperty::DriverDescription, &size)) &&
            size > 0) {
            std::string text(size, '\0');
            if (SUCCEEDED(
                    adapter->GetProperty(DXCoreAdapterProperty::DriverDescription, size, text.data()))) {
                text.resize(std::min(text.find('\0'), text.size()));
                entry["description"] = description_utf8(text);
            }
        }
        LUID luid{};
        if (SUCCEEDED(adapter->GetProperty(DXCoreAdapterProperty::InstanceLuid, sizeof luid, &luid))) {
            entry["luid"] = luid_text(luid);
            entry["luid_bytes"] = luid_bytes(luid);
        }
        std::uint64_t bytes = 0;
        if (SUCCEEDED(
                adapter->GetProperty(DXCoreAdapterProperty::DedicatedAdapterMemory, sizeof bytes, &bytes)))
            entry["dedicated_video_memory"] = bytes;
        if (SUCCEEDED(adapter->GetProperty(DXCoreAdapterProperty::SharedSystemMemory, sizeof bytes, &bytes)))
            entry["shared_system_memory"] = bytes;
        bool hardware = false;
        if (SUCCEEDED(adapter->GetProperty(DXCoreAdapterProperty::IsHardware, sizeof hardware, &hardware)))
            entry["software"] = !hardware;
        list.push_back(std::move(entry));
    }
}
#else
void append_dxcore_adapters(nlohmann::json& list) {
    list.push_back(source_unavailable("dxcore", "dxcore unavailable in this build"));
}
#endif

// --- OS environment --------------------------------------------------------------------------

constexpr const wchar_t* kCurrentVersionKey = L"SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion";

std::optional<std::string> registry_string(const wchar_t* key, const wchar_t* value) {
    DWORD bytes = 0;
    if (::RegGetValueW(HKEY_LOCAL_MACHINE, key, value, RRF_RT_REG_SZ, nullptr, nullptr, &bytes) !=
        ERROR_SUCCESS) {
        return std::nullopt;
    }
    std::wstring text(bytes / sizeof(wchar_t) + 1, L'\0');
    bytes = static_cast<DWORD>(text.size() * sizeof(wchar_t));
    if (::RegGetValueW(HKEY_LOCAL_MACHINE, key, value, RRF_RT_REG_SZ, nullptr, text.data(), &bytes) !=
        ERROR_SUCCESS) {
        return std::nullopt;
    }
    text.resize(std::min(text.find(L'\0'), text.size()));
    return win32::narrow(text);
}

// ERROR_FILE_NOT_FOUND when the value is absent; the value when it is there.
LSTATUS registry_dword(const wchar_t* key, const wchar_t* value, DWORD& out) {
    DWORD bytes = sizeof out;
    return ::RegGetValueW(HKEY_LOCAL_MACHINE, key, value, RRF_RT_REG_DWORD, nullptr, &out, &bytes);
}

// RtlGetVersion, unlike GetVersionEx, is not subject to the compatibility-manifest lie.
std::optional<OSVERSIONINFOEXW> os_version() {
    using RtlGetVersionFn = LONG(WINAPI*)(OSVERSIONINFOEXW*);
    const HMODULE ntdll = ::GetModuleHandleW(L"ntdll.dll");
    if (ntdll == nullptr) return std::nullopt;
    const auto get_version = win32::proc_address<RtlGetVersionFn>(ntdll, "RtlGetVersion");
    if (get_version == nullptr) return std::nullopt;
    OSVERSIONINFOEXW info{};
    info.dwOSVersionInfoSize = sizeof info;
    if (get_version(&info) != 0) return std::nullopt;  // an NTSTATUS other than STATUS_SUCCESS
    return info;
}

Text os_name(const std::optional<OSVERSIONINFOEXW>& version) {
    std::optional<std::string> product = registry_string(kCurrentVersionKey, L"ProductName");
    if (product) {
        // ProductName still says "Windows 10" on Windows 11 client builds (22000 and later).
        const bool client = version && version->wProductType == VER_NT_WORKSTATION;
        if (client && version->dwBuildNumber >= 22000 && product->rfind("Windows 10", 0) == 0) {
            product->replace(0, 10, "Windows 11");
        }
        return Text::of(*product);
    }
    if (version) {
        return Text::of("Windows " + std::to_string(version->dwMajorVersion) + "." +
                        std::to_string(version->dwMinorVersion));
    }
    return Text::none("neither the registry ProductName nor RtlGetVersion is readable");
}

Text os_build(const std::optional<OSVERSIONINFOEXW>& version) {
    if (!version) return Text::none("RtlGetVersion failed");
    std::string build = std::to_string(version->dwMajorVersion) + "." +
                        std::to_string(version->dwMinorVersion) + "." +
                        std::to_string(version->dwBuildNumber);
    DWORD ubr = 0;  // update build revision: the monthly cumulative update
    if (registry_dword(kCurrentVersionKey, L"UBR", ubr) == ERROR_SUCCESS) build += "." + std::to_string(ubr);
    return Text::of(build);
}

Text hostname() {
    DWORD size = 0;
    ::GetComputerNameExW(ComputerNameDnsHostname, nullptr, &size);
    if (size == 0) return Text::none("GetComputerNameExW failed: " + win32::error_text(::GetLastError()));
    std::wstring name(size, L'\0');
    if (!::GetComputerNameExW(ComputerNameDnsHostname, name.data(), &size)) {
        const DWORD error = ::GetLastError();
        return Text::none("GetComputerNameExW failed: " + win32::error_text(error));
    }
    name.resize(size);  // now the length without the terminator
    return Text::of(win32::narrow(name));
}

Text hardware_scheduling() {
    DWORD mode = 0;
    const LSTATUS status =
        registry_dword(L"SYSTEM\\CurrentControlSet\\Control\\GraphicsDrivers", L"HwSchMode", mode);
    if (status == ERROR_FILE_NOT_FOUND) return Text::of("default/unknown");
    if (status != ERROR_SUCCESS) {
        return Text::none("reading HwSchMode failed: " + win32::error_text(static_cast<DWORD>(status)));
    }
    if (mode == 2) return Text::of("on");
    if (mode == 1) return Text::of("off");
    return Text::of("unknown value " + std::to_string(mode));
}

}  // namespace

std::vector<std::unique_ptr<Probe>> make_platform_probes(const std::optional<Luid>& luid, std::uint32_t pid) {
    std::vector<std::unique_ptr<Probe>> probes;
    probes.push_back(std::make_unique<DxgiProbe>(luid, pid));
    probes.push_back(std::make_unique<PdhProbe>(luid, pid));
    return probes;
}

nlohmann::json list_os_adapters() {
    nlohmann::json list = nlohmann::json::array();
    append_dxgi_adapters(list);
    append_dxcore_adapters(list);
    return list;
}

OsFacts os_facts() {
    OsFacts os;
    os.platform = "windows";
    const auto version = os_version();
    os.os_name = os_name(version);
    os.os_build = os_build(version);
    os.hostname = hostname();
    MEMORYSTATUSEX memory{};
    memory.dwLength = sizeof memory;
    if (::GlobalMemoryStatusEx(&memory)) {
        os.host_ram_bytes = Maybe<std::uint64_t>::of(memory.ullTotalPhys);
    } else {
        const DWORD error = ::GetLastError();
        os.host_ram_bytes =
            Maybe<std::uint64_t>::none("GlobalMemoryStatusEx failed: " + win32::error_text(error));
    }
    // All processor groups: more than 64 logical CPUs span several.
    const DWORD cpus = ::GetActiveProcessorCount(ALL_PROCESSOR_GROUPS);
    os.cpu_count = cpus > 0 ? Maybe<std::uint64_t>::of(cpus)
                            : Maybe<std::uint64_t>::none("GetActiveProcessorCount failed");
    OsFacts::Windows w;
    const auto edition = registry_string(kCurrentVersionKey, L"EditionID");
    w.os_edition = edition ? Text::of(*edition) : Text::none("no EditionID in the registry");
    w.hardware_accelerated_gpu_scheduling = hardware_scheduling();
    DWORD session = 0;
    if (::ProcessIdToSessionId(::GetCurrentProcessId(), &session)) {
        w.session_id = Maybe<std::uint32_t>::of(session);  // a runner installed as a service: session 0
    } else {
        const DWORD error = ::GetLastError();
        w.session_id = Maybe<std::uint32_t>::none("ProcessIdToSessionId failed: " + win32::error_text(error));
    }
    w.sysmem_fallback_policy =
        Text::none("not exposed through a documented API; set in the NVIDIA Control Panel");
    os.windows = std::move(w);
    return os;
}

std::uint32_t current_process_id() { return ::GetCurrentProcessId(); }

}  // namespace pinbench
