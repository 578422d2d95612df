// SharedMemory on POSIX: shm_open + ftruncate + posix_fallocate + mmap(MAP_SHARED). The
// descriptor is closed once mapped (the mapping keeps the object alive); the creator
// shm_unlink()s the name in its destructor.
#include "pinbench/platform/shared_memory.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

#include "pinbench/vocabulary/errors.hpp"
#include "platform/fd_posix.hpp"
#include "platform/random_token.hpp"

namespace pinbench {

using posix::errno_text;
using posix::UniqueFd;

struct SharedMemory::Impl {
    std::string name;
    std::byte* data = nullptr;
    std::size_t size = 0;
    bool creator = false;

    Impl() = default;
    Impl(const Impl&) = delete;
    Impl& operator=(const Impl&) = delete;
    ~Impl() {
        if (data != nullptr) ::munmap(data, size);
        if (creator) ::shm_unlink(name.c_str());
    }
};

namespace {

std::size_t page_size() {
    const long size = ::sysconf(_SC_PAGESIZE);
    return size > 0 ? static_cast<std::size_t>(size) : 4096;
}

std::byte* map_shared(int fd, std::size_t bytes, const std::string& name) {
    void* address = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (address == MAP_FAILED) throw SystemError("mmap of shared memory " + name + ": " + errno_text(errno));
    return static_cast<std::byte*>(address);
}

}  // namespace

SharedMemory SharedMemory::create(std::size_t bytes) {
    if (bytes == 0) throw std::invalid_argument("SharedMemory::create: 0 bytes");
    const std::size_t page = page_size();
    if (bytes > static_cast<std::size_t>(std::numeric_limits<off_t>::max()) - page) {
        throw std::invalid_argument("SharedMemory::create: size too large");
    }
    auto impl = std::make_unique<Impl>();
    impl->size = (bytes + page - 1) / page * page;
    impl->name = "/pinbench-" + random_hex();

    UniqueFd fd(::shm_open(impl->name.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600));
    if (!fd.valid()) throw SystemError("shm_open(" + impl->name + ", O_CREAT): " + errno_text(errno));
    impl->creator = true;  // from here on the destructor unlinks the name
    if (::ftruncate(fd.get(), static_cast<off_t>(impl->size)) != 0) {
        throw SystemError("ftruncate of shared memory " + impl->name + ": " + errno_text(errno));
    }
    // Reserves the pages now: a full tmpfs (/dev/shm) fails here with ENOSPC instead of raising
    // SIGBUS on the first touch below.
    if (const int error = ::posix_fallocate(fd.get(), 0, static_cast<off_t>(impl->size)); error != 0) {
        throw SystemError("posix_fallocate of shared memory " + impl->name + " (" +
                          std::to_string(impl->size) + " bytes): " + errno_text(error));
    }
    impl->data = map_shared(fd.get(), impl->size, impl->name);
    // Fresh pages are zero; writing one byte per page makes each resident in this process too.
    volatile std::byte* touch = impl->data;
    for (std::size_t offset = 0; offset < impl->size; offset += page) touch[offset] = std::byte{0};
    return SharedMemory(std::move(impl));
}

SharedMemory SharedMemory::open(const std::string& name, std::size_t bytes) {
    if (bytes == 0) throw std::invalid_argument("SharedMemory::open: 0 bytes");
    UniqueFd fd(::shm_open(name.c_str(), O_RDWR | O_CLOEXEC, 0));
    if (!fd.valid()) throw SystemError("shm_open(" + name + "): " + errno_text(errno));
    struct stat info {};
    if (::fstat(fd.get(), &info) != 0) {
        throw SystemError("fstat of shared memory " + name + ": " + errno_text(errno));
    }
    if (info.st_size < 0 || static_cast<std::size_t>(info.st_size) < bytes) {
        throw SystemError("shared memory " + name + " has " + std::to_string(info.st_size) +
                          " bytes, fewer than the " + std::to_string(bytes) + " asked for");
    }
    auto impl = std::make_unique<Impl>();
    impl->name = name;
    impl->size = bytes;
    impl->data = map_shared(fd.get(), bytes, name);
    return SharedMemory(std::move(impl));
}

SharedMemory::SharedMemory(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
SharedMemory::~SharedMemory() = default;
SharedMemory::SharedMemory(SharedMemory&& other) noexcept = default;
SharedMemory& SharedMemory::operator=(SharedMemory&& other) noexcept = default;

std::byte* SharedMemory::data() const { return impl_ ? impl_->data : nullptr; }
std::size_t SharedMemory::size() const { return impl_ ? impl_->size : 0; }
const std::string& SharedMemory::name() const {
    static const std::string none;
    return impl_ ? impl_->name : none;
}

}  // namespace pinbench
