// gzip through zlib's deflate/inflate with windowBits 15 + 16 (a gzip wrapper). Each z_stream is
// held by a small RAII owner so every path out of a function ends it.
#include "store/gzip.hpp"

#include <zlib.h>

#include <climits>
#include <string>

#include "pinbench/vocabulary/errors.hpp"

namespace pinbench::store_detail {
namespace {

constexpr int gzip_window_bits = 15 + 16;  // 32 KiB window, gzip header and trailer
constexpr std::size_t chunk = std::size_t{256} * 1024;

struct Deflater {
    z_stream s{};
    Deflater() {
        if (deflateInit2(&s, 9, Z_DEFLATED, gzip_window_bits, 9, Z_DEFAULT_STRATEGY) != Z_OK) {
            throw SystemError("gzip: cannot start compressing (zlib deflateInit2 failed)");
        }
    }
    ~Deflater() { deflateEnd(&s); }
    Deflater(const Deflater&) = delete;
    Deflater& operator=(const Deflater&) = delete;
};

struct Inflater {
    z_stream s{};
    Inflater() {
        if (inflateInit2(&s, gzip_window_bits) != Z_OK) {
            throw SystemError("gzip: cannot start decompressing (zlib inflateInit2 failed)");
        }
    }
    ~Inflater() { inflateEnd(&s); }
    Inflater(const Inflater&) = delete;
    Inflater& operator=(const Inflater&) = delete;
};

}  // namespace

std::string gzip_compress(const std::string& bytes) {
    if (bytes.size() > UINT_MAX) throw SystemError("gzip: input of more than 4 GiB");
    Deflater d;
    // Header: no name, no time (zlib writes time 0 unless told otherwise), OS as zlib sets it.
    std::string out;
    out.resize(deflateBound(&d.s, static_cast<uLong>(bytes.size())) + 64);
    d.s.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
    d.s.avail_in = static_cast<uInt>(bytes.size());
    d.s.next_out = reinterpret_cast<Bytef*>(out.data());
    d.s.avail_out = static_cast<uInt>(out.size());
    if (deflate(&d.s, Z_FINISH) != Z_STREAM_END) throw SystemError("gzip: compressing failed (zlib deflate)");
    out.resize(d.s.total_out);
    return out;
}

std::string gzip_decompress(const std::string& compressed, std::size_t limit) {
    if (compressed.size() > UINT_MAX) throw InputError("not a valid gzip file (larger than 4 GiB)");
    Inflater inf;
    inf.s.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data()));
    inf.s.avail_in = static_cast<uInt>(compressed.size());
    std::string out;
    int rc = Z_OK;
    while (rc != Z_STREAM_END) {
        if (out.size() > limit) {
            throw InputError("decompresses to more than " + std::to_string(limit) + " bytes");
        }
        const std::size_t have = out.size();
        out.resize(have + chunk);
        inf.s.next_out = reinterpret_cast<Bytef*>(out.data() + have);
        inf.s.avail_out = static_cast<uInt>(chunk);
        rc = inflate(&inf.s, Z_NO_FLUSH);
        out.resize(have + (chunk - inf.s.avail_out));
        if (rc == Z_STREAM_END) break;
        if (rc != Z_OK) {
            const std::string why = rc == Z_BUF_ERROR ? "truncated" : (inf.s.msg ? inf.s.msg : "zlib error");
            throw InputError("not a valid gzip file (" + why + ")");
        }
    }
    if (out.size() > limit) throw InputError("decompresses to more than " + std::to_string(limit) + " bytes");
    if (inf.s.avail_in != 0) throw InputError("not a valid gzip file (data after its end)");
    return out;
}

}  // namespace pinbench::store_detail
