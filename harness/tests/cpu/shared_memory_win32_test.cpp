// SharedMemory across processes on Windows: the POSIX fork tests of shared_memory_test.cpp,
// ported to a second process (win32_test_child.cpp) that opens the block by name.
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <string>

#include "pinbench/platform/shared_memory.hpp"
#include "pinbench/platform/subprocess.hpp"
#include "pinbench/vocabulary/errors.hpp"
#include "windows_support.hpp"

namespace pinbench {
namespace {

using namespace std::chrono_literals;
using testing_support::test_child;
constexpr std::size_t kMiB = std::size_t{1} << 20;

TEST(SharedMemoryWin32, OpenOfMoreBytesThanTheBlockHasThrows) {
    SharedMemory creator = SharedMemory::create(4096);
    EXPECT_THROW(SharedMemory::open(creator.name(), creator.size() + 1), SystemError);
}

// Another process opens the block by name, checks the parent's bytes and writes its own.
TEST(SharedMemoryWin32, AnotherProcessSeesAndWritesTheSameBlock) {
    SharedMemory creator = SharedMemory::create(kMiB);
    std::memset(creator.data(), 0x11, kMiB);
    Subprocess child(test_child("shm-check", {creator.name(), std::to_string(kMiB), std::to_string(0x11)}),
                     {});
    const ProcessOutcome o = child.wait(30s);
    ASSERT_EQ(o.kind, ProcessOutcome::Kind::exited) << o.output;
    EXPECT_EQ(o.exit_code, 0) << o.output;
    EXPECT_EQ(o.output, "ok\n");
    EXPECT_EQ(creator.data()[0], std::byte{0x12});
    EXPECT_EQ(creator.data()[kMiB - 1], std::byte{0x12});
}

TEST(SharedMemoryWin32, AnotherProcessCannotOpenTheNameOnceTheCreatorIsGone) {
    std::string name;
    { name = SharedMemory::create(4096).name(); }
    Subprocess child(test_child("shm-check", {name, "4096", "0"}), {});
    const ProcessOutcome o = child.wait(30s);
    ASSERT_EQ(o.kind, ProcessOutcome::Kind::exited);
    EXPECT_EQ(o.exit_code, 70) << o.output;  // the helper's "an exception ended me"
    EXPECT_NE(o.output.find(name), std::string::npos) << o.output;
}

}  // namespace
}  // namespace pinbench
