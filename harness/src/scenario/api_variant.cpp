// Spelling of host-buffer api variants: "family[:flag+flag...]".
#include "pinbench/api_variant.hpp"

#include <array>

namespace pinbench {
namespace {

struct FamilyName {
    ApiFamily family;
    std::string_view name;
    unsigned allowed_flags;
};

constexpr std::array<FamilyName, 4> kFamilies{{
    {ApiFamily::pageable, "pageable", flag_none},
    {ApiFamily::malloc_host, "cudaMallocHost", flag_none},
    {ApiFamily::host_alloc, "cudaHostAlloc", flag_portable | flag_mapped | flag_write_combined},
    {ApiFamily::host_register, "cudaHostRegister", flag_portable | flag_mapped},
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

}  // namespace

std::string to_string(ApiVariant api) {
    std::string out(family_name(api.family).name);
    char separator = ':';
    for (const FlagName& f : kFlags) {
        if ((api.flags & f.flag) != 0) {
            out += separator;
            out += f.name;
            separator = '+';
        }
    }
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
                               "cudaHostRegister[:flags])");
    }
    ApiVariant api{family->family, flag_none};
    if (colon == std::string_view::npos) {
        return api;
    }
    if (family->allowed_flags == flag_none) {
        return reject(why, "api " + in_quotes(family->name) + " takes no flags");
    }

    std::string_view rest = text.substr(colon + 1);
    while (true) {
        const std::size_t plus = rest.find('+');
        const std::string_view flag_text = rest.substr(0, plus);
        if (flag_text.empty()) {
            return reject(why, "empty flag in api " + in_quotes(text));
        }
        const FlagName* flag = nullptr;
        for (const FlagName& f : kFlags) {
            if (f.name == flag_text) {
                flag = &f;
            }
        }
        if (flag == nullptr) {
            return reject(why, "unknown flag " + in_quotes(flag_text) + " in api " + in_quotes(text) +
                                   " (flags: portable, mapped, write_combined)");
        }
        if ((family->allowed_flags & flag->flag) == 0) {
            return reject(why, "flag " + in_quotes(flag->name) + " is not valid for " +
                                   in_quotes(family->name) + " (only cudaHostAlloc takes write_combined)");
        }
        if ((api.flags & flag->flag) != 0) {
            return reject(why, "duplicate flag " + in_quotes(flag->name) + " in api " + in_quotes(text));
        }
        api.flags |= flag->flag;
        if (plus == std::string_view::npos) {
            break;
        }
        rest = rest.substr(plus + 1);
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
    };
}

bool has_device_pointer(ApiVariant api) {
    // cudaMallocHost memory is mapped under unified addressing, which every supported
    // platform (64-bit, compute capability >= 2.0) has.
    return api.family == ApiFamily::malloc_host || (api.flags & flag_mapped) != 0;
}

}  // namespace pinbench
