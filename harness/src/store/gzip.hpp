// gzip (RFC 1952) through zlib, for the store's compressed files (store version 3,
// docs/store.md): the one place the store compresses and decompresses.
#pragma once

#include <cstddef>
#include <string>

#include "pinbench/platform/atomic_file.hpp"

namespace pinbench::store_detail {

// The most a stored file may decompress to; larger is refused (InputError) instead of filling
// memory: the limit of a results file read whole (input_limit::data). pinreport's
// store.MAX_UNCOMPRESSED_BYTES is its RESULTS_LIMIT, which a pytest holds to input_limit::data.
inline constexpr std::size_t max_uncompressed_bytes = input_limit::data;

// `bytes` as one gzip member: deflate level 9, no file name, time 0, so equal bytes compress to
// equal files. Throws SystemError when zlib fails (out of memory).
std::string gzip_compress(const std::string& bytes);

// The bytes of one gzip member. Throws InputError "not a valid gzip file (...)" for a damaged,
// truncated or trailing-data file, and when it would decompress to more than `limit` bytes.
std::string gzip_decompress(const std::string& compressed, std::size_t limit = max_uncompressed_bytes);

}  // namespace pinbench::store_detail
