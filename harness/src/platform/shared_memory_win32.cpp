// SharedMemory on Windows: a paging-file backed section (CreateFileMappingW with
// INVALID_HANDLE_VALUE and SEC_COMMIT, so the whole size is charged against the commit limit at
// creation) named "Local\pinbench-<token>", mapped with MapViewOfFile. A named kernel object
// keeps its name while any handle to it is open, so only the creator keeps its handle: an opener
// closes its own once the view is mapped (the view keeps the section alive), and the name is
// gone when the creator is destroyed, as after shm_unlink on POSIX.
#include "pinbench/platform/shared_memory.hpp"

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>

#include "pinbench/vocabulary/errors.hpp"
#include "platform/handles_win32.hpp"
#include "platform/random_token.hpp"

namespace pinbench {

using win32::error_text;
using win32::UniqueHandle;
using win32::widen;

struct SharedMemory::Impl {
    std::string name;
    std::byte* data = nullptr;
    std::size_t size = 0;
    UniqueHandle mapping;  // the creator's handle: holds the name

    Impl() = default;
    Impl(const Impl&) = delete;
    Impl& operator=(const Impl&) = delete;
    ~Impl() {
        if (data != nullptr) ::UnmapViewOfFile(data);
    }
};

namespace {

std::size_t page_size() {
    SYSTEM_INFO info{};
    ::GetSystemInfo(&info);
    return info.dwPageSize > 0 ? static_cast<std::size_t>(info.dwPageSize) : 4096;
}

std::byte* map_view(HANDLE mapping, std::size_t bytes, const std::string& name) {
    void* address = ::MapViewOfFile(mapping, FILE_MAP_ALL_ACCESS, 0, 0, bytes);
    if (address == nullptr) {
        throw SystemError("MapViewOfFile of shared memory " + name + ": " + error_text(::GetLastError()));
    }
    return static_cast<std::byte*>(address);
}

}  // namespace

SharedMemory SharedMemory::create(std::size_t bytes) {
    if (bytes == 0) throw std::invalid_argument("SharedMemory::create: 0 bytes");
    const std::size_t page = page_size();
    if (bytes > SIZE_MAX - page) throw std::invalid_argument("SharedMemory::create: size too large");
    auto impl = std::make_unique<Impl>();
    impl->size = (bytes + page - 1) / page * page;
    impl->name = "Local\\pinbench-" + random_hex();

    const auto size64 = static_cast<std::uint64_t>(impl->size);
    impl->mapping.reset(::CreateFileMappingW(
        INVALID_HANDLE_VALUE, nullptr, PAGE_READWRITE | SEC_COMMIT, static_cast<DWORD>(size64 >> 32),
        static_cast<DWORD>(size64 & 0xFFFFFFFFu), widen(impl->name).c_str()));
    const DWORD error = ::GetLastError();
    if (!impl->mapping.valid()) {
        throw SystemError("CreateFileMappingW(" + impl->name + ", " + std::to_string(impl->size) +
                          " bytes): " + error_text(error));
    }
    // An existing section of that name is opened, not created: never share someone else's.
    if (error == ERROR_ALREADY_EXISTS) {
        throw SystemError("CreateFileMappingW(" + impl->name + "): " + error_text(error));
    }
    impl->data = map_view(impl->mapping.get(), impl->size, impl->name);
    // Committed pages are zero but not yet resident; writing one byte per page makes them so.
    volatile std::byte* touch = impl->data;
    for (std::size_t offset = 0; offset < impl->size; offset += page) touch[offset] = std::byte{0};
    return SharedMemory(std::move(impl));
}

SharedMemory SharedMemory::open(const std::string& name, std::size_t bytes) {
    if (bytes == 0) throw std::invalid_argument("SharedMemory::open: 0 bytes");
    // Closed on return: the view alone keeps the section alive (see the top of this file).
    const UniqueHandle mapping(::OpenFileMappingW(FILE_MAP_ALL_ACCESS, FALSE, widen(name).c_str()));
    if (!mapping.valid()) {
        throw SystemError("OpenFileMappingW(" + name + "): " + error_text(::GetLastError()));
    }
    auto impl = std::make_unique<Impl>();
    impl->name = name;
    impl->size = bytes;
    // MapViewOfFile fails when the section is smaller than `bytes`.
    impl->data = map_view(mapping.get(), bytes, name);
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
