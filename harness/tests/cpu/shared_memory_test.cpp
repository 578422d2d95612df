// SharedMemory: a created block is page-sized and zero, a second mapping by name sees the same
// bytes, a missing name throws, the creator's destruction removes the name (mappings already
// made stay valid), and on POSIX a forked child sees and writes the same block.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>

#include "pinbench/platform/shared_memory.hpp"
#include "pinbench/vocabulary/errors.hpp"

#ifndef _WIN32
#include <sys/wait.h>
#include <unistd.h>
#endif

namespace pinbench {
namespace {

constexpr std::size_t kMiB = std::size_t{1} << 20;

TEST(SharedMemory, CreateRoundsUpToWholePagesAndZeroes) {
    // 1 MiB + 1 byte ends within the next page whatever the page size (4 KiB .. 64 KiB).
    SharedMemory block = SharedMemory::create(kMiB + 1);
    ASSERT_NE(block.data(), nullptr);
    EXPECT_GT(block.size(), kMiB + 1);
    EXPECT_LE(block.size(), kMiB + 64 * 1024);
    EXPECT_EQ(block.size() % 4096, 0u);
    EXPECT_EQ(block.name().rfind("pinbench-"), block.name().size() - 16 - 9);
    for (std::size_t i = 0; i < block.size(); ++i) ASSERT_EQ(block.data()[i], std::byte{0}) << "at " << i;
}

TEST(SharedMemory, SecondMappingByNameSeesTheSameBytes) {
    SharedMemory creator = SharedMemory::create(kMiB);
    SharedMemory opened = SharedMemory::open(creator.name(), kMiB);
    EXPECT_EQ(opened.name(), creator.name());
    EXPECT_EQ(opened.size(), kMiB);
    EXPECT_NE(opened.data(), creator.data());  // two views of one block

    const char text[] = "written through the creator";
    std::memcpy(creator.data() + 12345, text, sizeof text);
    EXPECT_EQ(std::memcmp(opened.data() + 12345, text, sizeof text), 0);
    opened.data()[kMiB - 1] = std::byte{0x5a};
    EXPECT_EQ(creator.data()[kMiB - 1], std::byte{0x5a});
}

TEST(SharedMemory, TwoBlocksHaveDifferentNames) {
    SharedMemory a = SharedMemory::create(4096);
    SharedMemory b = SharedMemory::create(4096);
    EXPECT_NE(a.name(), b.name());
}

TEST(SharedMemory, OpenOfAMissingNameThrowsSystemError) {
#ifdef _WIN32
    const std::string name = "Local\\pinbench-0000000000000000";
#else
    const std::string name = "/pinbench-0000000000000000";
#endif
    try {
        SharedMemory::open(name, 4096);
        FAIL() << "no error";
    } catch (const SystemError& error) {
        EXPECT_NE(std::string(error.what()).find(name), std::string::npos) << error.what();
    }
}

TEST(SharedMemory, ZeroBytesIsAnInvalidArgument) {
    EXPECT_THROW(SharedMemory::create(0), std::invalid_argument);
}

TEST(SharedMemory, NameIsGoneAfterTheCreatorIsDestroyed) {
    std::string name;
    {
        SharedMemory creator = SharedMemory::create(4096);
        name = creator.name();
    }
    EXPECT_THROW(SharedMemory::open(name, 4096), SystemError);
}

TEST(SharedMemory, OpenedMappingOutlivesTheCreatorButTheNameDoesNot) {
    auto creator = std::make_unique<SharedMemory>(SharedMemory::create(4096));
    const std::string name = creator->name();
    creator->data()[7] = std::byte{42};
    SharedMemory opened = SharedMemory::open(name, 4096);
    creator.reset();
    EXPECT_EQ(opened.data()[7], std::byte{42});
    opened.data()[8] = std::byte{43};  // still mapped and writable
    EXPECT_THROW(SharedMemory::open(name, 4096), SystemError);
}

TEST(SharedMemory, MovedFromIsEmptyAndTheNameMovesWithTheOwnership) {
    SharedMemory first = SharedMemory::create(4096);
    const std::string name = first.name();
    SharedMemory second = std::move(first);
    EXPECT_EQ(first.data(), nullptr);   // NOLINT(bugprone-use-after-move): documented state
    EXPECT_EQ(first.size(), 0u);        // NOLINT(bugprone-use-after-move)
    EXPECT_TRUE(first.name().empty());  // NOLINT(bugprone-use-after-move)
    EXPECT_EQ(second.name(), name);
    // The moved-from object does not remove the name; the new owner still holds it.
    EXPECT_NO_THROW(SharedMemory::open(name, 4096));
}

#ifndef _WIN32
TEST(SharedMemory, OpenOfMoreBytesThanTheBlockHasThrows) {
    SharedMemory creator = SharedMemory::create(4096);
    EXPECT_THROW(SharedMemory::open(creator.name(), creator.size() + 1), SystemError);
}

// A forked child opens the block by name, checks the parent's bytes and writes its own.
TEST(SharedMemory, ForkedChildSeesAndWritesTheSameBlock) {
    SharedMemory creator = SharedMemory::create(kMiB);
    std::memset(creator.data(), 0x11, 1024);
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        int code = 1;
        try {
            SharedMemory child = SharedMemory::open(creator.name(), kMiB);
            code = child.data()[1023] == std::byte{0x11} ? 0 : 2;
            child.data()[kMiB - 1] = std::byte{0x22};
        } catch (...) {
            code = 3;
        }
        // _exit: the child must not run the parent's destructors (which would unlink the name).
        ::_exit(code);
    }
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0);
    EXPECT_EQ(creator.data()[kMiB - 1], std::byte{0x22});
}
#endif

}  // namespace
}  // namespace pinbench
