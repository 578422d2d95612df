// The helper program of the Windows process tests (tests/cpu/*_win32_test.cpp): what `sh -c`
// does for the POSIX tests. One mode per behaviour a test needs:
//   exit N                 exit with code N
//   print                  "out\n" on stdout, "err\n" on stderr, "no newline" on stdout
//   pid                    print this process's id
//   grandchild             start `sleep 30000` (this program) and print its pid, then wait
//   sleep MS               sleep, then exit 0
//   crash                  write through a null pointer (STATUS_ACCESS_VIOLATION)
//   crash-this-process     pinbench::crash_this_process() (what a replay script's crash injects)
//   handshake              print "ready", read a line, print "got LINE"
//   drain                  read stdin to its end, then print "done"
//   close-stdin            close stdin, print "closed", sleep 30 s
//   flood N                print N lines "abcdefghij", then "done"
//   flood-then-read N      print N lines "0123456789", then read a line and print "got LINE"
//   env NAME...            print the variables' values joined by '|'
//   utf8-env NAME...       the same, read by pinbench::environment_variable (UTF-8)
//   arguments ARGS...      print pinbench::program_arguments() after the mode, joined by '|'
//   partial                print "partial" without a newline, sleep 30 s
//   hold-lock DIR          take the store lock of DIR, print "locked", wait until killed
//   take-lock-and-exit DIR take it and end the process without releasing it
//   hold-claim PATH        hold a DirectoryClaim on PATH, print "claimed", wait until killed
//   shm-check NAME BYTES V map the block, check every byte is V, write V+1, print "ok" or what differed
//   hold-open PATH MS      open PATH for reading the way Python's open() does (no delete
//                          sharing), print "open", keep it open MS, close, print "closed"
//   memory-limits PATH     write what platform/memory_limits.hpp reads here to PATH: "in_job N",
//                          then a line per limit "KIND SCOPE LIMIT USED", then "note TEXT" lines
//   read-loop PATH MS A B  read PATH with read_file for MS; print "reads N mixed M" (a read that
//                          is neither the contents of file A nor of file B is mixed)
#include <fcntl.h>
#include <io.h>
#include <windows.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "pinbench/platform/atomic_file.hpp"
#include "pinbench/platform/directory_claim.hpp"
#include "pinbench/platform/process_info.hpp"
#include "pinbench/platform/shared_memory.hpp"
#include "pinbench/platform/subprocess.hpp"
#include "pinbench/platform/utf8.hpp"
#include "pinbench/store/store.hpp"
#include "platform/memory_limits.hpp"
#include "store/store_lock.hpp"

namespace {

using namespace std::chrono_literals;

void say(const std::string& line) {
    std::cout << line << "\n";
    std::cout.flush();
}

[[noreturn]] void sleep_forever() {
    for (;;) ::Sleep(INFINITE);
}

int run(int argc, char** argv) {
    if (argc < 2) {
        std::cerr << "win32_test_child: no mode\n";
        return 64;
    }
    const std::string mode = argv[1];
    const auto arg = [&](int i) -> std::string {
        if (i + 1 >= argc) throw std::runtime_error(mode + ": argument " + std::to_string(i) + " missing");
        return argv[i + 1];
    };
    if (mode == "exit") return std::stoi(arg(1));
    if (mode == "print") {
        std::cout << "out\n" << std::flush;
        std::cerr << "err\n" << std::flush;
        std::cout << "no newline" << std::flush;
        return 0;
    }
    if (mode == "pid") {
        say(std::to_string(::GetCurrentProcessId()));
        return 0;
    }
    if (mode == "grandchild") {
        wchar_t self[MAX_PATH];
        ::GetModuleFileNameW(nullptr, self, MAX_PATH);
        std::wstring line = L"\"" + std::wstring(self) + L"\" sleep 30000";
        STARTUPINFOW startup{};
        startup.cb = sizeof startup;
        PROCESS_INFORMATION info{};
        if (!::CreateProcessW(nullptr, line.data(), nullptr, nullptr, FALSE, 0, nullptr, nullptr, &startup,
                              &info))
            return 65;
        ::CloseHandle(info.hThread);
        say(std::to_string(info.dwProcessId));
        ::WaitForSingleObject(info.hProcess, INFINITE);
        return 0;
    }
    if (mode == "sleep") {
        ::Sleep(static_cast<DWORD>(std::stoul(arg(1))));
        return 0;
    }
    if (mode == "crash") {
        volatile int* nowhere = nullptr;
        *nowhere = 1;
        return 0;
    }
    if (mode == "crash-this-process") pinbench::crash_this_process();
    if (mode == "handshake") {
        say("ready");
        std::string line;
        if (!std::getline(std::cin, line)) return 66;
        if (!line.empty() && line.back() == '\r') line.pop_back();
        say("got " + line);
        return 0;
    }
    if (mode == "drain") {
        std::string line;
        while (std::getline(std::cin, line)) {
        }
        say("done");
        return 0;
    }
    if (mode == "close-stdin") {
        ::CloseHandle(::GetStdHandle(STD_INPUT_HANDLE));
        ::SetStdHandle(STD_INPUT_HANDLE, nullptr);
        say("closed");
        ::Sleep(30000);
        return 0;
    }
    if (mode == "flood" || mode == "flood-then-read") {
        const bool then_read = mode == "flood-then-read";
        const long n = std::stol(arg(1));
        const std::string text = then_read ? "0123456789\n" : "abcdefghij\n";
        for (long i = 0; i < n; ++i) std::cout << text;
        if (!then_read) {
            std::cout << "done\n" << std::flush;
            return 0;
        }
        std::cout.flush();
        std::string line;
        if (!std::getline(std::cin, line)) return 66;
        if (!line.empty() && line.back() == '\r') line.pop_back();
        say("got " + line);
        return 0;
    }
    if (mode == "utf8-env") {
        std::string out;
        for (int i = 2; i < argc; ++i)
            out += (i > 2 ? "|" : "") + pinbench::environment_variable(argv[i]).value_or("");
        std::cout << out << std::flush;
        return 0;
    }
    if (mode == "arguments") {
        const std::vector<std::string> arguments = pinbench::program_arguments(argc, argv);
        std::string out;
        for (std::size_t i = 2; i < arguments.size(); ++i) out += (i > 2 ? "|" : "") + arguments[i];
        std::cout << out << std::flush;
        return 0;
    }
    if (mode == "env") {
        std::string out;
        for (int i = 2; i < argc; ++i) {
            if (i > 2) out += "|";
            const char* value = std::getenv(argv[i]);
            out += value != nullptr ? value : "";
        }
        std::cout << out << std::flush;
        return 0;
    }
    if (mode == "partial") {
        std::cout << "partial" << std::flush;
        ::Sleep(30000);
        return 0;
    }
    if (mode == "hold-lock" || mode == "take-lock-and-exit") {
        auto lock = pinbench::store_detail::StoreLock::acquire(arg(1), pinbench::StoreLockOptions{});
        say("locked");
        if (mode == "take-lock-and-exit") ::ExitProcess(0);  // no destructors: as after a crash
        sleep_forever();
    }
    if (mode == "hold-claim") {
        const pinbench::DirectoryClaim claim(arg(1));
        say("claimed");
        sleep_forever();
    }
    if (mode == "shm-check") {
        const std::size_t bytes = std::stoul(arg(2));
        const auto value = static_cast<unsigned char>(std::stoul(arg(3)));
        const auto block = pinbench::SharedMemory::open(arg(1), bytes);
        for (std::size_t i = 0; i < bytes; ++i) {
            if (static_cast<unsigned char>(block.data()[i]) != value) {
                say("byte " + std::to_string(i) + " is " + std::to_string(static_cast<int>(block.data()[i])));
                return 1;
            }
        }
        for (std::size_t i = 0; i < bytes; ++i) block.data()[i] = static_cast<std::byte>(value + 1);
        say("ok");
        return 0;
    }
    if (mode == "hold-open") {
        const std::string path = arg(1);
        const std::wstring wide(path.begin(), path.end());
        // What the C runtime's _wopen (and so Python's open()) asks for: read and write sharing,
        // no delete sharing.
        const HANDLE file = ::CreateFileW(wide.c_str(), GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE,
                                          nullptr, OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, nullptr);
        if (file == INVALID_HANDLE_VALUE) {
            say("cannot open: error " + std::to_string(::GetLastError()));
            return 1;
        }
        say("open");
        ::Sleep(static_cast<DWORD>(std::stoul(arg(2))));
        ::CloseHandle(file);
        say("closed");
        return 0;
    }
    if (mode == "memory-limits") {
        const pinbench::MemoryLimits m = pinbench::read_memory_limits();
        std::string text = "in_job " + std::to_string(m.in_job ? 1 : 0) + "\n";
        for (const pinbench::MemoryLimit& l : m.limits) {
            text += l.kind + (l.scope == pinbench::LimitScope::shared ? " shared " : " process ") +
                    std::to_string(l.limit) + " " + std::to_string(l.used) + "\n";
        }
        for (const std::string& note : m.notes) text += "note " + note + "\n";
        pinbench::write_file_atomically(arg(1), text);
        return 0;
    }
    if (mode == "read-loop") {
        const std::string path = arg(1);
        const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(std::stol(arg(2)));
        const std::string a = pinbench::read_file(arg(3));
        const std::string b = pinbench::read_file(arg(4));
        long reads = 0, mixed = 0, failed = 0;
        say("reading");
        while (std::chrono::steady_clock::now() < until) {
            try {
                const std::string seen = pinbench::read_file(path);
                ++reads;
                if (seen != a && seen != b) ++mixed;
            } catch (const std::exception&) {
                ++failed;  // the name is replaced, never missing: expected 0
            }
        }
        say("reads " + std::to_string(reads) + " mixed " + std::to_string(mixed) + " failed " +
            std::to_string(failed));
        return 0;
    }
    std::cerr << "win32_test_child: unknown mode " << mode << "\n";
    return 64;
}

}  // namespace

int main(int argc, char** argv) {
    // "\n" as written, as with sh on POSIX (the C runtime's text mode would write "\r\n").
    _setmode(_fileno(stdout), _O_BINARY);
    _setmode(_fileno(stderr), _O_BINARY);
    _setmode(_fileno(stdin), _O_BINARY);
    try {
        return run(argc, argv);
    } catch (const std::exception& e) {
        std::cerr << "win32_test_child: " << e.what() << "\n";
        return 70;
    }
}
