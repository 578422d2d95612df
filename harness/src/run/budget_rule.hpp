// The decisions of `pinbench budget` that are arithmetic, kept apart from the processes so the
// CPU tests pin them down with hand-computed values (docs/budget.md, "The margin rule").
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace pinbench {

// The safe budget keeps this share of what one process held pinned at once (docs/budget.md).
inline constexpr double kBudgetKeepShare = 0.8;
// The margin of host memory never asked for, by default: the larger of these.
inline constexpr std::uint64_t kKeepFreeFloor = std::uint64_t{4} << 30;
inline constexpr double kKeepFreeShare = 0.10;  // of the memory available at the start

// max(kKeepFreeFloor, kKeepFreeShare x available).
std::uint64_t default_keep_free(std::uint64_t available);

// kBudgetKeepShare of `held`, in whole chunks; no larger than `shared_room` (DXGI NON_LOCAL
// budget minus its usage before pinning) where that was read.
std::uint64_t safe_budget(std::uint64_t held, std::uint64_t chunk, std::optional<std::uint64_t> shared_room);

// The device memory the held phase (budget_child.hpp) had lost when it held `budget` bytes: its
// device free before pinning minus the free reading after the chunk that reached `budget`.
// Nothing when no chunk reached it (a budget of 0 costs 0) or the readings are missing.
std::optional<std::int64_t> vram_cost_at(const nlohmann::json& held_phase, std::uint64_t budget);

// The VRAM figure of one family, {"cost": bytes or null} or, when the parent's NVML watch saw
// another process move device memory while the held phase held its pins (`held_phase`'s
// "disturbed": the evidence, one line each), {"cost": null, "disturbed": [...]}: the device's
// free memory then moved with the neighbour too, so the figure would be someone else's (beside a
// device-burst neighbour on the H100: 922 MiB where the quiet figure is 12 MiB; results/h100-budget).
// `held_phase` is the phase record ({"status", "data", "disturbed"?}).
nlohmann::json vram_answer(const nlohmann::json& held_phase, std::uint64_t budget);

// Windows' limit on the system memory graphics may use, Microsoft's "Calculating graphics
// memory": TotalSystemMemoryAvailableForGraphics = MAX(TotalSystemMemory / 2, 64 MB).
std::uint64_t windows_graphics_limit(std::uint64_t ram_total);

// DXGI NON_LOCAL budget minus usage in `readings` (a probes object), when both were read.
std::optional<std::uint64_t> shared_room(const nlohmann::json& readings);

// What ended a search, in words: "a pin failed at 3 GiB: cuMemHostAlloc failed: ...",
// "capped at 16 GiB, the real limit is higher", ...; `at` is what was reached.
std::string stop_words(const std::string& stopped_by, std::uint64_t at, std::uint64_t failed_at,
                       const std::string& reason);

// True when what stopped it was the driver's limit, not the cap, the time or the host's memory.
bool stopped_by_driver(const std::string& stopped_by);

}  // namespace pinbench
