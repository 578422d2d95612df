// A caching host allocator like PyTorch's CachingHostAllocator (the `workers` kind, `framework`
// variant, docs/kinds.md): a request is rounded up to the next power of two, freed blocks go
// back to a free list per size class and are reused, and nothing is returned to the factory
// (the driver) until empty_cache(). Host-only: the factory supplies the buffers, so tests need
// no CUDA.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>

#include "pinbench/cuda/host_buffer.hpp"

namespace pinbench {

class CachingHostAllocator {
    struct Pool;

public:
    // Called with the rounded size; must return a buffer of at least that many bytes (or throw,
    // e.g. CudaError when the driver cannot pin it: the allocator's state is then unchanged).
    // Called without the allocator's lock held, so it must be thread-safe if acquire() is called
    // from several threads.
    using Factory = std::function<std::unique_ptr<HostBuffer>(std::size_t)>;

    // One acquired block. Move-only; destroying it releases it to the allocator's free list
    // (or, if the allocator is gone already, frees the buffer).
    class Block {
    public:
        Block() = default;
        ~Block() { reset(); }
        Block(Block&& other) noexcept = default;
        Block& operator=(Block&& other) noexcept {
            if (this != &other) {
                reset();
                pool_ = std::move(other.pool_);
                buffer_ = std::move(other.buffer_);
                size_ = other.size_;
            }
            return *this;
        }
        Block(const Block&) = delete;
        Block& operator=(const Block&) = delete;

        explicit operator bool() const { return buffer_ != nullptr; }
        std::byte* data() const { return buffer_ ? buffer_->data() : nullptr; }
        // The block's size: the power of two the request was rounded to (0 for an empty block).
        std::size_t size() const { return buffer_ ? size_ : 0; }
        // The buffer behind the block (its API, device pointer); nullptr for an empty block.
        const HostBuffer* buffer() const { return buffer_.get(); }
        // Releases now (same as destroying it); the block is empty afterwards.
        void reset();

    private:
        friend class CachingHostAllocator;
        Block(std::weak_ptr<Pool> pool, std::unique_ptr<HostBuffer> buffer, std::size_t size)
            : pool_(std::move(pool)), buffer_(std::move(buffer)), size_(size) {}
        std::weak_ptr<Pool> pool_;
        std::unique_ptr<HostBuffer> buffer_;
        std::size_t size_ = 0;
    };

    explicit CachingHostAllocator(Factory factory);
    // Frees the cached buffers; blocks still held free theirs when they are destroyed.
    ~CachingHostAllocator();
    CachingHostAllocator(const CachingHostAllocator&) = delete;
    CachingHostAllocator& operator=(const CachingHostAllocator&) = delete;

    // A block of round_up(bytes): from the free list of that size class if one is cached, else
    // from the factory. 0 bytes gives an empty block without calling the factory (as PyTorch
    // returns nullptr). Throws std::length_error when the rounded size does not fit size_t.
    Block acquire(std::size_t bytes);
    // Puts the block on its class's free list (same as destroying it).
    void release(Block block);
    // Frees every cached (free) block through its destructor; blocks in use are kept.
    void empty_cache();

    // Bytes currently obtained from the factory and not yet freed: in use plus cached.
    std::size_t pinned_bytes() const;
    // How many times the factory has been called (cache misses), since construction.
    std::size_t allocations() const;
    // Blocks on the free lists.
    std::size_t cached_blocks() const;

    // The size class of a request: the next power of two >= bytes (c10::llvm::PowerOf2Ceil).
    static std::size_t round_up(std::size_t bytes);

private:
    std::shared_ptr<Pool> pool_;
};

}  // namespace pinbench
