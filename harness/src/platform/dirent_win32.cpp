// std::filesystem's folder listing on Windows, paths of any length (docs/windows.md, "Long
// paths"). libstdc++ lists a folder (directory_iterator, recursive_directory_iterator,
// remove_all, copy) through the C runtime's _wopendir / _wreaddir / _wclosedir. mingw-w64's
// (libmingwex's wdirent.o) makes the path absolute in a MAX_PATH buffer and, for a longer path,
// lists the *current folder* instead, with no error: `store add --store` of a new folder of 269
// characters said "not empty" (it had listed the current folder) and left the folder behind,
// and remove_all of such a folder would have removed the current folder's files.
//
// These six functions take the place of wdirent.o's in every program linked with
// pinbench_platform: harness/CMakeLists.txt makes `_wopendir` undefined from the first object on
// (-Wl,--undefined), so the linker takes this file from libpinbench_platform.a before it searches
// libmingwex. The folder is made absolute by GetFullPathNameW (any length), given the `\\?\`
// prefix when it is long, and read with FindFirstFileExW / FindNextFileW. Errors are errno
// values, as libstdc++ reads them: ENOENT, ENOTDIR, EACCES, EIO.
#include <dirent.h>
#include <windows.h>

#include <cerrno>
#include <cwchar>
#include <new>
#include <string>
#include <utility>

namespace {

// Where a listing is, kept behind _WDIR::dd_handle (the caller only passes _WDIR back).
struct Listing {
    HANDLE find = INVALID_HANDLE_VALUE;
    WIN32_FIND_DATAW next{};
    bool have_next = false;  // `next` holds the entry the next _wreaddir returns
    int pending_errno = 0;   // FindNextFileW failed: said by the next _wreaddir
    long position = 0;       // entries returned since the start
    std::wstring pattern;    // the folder's path and "\*"
};

int errno_of(DWORD error) {
    switch (error) {
        case ERROR_FILE_NOT_FOUND:
        case ERROR_PATH_NOT_FOUND:
        case ERROR_INVALID_NAME:
        case ERROR_BAD_NETPATH:
            return ENOENT;
        case ERROR_DIRECTORY:
            return ENOTDIR;
        case ERROR_ACCESS_DENIED:
        case ERROR_SHARING_VIOLATION:
            return EACCES;
        case ERROR_NOT_ENOUGH_MEMORY:
        case ERROR_OUTOFMEMORY:
            return ENOMEM;
        default:
            return EIO;
    }
}

// The folder as an absolute path that any Win32 call takes, whatever its length: `\\?\C:\...`
// or `\\?\UNC\server\share\...` once it is 248 characters or more (CreateDirectoryW's limit).
// Empty when GetFullPathNameW fails.
std::wstring extended(const wchar_t* path) {
    const DWORD n = ::GetFullPathNameW(path, 0, nullptr, nullptr);
    if (n == 0) return {};
    std::wstring full(n, L'\0');
    const DWORD written = ::GetFullPathNameW(path, n, full.data(), nullptr);
    if (written == 0 || written >= n) return {};
    full.resize(written);
    if (full.size() < MAX_PATH - 12 || full.rfind(L"\\\\?\\", 0) == 0) return full;
    if (full.rfind(L"\\\\", 0) == 0) return L"\\\\?\\UNC\\" + full.substr(2);
    return L"\\\\?\\" + full;
}

// From the first entry: false (errno set) when the folder cannot be read.
bool start(Listing& listing) {
    if (listing.find != INVALID_HANDLE_VALUE) ::FindClose(listing.find);
    listing.position = 0;
    listing.pending_errno = 0;
    listing.find = ::FindFirstFileExW(listing.pattern.c_str(), FindExInfoBasic, &listing.next,
                                      FindExSearchNameMatch, nullptr, 0);
    if (listing.find == INVALID_HANDLE_VALUE) {
        const DWORD error = ::GetLastError();
        listing.have_next = false;
        if (error == ERROR_FILE_NOT_FOUND || error == ERROR_NO_MORE_FILES) return true;  // nothing in it
        errno = errno_of(error);
        return false;
    }
    listing.have_next = true;
    return true;
}

Listing* listing_of(_WDIR* dir) {
    return dir == nullptr ? nullptr : reinterpret_cast<Listing*>(dir->dd_handle);  // NOLINT: set by _wopendir
}

}  // namespace

extern "C" {

_WDIR* __cdecl _wopendir(const wchar_t* path) {
    if (path == nullptr || *path == L'\0') {
        errno = ENOENT;
        return nullptr;
    }
    const std::wstring folder = extended(path);
    if (folder.empty()) {
        errno = ENOENT;
        return nullptr;
    }
    const DWORD attributes = ::GetFileAttributesW(folder.c_str());
    if (attributes == INVALID_FILE_ATTRIBUTES) {
        errno = errno_of(::GetLastError());
        return nullptr;
    }
    if ((attributes & FILE_ATTRIBUTE_DIRECTORY) == 0) {
        errno = ENOTDIR;
        return nullptr;
    }
    auto* listing = new (std::nothrow) Listing();
    auto* dir = new (std::nothrow) _WDIR();
    if (listing == nullptr || dir == nullptr) {
        delete listing;
        delete dir;
        errno = ENOMEM;
        return nullptr;
    }
    const wchar_t last = folder.back();
    listing->pattern = folder + (last == L'\\' || last == L'/' ? L"*" : L"\\*");
    if (!start(*listing)) {
        const int error = errno;
        delete listing;
        delete dir;
        errno = error;
        return nullptr;
    }
    dir->dd_handle = reinterpret_cast<intptr_t>(listing);  // NOLINT: the handle field holds our state
    return dir;
}

struct _wdirent* __cdecl _wreaddir(_WDIR* dir) {
    Listing* listing = listing_of(dir);
    if (listing == nullptr) {
        errno = EBADF;
        return nullptr;
    }
    if (!listing->have_next) {
        if (listing->pending_errno != 0) errno = std::exchange(listing->pending_errno, 0);
        return nullptr;  // the end: errno untouched
    }
    _wdirent& entry = dir->dd_dir;
    const std::size_t length = ::wcsnlen(listing->next.cFileName, MAX_PATH - 1);
    std::wmemcpy(entry.d_name, listing->next.cFileName, length);
    entry.d_name[length] = L'\0';
    entry.d_namlen = static_cast<unsigned short>(length);
    entry.d_ino = 0;
    entry.d_reclen = 0;
    ++listing->position;
    if (::FindNextFileW(listing->find, &listing->next) == 0) {
        const DWORD error = ::GetLastError();
        listing->have_next = false;
        if (error != ERROR_NO_MORE_FILES) listing->pending_errno = errno_of(error);
    }
    return &entry;
}

int __cdecl _wclosedir(_WDIR* dir) {
    Listing* listing = listing_of(dir);
    if (listing == nullptr) {
        errno = EBADF;
        return -1;
    }
    if (listing->find != INVALID_HANDLE_VALUE) ::FindClose(listing->find);
    delete listing;
    delete dir;
    return 0;
}

void __cdecl _wrewinddir(_WDIR* dir) {
    if (Listing* listing = listing_of(dir)) (void)start(*listing);
}

long __cdecl _wtelldir(_WDIR* dir) {
    const Listing* listing = listing_of(dir);
    if (listing == nullptr) {
        errno = EBADF;
        return -1;
    }
    return listing->position;
}

void __cdecl _wseekdir(_WDIR* dir, long position) {
    Listing* listing = listing_of(dir);
    if (listing == nullptr || position < 0 || !start(*listing)) return;
    while (listing->position < position && _wreaddir(dir) != nullptr) {
    }
}

}  // extern "C"
