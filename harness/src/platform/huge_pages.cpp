// Pure decisions about huge pages over the kernel's text files; no OS calls, so they are
// unit-tested with fixtures on every OS (harness/tests/fixtures/huge_pages/).
#include "platform/huge_pages.hpp"

#include <algorithm>
#include <charconv>

namespace pinbench::platform {
namespace {

std::string_view trim(std::string_view s) {
    const auto first = s.find_first_not_of(" \t\r\n");
    if (first == std::string_view::npos) return {};
    const auto last = s.find_last_not_of(" \t\r\n");
    return s.substr(first, last - first + 1);
}

// Calls f(line) for each line of text.
template <class F>
void for_each_line(std::string_view text, F&& f) {
    while (!text.empty()) {
        const std::size_t nl = text.find('\n');
        f(text.substr(0, nl));
        if (nl == std::string_view::npos) break;
        text.remove_prefix(nl + 1);
    }
}

std::optional<std::uint64_t> to_u64(std::string_view text, int base = 10) {
    std::uint64_t value = 0;
    const char* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, value, base);
    if (ec != std::errc{} || ptr != end || text.empty()) return std::nullopt;
    return value;
}

// "Name:   123 kB" -> {"Name", 123 * 1024}; "Name: 5" -> {"Name", 5}. nullopt for other lines.
struct Field {
    std::string_view name;
    std::uint64_t value;
};
std::optional<Field> parse_field(std::string_view line) {
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos || colon == 0) return std::nullopt;
    const std::string_view name = line.substr(0, colon);
    if (name.find_first_of(" \t") != std::string_view::npos) return std::nullopt;
    std::string_view rest = trim(line.substr(colon + 1));
    std::uint64_t scale = 1;
    if (rest.size() > 3 && rest.substr(rest.size() - 3) == " kB") {
        scale = 1024;
        rest = trim(rest.substr(0, rest.size() - 3));
    }
    const auto value = to_u64(rest);
    if (!value) return std::nullopt;
    return Field{name, *value * scale};
}

// "7f00a0000000-7f00a0200000 rw-p ..." -> {begin, end}.
std::optional<std::pair<std::uintptr_t, std::uintptr_t>> parse_vma_header(std::string_view line) {
    const std::size_t space = line.find(' ');
    if (space == std::string_view::npos) return std::nullopt;
    const std::string_view range = line.substr(0, space);
    const std::size_t dash = range.find('-');
    if (dash == std::string_view::npos) return std::nullopt;
    const auto begin = to_u64(range.substr(0, dash), 16);
    const auto end = to_u64(range.substr(dash + 1), 16);
    if (!begin || !end || *end < *begin) return std::nullopt;
    return std::pair{static_cast<std::uintptr_t>(*begin), static_cast<std::uintptr_t>(*end)};
}

std::uint64_t pages_needed(std::size_t bytes, std::uint64_t page) {
    const std::uint64_t b = std::max<std::uint64_t>(bytes, 1);
    return (b + page - 1) / page;
}

}  // namespace

std::string page_size_label(std::uint64_t bytes) {
    constexpr std::uint64_t KiB = 1024, MiB = KiB * 1024, GiB = MiB * 1024;
    if (bytes != 0 && bytes % GiB == 0) return std::to_string(bytes / GiB) + " GiB";
    if (bytes != 0 && bytes % MiB == 0) return std::to_string(bytes / MiB) + " MiB";
    if (bytes != 0 && bytes % KiB == 0) return std::to_string(bytes / KiB) + " KiB";
    return std::to_string(bytes) + " B";
}

std::optional<HugeTlbPool> parse_meminfo_huge_pages(std::string_view meminfo) {
    HugeTlbPool pool;
    pool.total_source = "/proc/meminfo HugePages_Total";
    pool.free_source = "/proc/meminfo HugePages_Free";
    bool has_size = false;
    for_each_line(meminfo, [&](std::string_view line) {
        const auto field = parse_field(line);
        if (!field) return;
        if (field->name == "Hugepagesize") {
            pool.page_bytes = field->value;
            has_size = true;
        } else if (field->name == "HugePages_Total") {
            pool.total = field->value;
        } else if (field->name == "HugePages_Free") {
            pool.free = field->value;
        } else if (field->name == "HugePages_Surp") {
            pool.surplus = field->value;
        }
    });
    if (!has_size || pool.page_bytes == 0) return std::nullopt;
    return pool;
}

std::optional<std::string> hugetlb_unsupported_reason(const HugeTlbPool& pool, std::size_t bytes) {
    const std::string size = page_size_label(pool.page_bytes);
    if (pool.page_bytes == 0) return "hugetlb page size unknown";
    if (!pool.total) return "cannot read the number of " + size + " huge pages (" + pool.total_source + ")";
    if (!pool.free) {
        return "cannot read the number of free " + size + " huge pages (" + pool.free_source + ")";
    }
    if (*pool.total == 0 && pool.overcommit == 0) {
        return "no " + size + " huge pages configured: " + pool.total_source + " is 0";
    }
    const std::uint64_t overcommittable = pool.overcommit > pool.surplus ? pool.overcommit - pool.surplus : 0;
    const std::uint64_t available = *pool.free + overcommittable;
    const std::uint64_t needed = pages_needed(bytes, pool.page_bytes);
    if (available < needed) {
        std::string why = "not enough free " + size + " huge pages: " + std::to_string(needed) + " needed, " +
                          std::to_string(*pool.free) + " free of " + std::to_string(*pool.total) + " (" +
                          pool.free_source + ")";
        if (pool.overcommit != 0) why += ", " + std::to_string(overcommittable) + " more by overcommit";
        return why;
    }
    return std::nullopt;
}

std::optional<std::string> bracketed_choice(std::string_view text) {
    const std::size_t open = text.find('[');
    if (open == std::string_view::npos) return std::nullopt;
    const std::size_t close = text.find(']', open);
    if (close == std::string_view::npos || close == open + 1) return std::nullopt;
    return std::string(text.substr(open + 1, close - open - 1));
}

std::optional<std::string> thp_unsupported_reason(const std::optional<std::string>& enabled_text,
                                                  std::string_view path) {
    if (!enabled_text) return "THP not available: " + std::string(path) + " not found";
    const auto mode = bracketed_choice(*enabled_text);
    if (!mode) {
        return "THP state unknown: " + std::string(path) + " reads '" + std::string(trim(*enabled_text)) +
               "'";
    }
    if (*mode == "always" || *mode == "madvise") return std::nullopt;
    return "THP disabled: " + std::string(path) + " is [" + *mode + "]";
}

SmapsBacking parse_smaps(std::string_view smaps, std::uintptr_t begin, std::uintptr_t end) {
    SmapsBacking out;
    bool inside = false;  // the current VMA overlaps [begin, end)
    std::uint64_t vma_rss = 0, vma_hugetlb = 0;
    const auto close_vma = [&] {
        if (inside) out.resident_bytes += std::max(vma_rss, vma_hugetlb);
        vma_rss = vma_hugetlb = 0;
    };
    for_each_line(smaps, [&](std::string_view line) {
        if (const auto vma = parse_vma_header(line)) {
            close_vma();
            inside = vma->first < end && begin < vma->second;
            if (inside) {
                ++out.mappings;
                out.mapping_bytes += vma->second - vma->first;
            }
            return;
        }
        if (!inside) return;
        const auto field = parse_field(line);
        if (!field) return;
        if (field->name == "Rss") {
            out.rss_bytes += field->value;
            vma_rss += field->value;
        } else if (field->name == "AnonHugePages") {
            out.anon_huge_bytes += field->value;
        } else if (field->name == "Private_Hugetlb" || field->name == "Shared_Hugetlb") {
            out.hugetlb_bytes += field->value;
            vma_hugetlb += field->value;
        } else if (field->name == "KernelPageSize") {
            auto& sizes = out.kernel_page_sizes;
            if (std::find(sizes.begin(), sizes.end(), field->value) == sizes.end()) {
                sizes.insert(std::upper_bound(sizes.begin(), sizes.end(), field->value), field->value);
            }
        }
    });
    close_vma();
    return out;
}

nlohmann::json smaps_backing_record(PageKind requested, const SmapsBacking& smaps) {
    nlohmann::json record{{"requested", std::string(to_string(requested))}, {"method", "/proc/self/smaps"}};
    if (smaps.mappings == 0) {
        record["verified"] = false;
        record["why"] = "no mapping in /proc/self/smaps overlaps the buffer";
        return record;
    }
    const std::uint64_t huge = std::min(smaps.anon_huge_bytes + smaps.hugetlb_bytes, smaps.resident_bytes);
    const char* pages = smaps.resident_bytes == 0     ? "not_resident"
                        : huge == 0                   ? "base"
                        : huge < smaps.resident_bytes ? "mixed"
                                                      : "huge";
    record["verified"] = true;
    record["mappings"] = smaps.mappings;
    record["mapping_bytes"] = smaps.mapping_bytes;
    record["kernel_page_sizes"] = smaps.kernel_page_sizes;
    record["rss_bytes"] = smaps.rss_bytes;
    record["anon_huge_bytes"] = smaps.anon_huge_bytes;
    record["hugetlb_bytes"] = smaps.hugetlb_bytes;
    record["resident_bytes"] = smaps.resident_bytes;
    record["huge_bytes"] = huge;
    record["pages"] = pages;
    const auto only_page_size = [&](std::uint64_t size) {
        return smaps.kernel_page_sizes.size() == 1 && smaps.kernel_page_sizes.front() == size;
    };
    switch (requested) {
        case PageKind::standard:
            break;
        case PageKind::hugetlb:
            record["as_requested"] =
                std::string_view(pages) == "huge" && only_page_size(std::uint64_t{2} << 20);
            break;
        case PageKind::hugetlb_1g:
            record["as_requested"] =
                std::string_view(pages) == "huge" && only_page_size(std::uint64_t{1} << 30);
            break;
        case PageKind::thp:
        case PageKind::large_pages:
            record["as_requested"] = std::string_view(pages) == "huge";
            break;
    }
    return record;
}

}  // namespace pinbench::platform
