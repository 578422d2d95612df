// OS shared memory: one named block mapped into several processes (the `shared` scenario kind,
// docs/kinds.md). Platform code: harness/src/platform/shared_memory_{posix,win32}.cpp (pimpl
// keeps OS types out).
#pragma once

#include <cstddef>
#include <memory>
#include <string>

namespace pinbench {

class SharedMemory {
public:
    // A new block of `bytes` rounded up to whole pages, every page touched (so it is backed, not
    // just reserved) and zero. Named "/pinbench-<token>" (POSIX shm_open) or
    // "Local\pinbench-<token>" (Windows, paging-file backed). The creator owns the name: its
    // destructor unlinks it (POSIX) or closes the last handle to it (Windows), after which
    // open() of that name fails; mappings already opened stay valid until they are destroyed.
    // Throws std::invalid_argument for 0 bytes, SystemError with the OS error text otherwise.
    static SharedMemory create(std::size_t bytes);

    // Maps the first `bytes` of an existing block by its name() (in this or another process).
    // Throws SystemError when no block has that name or it is smaller than `bytes`.
    static SharedMemory open(const std::string& name, std::size_t bytes);

    ~SharedMemory();  // unmaps; the creator also removes the name
    SharedMemory(SharedMemory&& other) noexcept;
    SharedMemory& operator=(SharedMemory&& other) noexcept;
    SharedMemory(const SharedMemory&) = delete;
    SharedMemory& operator=(const SharedMemory&) = delete;

    // A moved-from object has data() == nullptr, size() == 0 and an empty name().
    std::byte* data() const;
    std::size_t size() const;
    const std::string& name() const;

    struct Impl;

private:
    explicit SharedMemory(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

}  // namespace pinbench
