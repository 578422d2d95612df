// The files a package ships beside pinbench (scenarios, the replay example, the docs its messages
// cite), found from pinbench's own executable, whichever way it was installed:
// - the wheel: bin/pinbench (Scripts\pinbench.exe) and ../share/pinbench/ (docs/pip-install.md);
// - the zip and the tarball: beside the program (docs/package-windows.md, docs/package-linux.md);
// - a build: the checkout above build/<preset>/harness/pinbench.
// `pinbench run quick` and `--from h200-smoke` find the packaged files by name; `--help` links
// the installed docs/.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace pinbench::cli {

// The folder holding scenarios/ and docs/ for this pinbench, or none (a lone copy of the program).
std::optional<std::filesystem::path> share_folder();

// The subfolders of share_folder() where named files are looked up, by what they are.
inline constexpr const char* kScenarios = "scenarios";
inline constexpr const char* kReplayScripts = "scenarios/replay";
inline constexpr const char* kReplaySources = "results";

// `name` as given when it names a file; else, for a bare name (no folder in it), the packaged
// file of that name in share_folder()/`folder`, with `extension` added when it has none
// (`quick` -> .../scenarios/quick.yaml). Empty when neither is found; `where` then says where the
// packaged ones are and lists them.
std::string find_named_file(const std::string& name, const std::string& folder, const std::string& extension,
                            std::string* where);

// share_folder()/docs/ as the user may open it, with a trailing separator, or "docs/ of the
// pinbench source" when there is none.
std::string docs_folder_text();

}  // namespace pinbench::cli
