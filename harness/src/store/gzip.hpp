// gzip (RFC 1952) through zlib, for the store's compressed files (store version 3,
// docs/store.md): the one place the store compresses and decompresses.
#pragma once

#include <cstddef>
#include <string>

namespace pinbench::store_detail {

// The most a stored file may decompress to; larger is refused (InputError) instead of filling
// memory. pinreport's store.MAX_UNCOMPRESSED_BYTES is the same bound.
inline constexpr std::size_t max_uncompressed_bytes = 256u * 1024u * 1024u;

// `bytes` as one gzip member: deflate level 9, no file name, time 0, so equal bytes compress to
// equal files. Throws SystemError when zlib fails (out of memory).
std::string gzip_compress(const std::string& bytes);

// The bytes of one gzip member. Throws InputError "not a valid gzip file (...)" for a damaged,
// truncated or trailing-data file, and when it would decompress to more than `limit` bytes.
std::string gzip_decompress(const std::string& compressed, std::size_t limit = max_uncompressed_bytes);

}  // namespace pinbench::store_detail
