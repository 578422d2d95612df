// Spelling of host-buffer api variants: "family[:item+item...]", where an item is a flag, a
// page kind or a location.
#include "pinbench/vocabulary/api_variant.hpp"

#include <array>

namespace pinbench {
namespace {

struct FamilyName {
    ApiFamily family;
    std::string_view name;
    unsigned allowed_flags;
    bool takes_page_kind;
    bool needs_location;
    std::string_view takes;  // for messages: what may follow the colon
};

constexpr std::array<FamilyName, 6> kFamilies{{
    {ApiFamily::pageable, "pageable", flag_none, false, false, "nothing"},
    {ApiFamily::malloc_host, "cudaMallocHost", flag_none, false, false, "nothing"},
    {ApiFamily::host_alloc, "cudaHostAlloc", flag_portable | flag_mapped | flag_write_combined, false, false,
     "flags portable, mapped, write_combined"},
    {ApiFamily::host_register, "cudaHostRegister", flag_portable | flag_mapped, true, false,
     "flags portable, mapped and one page kind hugetlb, hugetlb_1g, thp, large_pages"},
    {ApiFamily::vmm_host, "cuMemCreate", flag_none, false, true, "one location host, host_numa"},
    {ApiFamily::pool_host, "cudaMallocFromPoolAsync", flag_none, false, true, "one location host, host_numa"},
}};

struct FlagName {
    ApiFlag flag;
    std::string_view name;
};

// The canonical order of flags in a spelling.
constexpr std::array<FlagName, 3> kFlags{{
    {flag_portable, "portable"},
    {flag_mapped, "mapped"},
    {flag_write_combined, "write_combined"},
}};

struct PageKindName {
    PageKind pages;
    std::string_view name;
};

constexpr std::array<PageKindName, 5> kPageKinds{{
    {PageKind::standard, "standard"},  // the default; never written, not accepted as an item
    {PageKind::hugetlb, "hugetlb"},
    {PageKind::hugetlb_1g, "hugetlb_1g"},
    {PageKind::thp, "thp"},
    {PageKind::large_pages, "large_pages"},
}};

struct LocationName {
    HostLocation location;
    std::string_view name;
};

constexpr std::array<LocationName, 3> kLocations{{
    {HostLocation::none, "none"},  // never written, not accepted as an item
    {HostLocation::host, "host"},
    {HostLocation::host_numa, "host_numa"},
}};

const FamilyName& family_name(ApiFamily family) {
    for (const FamilyName& f : kFamilies) {
        if (f.family == family) {
            return f;
        }
    }
    return kFamilies[0];  // unreachable for valid enum values
}

std::optional<ApiVariant> reject(std::string* why, std::string reason) {
    if (why != nullptr) {
        *why = std::move(reason);
    }
    return std::nullopt;
}

std::string in_quotes(std::string_view text) { return "'" + std::string(text) + "'"; }

const FlagName* find_flag(std::string_view text) {
    for (const FlagName& f : kFlags) {
        if (f.name == text) return &f;
    }
    return nullptr;
}

const PageKindName* find_page_kind(std::string_view text) {
    for (const PageKindName& p : kPageKinds) {
        if (p.name == text && p.pages != PageKind::standard) return &p;
    }
    return nullptr;
}

const LocationName* find_location(std::string_view text) {
    for (const LocationName& l : kLocations) {
        if (l.name == text && l.location != HostLocation::none) return &l;
    }
    return nullptr;
}

std::string needs_location(const FamilyName& family) {
    return "api " + in_quotes(family.name) + " needs a location: " + std::string(family.name) + ":host or " +
           std::string(family.name) + ":host_numa";
}

}  // namespace

std::string_view to_string(PageKind pages) {
    for (const PageKindName& p : kPageKinds) {
        if (p.pages == pages) return p.name;
    }
    return "standard";
}

std::string_view to_string(HostLocation location) {
    for (const LocationName& l : kLocations) {
        if (l.location == location) return l.name;
    }
    return "none";
}

std::string to_string(ApiVariant api) {
    std::string out(family_name(api.family).name);
    char separator = ':';
    const auto append = [&](std::string_view item) {
        out += separator;
        out += item;
        separator = '+';
    };
    for (const FlagName& f : kFlags) {
        if ((api.flags & f.flag) != 0) append(f.name);
    }
    if (api.pages != PageKind::standard) append(to_string(api.pages));
    if (api.location != HostLocation::none) append(to_string(api.location));
    return out;
}

std::optional<ApiVariant> parse_api_variant(std::string_view text, std::string* why) {
    const std::size_t colon = text.find(':');
    const std::string_view family_text = text.substr(0, colon);
    const FamilyName* family = nullptr;
    for (const FamilyName& f : kFamilies) {
        if (f.name == family_text) {
            family = &f;
        }
    }
    if (family == nullptr) {
        return reject(why, "unknown api " + in_quotes(family_text) +
                               " (apis: pageable, cudaMallocHost, cudaHostAlloc[:flags], "
                               "cudaHostRegister[:flags+page kind], cuMemCreate:location, "
                               "cudaMallocFromPoolAsync:location)");
    }
    ApiVariant api{family->family, flag_none};
    if (colon == std::string_view::npos) {
        if (family->needs_location) return reject(why, needs_location(*family));
        return api;
    }
    if (family->allowed_flags == flag_none && !family->takes_page_kind && !family->needs_location) {
        return reject(why, "api " + in_quotes(family->name) + " takes no flags");
    }

    std::string_view rest = text.substr(colon + 1);
    while (true) {
        const std::size_t plus = rest.find('+');
        const std::string_view item = rest.substr(0, plus);
        if (item.empty()) {
            return reject(why, "empty flag in api " + in_quotes(text));
        }
        const std::string not_valid =
            " is not valid for " + in_quotes(family->name) + " (it takes " + std::string(family->takes) + ")";
        if (const FlagName* flag = find_flag(item)) {
            if ((family->allowed_flags & flag->flag) == 0) {
                return reject(why, "flag " + in_quotes(flag->name) + not_valid);
            }
            if ((api.flags & flag->flag) != 0) {
                return reject(why, "duplicate flag " + in_quotes(flag->name) + " in api " + in_quotes(text));
            }
            api.flags |= flag->flag;
        } else if (const PageKindName* page = find_page_kind(item)) {
            if (!family->takes_page_kind) {
                return reject(why, "page kind " + in_quotes(page->name) + not_valid);
            }
            if (api.pages == page->pages) {
                return reject(why,
                              "duplicate page kind " + in_quotes(page->name) + " in api " + in_quotes(text));
            }
            if (api.pages != PageKind::standard) {
                return reject(why, "two page kinds " + in_quotes(to_string(api.pages)) + " and " +
                                       in_quotes(page->name) + " in api " + in_quotes(text) +
                                       " (at most one)");
            }
            api.pages = page->pages;
        } else if (const LocationName* location = find_location(item)) {
            if (!family->needs_location) {
                return reject(why, "location " + in_quotes(location->name) + not_valid);
            }
            if (api.location == location->location) {
                return reject(
                    why, "duplicate location " + in_quotes(location->name) + " in api " + in_quotes(text));
            }
            if (api.location != HostLocation::none) {
                return reject(why, "two locations " + in_quotes(to_string(api.location)) + " and " +
                                       in_quotes(location->name) + " in api " + in_quotes(text) +
                                       " (exactly one)");
            }
            api.location = location->location;
        } else {
            return reject(why, "unknown flag " + in_quotes(item) + " in api " + in_quotes(text) +
                                   " (flags: portable, mapped, write_combined; page kinds: hugetlb, "
                                   "hugetlb_1g, thp, large_pages; locations: host, host_numa)");
        }
        if (plus == std::string_view::npos) {
            break;
        }
        rest = rest.substr(plus + 1);
    }
    if (family->needs_location && api.location == HostLocation::none) {
        return reject(why, needs_location(*family));
    }
    return api;
}

std::vector<ApiVariant> all_api_variants() {
    return {
        {ApiFamily::pageable, flag_none},
        {ApiFamily::malloc_host, flag_none},
        {ApiFamily::host_alloc, flag_none},
        {ApiFamily::host_alloc, flag_portable},
        {ApiFamily::host_alloc, flag_mapped},
        {ApiFamily::host_alloc, flag_write_combined},
        {ApiFamily::host_alloc, flag_portable | flag_mapped},
        {ApiFamily::host_register, flag_none},
        {ApiFamily::host_register, flag_portable},
        {ApiFamily::host_register, flag_mapped},
        // May be WAIVED where the OS or the driver cannot provide them (may_be_unsupported).
        {ApiFamily::host_register, flag_none, PageKind::hugetlb},
        {ApiFamily::host_register, flag_none, PageKind::hugetlb_1g},
        {ApiFamily::host_register, flag_none, PageKind::thp},
        {ApiFamily::host_register, flag_none, PageKind::large_pages},
        {ApiFamily::vmm_host, flag_none, PageKind::standard, HostLocation::host},
        {ApiFamily::vmm_host, flag_none, PageKind::standard, HostLocation::host_numa},
        {ApiFamily::pool_host, flag_none, PageKind::standard, HostLocation::host},
        {ApiFamily::pool_host, flag_none, PageKind::standard, HostLocation::host_numa},
    };
}

bool may_be_unsupported(ApiVariant api) {
    return api.pages != PageKind::standard || api.family == ApiFamily::vmm_host ||
           api.family == ApiFamily::pool_host;
}

bool has_device_pointer(ApiVariant api) {
    // cudaMallocHost memory is mapped under unified addressing, which every supported
    // platform (64-bit, compute capability >= 2.0) has. VMM and pool memory is mapped for the
    // device when it is allocated (cuMemSetAccess / cudaMemPoolSetAccess): one address for both.
    return api.family == ApiFamily::malloc_host || api.family == ApiFamily::vmm_host ||
           api.family == ApiFamily::pool_host || (api.flags & flag_mapped) != 0;
}

}  // namespace pinbench
