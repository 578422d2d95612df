// Byte sizes with explicit units: "64MiB", "1 GiB", "512KB", "4096B".
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace pinbench {

// Parses a size with a mandatory unit (B, KiB, MiB, GiB, TiB, KB, MB, GB, TB; case of the
// unit as written). Throws std::invalid_argument with a one-line reason on anything else,
// including zero, negative numbers, fractions that are not whole bytes, and overflow.
std::uint64_t parse_size(std::string_view text);

// "64 MiB", "1.5 GiB", "4096 B": binary units, at most 3 significant decimals.
std::string format_bytes(std::uint64_t bytes);

// Signed variant for deltas: "-2 MiB".
std::string format_bytes_signed(std::int64_t bytes);

// Short label for ids: "64MiB", "1GiB", "1536KiB", "1000B" (exact, no rounding).
std::string size_label(std::uint64_t bytes);

}  // namespace pinbench
