#include "kinds/caching_host_allocator.hpp"

#include <bit>
#include <limits>
#include <map>
#include <mutex>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace pinbench {

// Shared by the allocator and its blocks (weakly), so that a block outliving the allocator
// frees its buffer instead of touching a destroyed free list.
struct CachingHostAllocator::Pool {
    explicit Pool(Factory f) : factory(std::move(f)) {}

    const Factory factory;
    mutable std::mutex mutex;
    // Size class (a power of two) -> cached buffers; last in, first out as in PyTorch.
    std::map<std::size_t, std::vector<std::unique_ptr<HostBuffer>>> free_lists;
    std::size_t pinned_bytes = 0;
    std::size_t allocations = 0;
    std::size_t cached_blocks = 0;
};

std::size_t CachingHostAllocator::round_up(std::size_t bytes) {
    constexpr std::size_t kLargest = std::size_t{1} << (std::numeric_limits<std::size_t>::digits - 1);
    if (bytes > kLargest) {
        throw std::length_error("caching host allocator: " + std::to_string(bytes) +
                                " bytes do not round to a power of two that fits size_t");
    }
    return std::bit_ceil(bytes);
}

CachingHostAllocator::CachingHostAllocator(Factory factory)
    : pool_(std::make_shared<Pool>(std::move(factory))) {}

CachingHostAllocator::~CachingHostAllocator() = default;

CachingHostAllocator::Block CachingHostAllocator::acquire(std::size_t bytes) {
    if (bytes == 0) return {};
    const std::size_t size = round_up(bytes);
    {
        const std::lock_guard lock(pool_->mutex);
        if (auto it = pool_->free_lists.find(size); it != pool_->free_lists.end() && !it->second.empty()) {
            std::unique_ptr<HostBuffer> buffer = std::move(it->second.back());
            it->second.pop_back();
            --pool_->cached_blocks;
            return Block(pool_, std::move(buffer), size);
        }
    }
    // Slow path, outside the lock: the factory may take long (it calls the driver).
    std::unique_ptr<HostBuffer> buffer = pool_->factory(size);
    if (!buffer || buffer->size() < size) {
        throw std::logic_error("caching host allocator: the factory returned " +
                               std::string(buffer ? "a smaller buffer" : "no buffer") + " for " +
                               std::to_string(size) + " bytes");
    }
    const std::lock_guard lock(pool_->mutex);
    pool_->pinned_bytes += buffer->size();
    ++pool_->allocations;
    return Block(pool_, std::move(buffer), size);
}

void CachingHostAllocator::Block::reset() {
    if (!buffer_) return;
    std::unique_ptr<HostBuffer> buffer = std::move(buffer_);
    const std::shared_ptr<Pool> pool = std::exchange(pool_, {}).lock();
    if (!pool) return;  // the allocator is gone: `buffer` is freed here
    const std::size_t bytes = buffer->size();
    {
        const std::lock_guard lock(pool->mutex);
        try {
            pool->free_lists[size_].push_back(std::move(buffer));
            ++pool->cached_blocks;
            return;
        } catch (const std::bad_alloc&) {
            // No memory for the free-list entry: free the buffer instead of caching it.
            pool->pinned_bytes -= bytes;
        }
    }
}

void CachingHostAllocator::release(Block block) { block.reset(); }

void CachingHostAllocator::empty_cache() {
    std::map<std::size_t, std::vector<std::unique_ptr<HostBuffer>>> freed;
    {
        const std::lock_guard lock(pool_->mutex);
        freed.swap(pool_->free_lists);
        for (const auto& [size, buffers] : freed) {
            for (const auto& buffer : buffers) pool_->pinned_bytes -= buffer->size();
        }
        pool_->cached_blocks = 0;
    }
    // `freed` goes out of scope here, outside the lock: the buffers' destructors call the driver.
}

std::size_t CachingHostAllocator::pinned_bytes() const {
    const std::lock_guard lock(pool_->mutex);
    return pool_->pinned_bytes;
}

std::size_t CachingHostAllocator::allocations() const {
    const std::lock_guard lock(pool_->mutex);
    return pool_->allocations;
}

std::size_t CachingHostAllocator::cached_blocks() const {
    const std::lock_guard lock(pool_->mutex);
    return pool_->cached_blocks;
}

}  // namespace pinbench
