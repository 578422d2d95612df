#include "store/earlier_times.hpp"

#include <algorithm>
#include <exception>
#include <filesystem>
#include <utility>
#include <vector>

#include "pinbench/platform/utf8.hpp"
#include "pinbench/store/store.hpp"

namespace pinbench {
namespace {

// The note where no earlier times were found: the eta learns from this run's own first repeats
// (run/eta.hpp); `why` says why there are none.
std::string from_first_repeats(const std::string& why) { return "eta from this run's first repeats; " + why; }

}  // namespace

RepeatTimes repeat_times_from_store(const std::string& dir, const nlohmann::json& environment, int newest,
                                    std::string* note) {
    RepeatTimes times;
    try {
        if (std::filesystem::is_regular_file(path_from_utf8(dir))) {
            for (const auto& run : load_results(dir).runs) times.add(run);
            if (note) {
                *note = times.empty() ? from_first_repeats("no repeat times in " + dir)
                                      : "eta from the repeat times of " + dir;
            }
            return times;
        }
        const Store store = Store::open_existing(dir);
        const StoreKey key = store_key_of(environment);
        std::vector<StoredEntry> mine;
        for (auto& e : store.list(true)) {
            if (e.problem.empty() && e.kind == DocumentKind::results && e.key == key) {
                mine.push_back(std::move(e));
            }
        }
        std::sort(mine.begin(), mine.end(),
                  [](const StoredEntry& a, const StoredEntry& b) { return a.started_at > b.started_at; });
        if (mine.size() > static_cast<std::size_t>(newest)) mine.resize(static_cast<std::size_t>(newest));
        for (const auto& e : mine) {
            for (const auto& run : load_stored_results(e).runs) times.add(run);
        }
        if (note) {
            *note = times.empty()
                        ? from_first_repeats("no earlier run of this machine in " + dir)
                        : "eta from the repeat times of " + std::to_string(mine.size()) +
                              (mine.size() == 1 ? " earlier results file" : " earlier results files") +
                              " of this machine in " + dir;
        }
    } catch (const std::exception& e) {
        if (note) *note = from_first_repeats(std::string("earlier repeat times unreadable: ") + e.what());
        times = {};
    }
    return times;
}

}  // namespace pinbench
