// Subprocess on Windows: CreateProcessW of the program find_program names (platform/
// program_search.hpp: never one in the current folder, which CreateProcessW would search first
// for a bare name) with inherited pipe handles, the child in a job object
// that kills its whole tree when closed or terminated, and a reader thread draining stdout so
// the child never blocks on a full pipe.
#include "pinbench/platform/subprocess.hpp"

#include <windows.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cwchar>
#include <mutex>

#include "pinbench/platform/interrupt.hpp"
#include "pinbench/platform/utf8.hpp"
#include "pinbench/vocabulary/errors.hpp"
#include "platform/handles_win32.hpp"
#include "platform/program_search.hpp"
#include "platform/windows_command_line.hpp"

namespace pinbench {
namespace {

using Clock = std::chrono::steady_clock;
using win32::UniqueHandle;

constexpr std::size_t kOutputKeep = std::size_t{64} * 1024;
// After the tree is dead the pipe reaches EOF at once; this only bounds the pathological case
// of a process outside the job holding the pipe.
constexpr DWORD kDrainGraceMs = 500;

// `what` is a plain pointer so that building the message cannot run (and touch GetLastError)
// before the caller's ::GetLastError() argument is evaluated.
SystemError os_error(const char* what, DWORD error) {
    return SystemError(what + (": " + win32::error_text(error)));
}

Clock::time_point deadline_after(std::chrono::milliseconds timeout) {
    constexpr auto kMax = std::chrono::hours(24 * 365);
    return Clock::now() + std::clamp<std::chrono::milliseconds>(timeout, std::chrono::milliseconds(0), kMax);
}

void append_tail(std::string& tail, const char* data, std::size_t n) {
    if (n >= kOutputKeep) {
        tail.assign(data + (n - kOutputKeep), kOutputKeep);
        return;
    }
    tail.append(data, n);
    if (tail.size() > kOutputKeep) tail.erase(0, tail.size() - kOutputKeep);
}

// Environment names are case-insensitive on Windows ("Path" and "PATH" are one variable).
struct CaseInsensitiveLess {
    bool operator()(const std::wstring& a, const std::wstring& b) const {
        return ::CompareStringOrdinal(a.c_str(), static_cast<int>(a.size()), b.c_str(),
                                      static_cast<int>(b.size()), TRUE) == CSTR_LESS_THAN;
    }
};

struct EnvironmentStringsDeleter {
    void operator()(wchar_t* block) const { ::FreeEnvironmentStringsW(block); }
};

// The parent's environment with `overrides` added or replacing entries, as a sorted
// CREATE_UNICODE_ENVIRONMENT block ("NAME=value\0...\0\0").
std::wstring environment_block(const std::map<std::string, std::string>& overrides) {
    std::map<std::wstring, std::wstring, CaseInsensitiveLess> vars;
    const std::unique_ptr<wchar_t, EnvironmentStringsDeleter> parent(::GetEnvironmentStringsW());
    for (const wchar_t* entry = parent.get(); entry != nullptr && *entry != L'\0';
         entry += std::wcslen(entry) + 1) {
        const std::wstring text(entry);
        // Start at 1: hidden per-drive variables are named like "=C:" ("=C:=C:\\work").
        const auto eq = text.find(L'=', 1);
        if (eq == std::wstring::npos) continue;
        vars.emplace(text.substr(0, eq), text.substr(eq + 1));
    }
    for (const auto& [name, value] : overrides) {
        if (name.empty() || name.find('=') != std::string::npos) {
            throw SystemError("invalid environment variable name '" + name + "'");
        }
        vars[win32::widen(name)] = win32::widen(value);  // an existing entry keeps its spelling
    }
    std::wstring block;
    for (const auto& [name, value] : vars) {
        block += name;
        block += L'=';
        block += value;
        block += L'\0';
    }
    if (block.empty()) block += L'\0';
    block += L'\0';
    return block;
}

// A one-entry attribute list naming exactly the handles the child may inherit, so that it gets
// only its own pipe ends even if another thread creates processes at the same time.
class InheritedHandles {
public:
    explicit InheritedHandles(std::vector<HANDLE> handles) : handles_(std::move(handles)) {
        SIZE_T size = 0;
        ::InitializeProcThreadAttributeList(nullptr, 1, 0, &size);
        storage_.resize(size);
        list_ = reinterpret_cast<LPPROC_THREAD_ATTRIBUTE_LIST>(storage_.data());
        if (!::InitializeProcThreadAttributeList(list_, 1, 0, &size)) {
            const DWORD error = ::GetLastError();
            list_ = nullptr;
            throw os_error("InitializeProcThreadAttributeList", error);
        }
        if (!::UpdateProcThreadAttribute(list_, 0, PROC_THREAD_ATTRIBUTE_HANDLE_LIST, handles_.data(),
                                         handles_.size() * sizeof(HANDLE), nullptr, nullptr)) {
            const DWORD error = ::GetLastError();
            ::DeleteProcThreadAttributeList(list_);
            list_ = nullptr;
            throw os_error("UpdateProcThreadAttribute(PROC_THREAD_ATTRIBUTE_HANDLE_LIST)", error);
        }
    }
    ~InheritedHandles() {
        if (list_ != nullptr) ::DeleteProcThreadAttributeList(list_);
    }
    InheritedHandles(const InheritedHandles&) = delete;
    InheritedHandles& operator=(const InheritedHandles&) = delete;
    LPPROC_THREAD_ATTRIBUTE_LIST get() const { return list_; }

private:
    std::vector<HANDLE> handles_;  // must outlive the list, which points at it
    std::vector<unsigned char> storage_;
    LPPROC_THREAD_ATTRIBUTE_LIST list_ = nullptr;
};

struct Pipe {
    UniqueHandle read_end;
    UniqueHandle write_end;
};

// Both ends start non-inheritable; the child's end is made inheritable just for CreateProcessW.
Pipe make_pipe() {
    HANDLE read_end = nullptr;
    HANDLE write_end = nullptr;
    if (!::CreatePipe(&read_end, &write_end, nullptr, 0)) throw os_error("CreatePipe", ::GetLastError());
    return Pipe{UniqueHandle(read_end), UniqueHandle(write_end)};
}

void make_inheritable(HANDLE handle) {
    if (!::SetHandleInformation(handle, HANDLE_FLAG_INHERIT, HANDLE_FLAG_INHERIT)) {
        throw os_error("SetHandleInformation", ::GetLastError());
    }
}

}  // namespace

struct Subprocess::Impl {
    UniqueHandle job;
    UniqueHandle process;
    UniqueHandle stdin_write;
    UniqueHandle stdout_read;
    UniqueHandle reader;  // thread running read_loop()
    DWORD pid = 0;
    bool finished = false;  // exited (or killed) and its exit code read
    Clock::time_point started;
    std::optional<ProcessOutcome> outcome;

    // Shared with the reader thread.
    std::mutex mutex;
    std::condition_variable changed;
    std::string tail;     // the last 64 KiB of output
    std::string pending;  // output read_line has not returned yet
    bool keep_pending = true;
    bool eof = false;
    std::atomic<bool> stop_reading{false};

    Impl() = default;
    Impl(const Impl&) = delete;
    Impl& operator=(const Impl&) = delete;
    ~Impl() {
        if (process.valid() && !finished) {
            terminate_tree();
            ::WaitForSingleObject(process.get(), INFINITE);
        } else if (job.valid()) {
            terminate_tree();
        }
        stop_reader();
    }

    static DWORD WINAPI reader_main(void* self) {
        static_cast<Impl*>(self)->read_loop();
        return 0;
    }

    void read_loop() {
        try {
            std::vector<char> buffer(kOutputKeep);
            while (!stop_reading.load()) {
                DWORD n = 0;
                // Fails with ERROR_BROKEN_PIPE once every writer has closed (EOF), or with
                // ERROR_OPERATION_ABORTED after CancelSynchronousIo from stop_reader().
                if (!::ReadFile(stdout_read.get(), buffer.data(), static_cast<DWORD>(buffer.size()), &n,
                                nullptr)) {
                    break;
                }
                if (n == 0) continue;  // a zero-byte write by the child, not EOF
                {
                    const std::lock_guard<std::mutex> lock(mutex);
                    append_tail(tail, buffer.data(), n);
                    if (keep_pending) pending.append(buffer.data(), n);
                }
                changed.notify_all();
            }
        } catch (...) {
            // Out of memory: stop reading; what was collected stays.
        }
        {
            const std::lock_guard<std::mutex> lock(mutex);
            eof = true;
        }
        changed.notify_all();
    }

    void terminate_tree() { ::TerminateJobObject(job.get(), 1); }

    // Joins the reader: normally it ends by itself at EOF; otherwise its blocked read is cancelled.
    void stop_reader() {
        if (!reader.valid()) return;
        if (::WaitForSingleObject(reader.get(), kDrainGraceMs) == WAIT_TIMEOUT) {
            stop_reading.store(true);
            // Repeat: a cancel that lands between two reads has nothing to cancel.
            do {
                ::CancelSynchronousIo(reader.get());
            } while (::WaitForSingleObject(reader.get(), 50) == WAIT_TIMEOUT);
        }
        reader.reset();
    }
};

Subprocess::Subprocess(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
                       const SubprocessOptions& options)
    : impl_(std::make_unique<Impl>()) {
    if (argv.empty()) throw SystemError("cannot start a process: empty argument list");
    Impl& p = *impl_;
    const std::wstring program = win32::widen(find_program(argv[0]));
    std::wstring command_line = win32::widen(join_windows_command_line(argv));
    std::wstring environment = environment_block(env);

    Pipe stdin_pipe = make_pipe();
    Pipe stdout_pipe = make_pipe();
    make_inheritable(stdin_pipe.read_end.get());
    make_inheritable(stdout_pipe.write_end.get());
    // inherit_stdio: inheritable copies of our own standard handles instead of the pipes.
    std::vector<UniqueHandle> own_std;
    HANDLE child_in = stdin_pipe.read_end.get(), child_out = stdout_pipe.write_end.get(),
           child_err = child_out;
    if (options.inherit_stdio) {
        auto copy = [&](DWORD which) -> HANDLE {
            HANDLE h = ::GetStdHandle(which), dup = nullptr;
            if (h == nullptr || h == INVALID_HANDLE_VALUE) return nullptr;
            if (!::DuplicateHandle(::GetCurrentProcess(), h, ::GetCurrentProcess(), &dup, 0, TRUE,
                                   DUPLICATE_SAME_ACCESS)) {
                return nullptr;
            }
            own_std.emplace_back(dup);
            return dup;
        };
        child_in = copy(STD_INPUT_HANDLE);
        child_out = copy(STD_OUTPUT_HANDLE);
        child_err = copy(STD_ERROR_HANDLE);
    }
    std::vector<HANDLE> to_inherit;
    for (HANDLE h : {child_in, child_out, child_err}) {
        if (h != nullptr && std::find(to_inherit.begin(), to_inherit.end(), h) == to_inherit.end()) {
            to_inherit.push_back(h);
        }
    }
    if (to_inherit.empty()) to_inherit.push_back(stdin_pipe.read_end.get());  // the list may not be empty
    InheritedHandles inherited(to_inherit);
    const std::wstring directory = win32::widen(options.working_directory);

    // Closing the job (our destructor, or our own death) kills the child and everything it
    // started; crashes end the process with their exception code instead of a WER dialog.
    p.job.reset(::CreateJobObjectW(nullptr, nullptr));
    if (!p.job.valid()) throw os_error("CreateJobObjectW", ::GetLastError());
    JOBOBJECT_EXTENDED_LIMIT_INFORMATION limits{};
    limits.BasicLimitInformation.LimitFlags =
        JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE | JOB_OBJECT_LIMIT_DIE_ON_UNHANDLED_EXCEPTION;
    if (!::SetInformationJobObject(p.job.get(), JobObjectExtendedLimitInformation, &limits, sizeof limits)) {
        throw os_error("SetInformationJobObject", ::GetLastError());
    }

    STARTUPINFOEXW startup{};
    startup.StartupInfo.cb = sizeof startup;
    startup.StartupInfo.dwFlags = STARTF_USESTDHANDLES;
    startup.StartupInfo.hStdInput = child_in;
    startup.StartupInfo.hStdOutput = child_out;
    startup.StartupInfo.hStdError = child_err;
    startup.lpAttributeList = inherited.get();

    // Suspended until it is in the job, so not even its first child can escape the job.
    // A child sharing our console must not get a hidden one of its own.
    const DWORD flags = CREATE_SUSPENDED | CREATE_UNICODE_ENVIRONMENT | EXTENDED_STARTUPINFO_PRESENT |
                        (options.inherit_stdio ? 0 : CREATE_NO_WINDOW);
    PROCESS_INFORMATION info{};
    p.started = Clock::now();
    // ERROR_INTERNAL_ERROR (1359) is transient: Wine's server gives it now and then while many
    // processes start and end (seen once in 4 CI runs, replaying 231 repeats); a few short
    // retries, and any other error or a fourth failure is reported as before.
    BOOL started = FALSE;
    for (int attempt = 0; attempt < 4; ++attempt) {
        if (attempt > 0) ::Sleep(50);
        started = ::CreateProcessW(program.c_str(), command_line.data(), nullptr, nullptr, TRUE, flags,
                                   environment.data(), directory.empty() ? nullptr : directory.c_str(),
                                   &startup.StartupInfo, &info);
        if (started || ::GetLastError() != ERROR_INTERNAL_ERROR) break;
    }
    if (!started) {
        const DWORD error = ::GetLastError();
        std::string why = win32::error_text(error);
        // Windows (and Wine) start no program from a path of MAX_PATH or more, long path support or not.
        if (program.size() >= MAX_PATH) {
            why += "; its path has " + std::to_string(program.size()) +
                   " characters, and Windows starts no program from a path of 260 or more: move it to a "
                   "shorter folder (docs/windows.md, \"Long paths\")";
        }
        throw SystemError("cannot start '" + argv[0] + "': " + why);
    }
    p.process.reset(info.hProcess);
    const UniqueHandle thread(info.hThread);
    p.pid = info.dwProcessId;
    if (!::AssignProcessToJobObject(p.job.get(), p.process.get())) {
        const DWORD error = ::GetLastError();
        ::TerminateProcess(p.process.get(), 1);
        ::WaitForSingleObject(p.process.get(), INFINITE);
        p.finished = true;
        throw os_error("AssignProcessToJobObject", error);
    }
    if (::ResumeThread(thread.get()) == static_cast<DWORD>(-1)) {
        const DWORD error = ::GetLastError();
        throw os_error("ResumeThread", error);  // ~Impl terminates the job
    }

    // Our copies of the child's ends close now, so EOF on stdout means every writer is gone.
    stdin_pipe.read_end.reset();
    stdout_pipe.write_end.reset();
    p.stdin_write = std::move(stdin_pipe.write_end);
    p.stdout_read = std::move(stdout_pipe.read_end);
    if (options.inherit_stdio) {
        p.stdout_read.reset();  // nothing writes to the pipe: no reader
        return;
    }

    p.reader.reset(::CreateThread(nullptr, 0, &Impl::reader_main, &p, 0, nullptr));
    if (!p.reader.valid()) throw os_error("CreateThread", ::GetLastError());
}

Subprocess::~Subprocess() = default;  // Impl kills the job, waits, and joins the reader

ProcessOutcome Subprocess::wait(std::chrono::milliseconds timeout) {
    Impl& p = *impl_;
    if (p.outcome) return *p.outcome;
    // EOF on stdin: nothing more will be written, so a child reading it cannot hang on us.
    p.stdin_write.reset();
    {
        const std::lock_guard<std::mutex> lock(p.mutex);
        p.keep_pending = false;
        p.pending.clear();
    }

    // In slices, so that a stop request (CTRL_C, CTRL_BREAK, CTRL_CLOSE) ends the wait early.
    const auto deadline = Clock::now() + timeout;
    DWORD waited = WAIT_TIMEOUT;
    bool interrupted = false;
    for (;;) {
        const auto left =
            std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
        const auto slice = std::clamp<long long>(left, 0, 50);
        waited = ::WaitForSingleObject(p.process.get(), static_cast<DWORD>(slice));
        if (waited != WAIT_TIMEOUT || left <= 0) break;
        if (stop_signal() != 0) {
            interrupted = true;
            break;
        }
    }
    const bool timed_out = waited == WAIT_TIMEOUT && !interrupted;
    if (waited != WAIT_OBJECT_0 && waited != WAIT_TIMEOUT) {
        const DWORD error = ::GetLastError();
        throw os_error("WaitForSingleObject on the child", error);  // ~Impl still cleans up
    }
    const auto ended = Clock::now();
    // On a timeout this kills the child and its tree; after a normal exit it ends whatever the
    // child left running, so nothing it started outlives wait() and the pipe reaches EOF.
    p.terminate_tree();
    if (timed_out || interrupted) ::WaitForSingleObject(p.process.get(), INFINITE);
    DWORD code = 0;
    const bool have_code = ::GetExitCodeProcess(p.process.get(), &code) != 0;
    p.finished = true;
    p.stop_reader();

    ProcessOutcome o;
    if (timed_out) {
        o.kind = ProcessOutcome::Kind::timed_out;
    } else if (interrupted) {
        o.kind = ProcessOutcome::Kind::interrupted;
    } else if (have_code && (code & 0x80000000u) != 0) {
        // An NTSTATUS error such as 0xC0000005 (access violation): the process crashed.
        o.kind = ProcessOutcome::Kind::signalled;
        o.signal = static_cast<int>(code);
    } else {
        o.kind = ProcessOutcome::Kind::exited;
        o.exit_code = have_code ? static_cast<int>(code) : -1;  // -1: exit code unknown
    }
    {
        const std::lock_guard<std::mutex> lock(p.mutex);
        o.output = p.tail;
    }
    o.wall_ms = std::chrono::duration<double, std::milli>(ended - p.started).count();
    p.outcome = o;
    return o;
}

std::optional<std::string> Subprocess::read_line(std::chrono::milliseconds timeout) {
    Impl& p = *impl_;
    const auto deadline = deadline_after(timeout);
    std::unique_lock<std::mutex> lock(p.mutex);
    if (!p.keep_pending) return std::nullopt;  // after wait(): the output is in the outcome
    p.changed.wait_until(lock, deadline, [&] { return p.eof || p.pending.find('\n') != std::string::npos; });
    const auto newline = p.pending.find('\n');
    if (newline != std::string::npos) {
        std::string line = p.pending.substr(0, newline);
        p.pending.erase(0, newline + 1);
        if (!line.empty() && line.back() == '\r') line.pop_back();  // text-mode stdout writes CRLF
        return line;
    }
    // At EOF the last line may lack its newline; after that there is nothing more.
    if (p.eof && !p.pending.empty()) return std::exchange(p.pending, std::string());
    return std::nullopt;
}

void Subprocess::write_line(const std::string& line) {
    Impl& p = *impl_;
    if (!p.stdin_write.valid()) throw SystemError("cannot write to the child's stdin: it is closed");
    const std::string data = line + "\n";
    std::size_t written = 0;
    // A blocking write cannot deadlock: the reader thread keeps draining the child's stdout.
    while (written < data.size()) {
        DWORD n = 0;
        const DWORD chunk = static_cast<DWORD>(std::min<std::size_t>(data.size() - written, 1u << 30));
        if (!::WriteFile(p.stdin_write.get(), data.data() + written, chunk, &n, nullptr)) {
            const DWORD error = ::GetLastError();
            throw os_error("cannot write to the child's stdin", error);
        }
        written += n;
    }
}

std::uint32_t Subprocess::pid() const { return impl_->pid; }

namespace {

// A file (not a folder) there; whether Windows can run it is CreateProcessW's to say.
bool is_program(const std::string& path) {
    std::wstring wide;
    try {
        wide = win32::widen(path);
    } catch (const SystemError&) {
        return false;
    }
    const DWORD attributes = ::GetFileAttributesW(wide.c_str());
    return attributes != INVALID_FILE_ATTRIBUTES && (attributes & FILE_ATTRIBUTE_DIRECTORY) == 0;
}

}  // namespace

std::string find_program(const std::string& name) {
    const std::string path = environment_variable("PATH").value_or("");
    if (auto found = resolve_program(name, path, PathStyle::windows, is_program)) return *found;
    throw SystemError("cannot start '" + name +
                      "': not found in PATH's absolute folders (the current folder is never searched)");
}

std::string current_executable_path() {
    std::wstring path(MAX_PATH, L'\0');
    for (;;) {
        const DWORD n = ::GetModuleFileNameW(nullptr, path.data(), static_cast<DWORD>(path.size()));
        if (n == 0) throw os_error("GetModuleFileNameW", ::GetLastError());
        if (n < path.size()) {  // n == size means the name was truncated
            path.resize(n);
            return win32::narrow(path);
        }
        if (path.size() >= 32768) throw SystemError("GetModuleFileNameW: path longer than 32767 characters");
        path.resize(path.size() * 2);
    }
}

void crash_this_process() {
    // Not continuable, and no handler is installed for it: the process ends with the code, as
    // after a real access violation (under Wine too, with winedbg disabled).
    ::RaiseException(static_cast<DWORD>(EXCEPTION_ACCESS_VIOLATION), EXCEPTION_NONCONTINUABLE, 0, nullptr);
    ::TerminateProcess(::GetCurrentProcess(), static_cast<UINT>(EXCEPTION_ACCESS_VIOLATION));  // not reached
    for (;;) {
    }
}

// The job object ends the child with us (JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE): nothing to add.
std::vector<std::string> tied_command(const std::vector<std::string>& argv) {
    if (argv.empty()) throw SystemError("cannot start a process: empty argument list");
    if (!is_program(find_program(argv[0]))) {  // find_program throws, naming where it looked
        throw SystemError("cannot start '" + argv[0] + "': no such program");
    }
    return argv;
}

int exec_tied(std::uint32_t, const std::vector<std::string>&) {
    std::fprintf(stderr, "pinbench: __exec is not used on Windows\n");
    return 127;
}

}  // namespace pinbench
