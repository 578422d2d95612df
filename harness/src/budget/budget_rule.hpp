// The decisions of `pinbench budget` that are arithmetic or read from a phase's record, kept apart
// from the processes so the CPU tests pin them down with hand-computed values (docs/budget.md).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace pinbench {

// The safe budget keeps this share of what one process held pinned at once (docs/budget.md).
inline constexpr double kBudgetKeepShare = 0.8;
// The margin never asked for below the host's available memory and each group's room, by
// default (budget/budget_limits.hpp): the larger of kKeepFreeShare of the smallest room at the
// start and kKeepFreeFloor, the floor no more than kKeepFreeFloorShare of that room (so that a
// 6 GiB container keeps a quarter free, not 4 of its 6 GiB).
inline constexpr std::uint64_t kKeepFreeFloor = std::uint64_t{4} << 30;
inline constexpr double kKeepFreeShare = 0.10;
inline constexpr double kKeepFreeFloorShare = 0.25;

// max(min(kKeepFreeFloor, kKeepFreeFloorShare x room), kKeepFreeShare x room). On a host with
// 16 GiB or more available and no smaller group, the larger of 4 GiB and 10% of it, as always.
std::uint64_t default_keep_free(std::uint64_t room);

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

// The default --cap on Windows (docs/budget.md): the larger of the DXGI NON_LOCAL budget (where
// read) and windows_graphics_limit(ram_total), plus kWindowsCapMargin of it, rounded up to whole
// chunks (at least one): above the OS's own limit, so the default search finds it.
inline constexpr double kWindowsCapMargin = 0.25;
std::uint64_t windows_default_cap(std::uint64_t ram_total, std::optional<std::uint64_t> nonlocal_budget,
                                  std::uint64_t chunk);

// DXGI NON_LOCAL budget minus usage in `readings` (a probes object), when both were read.
std::optional<std::uint64_t> shared_room(const nlohmann::json& readings);

// What ended a search, in words: "a pin failed at 3 GiB: cuMemHostAlloc failed: ...",
// "capped at 16 GiB, the real limit is higher", "the container's limit, 6 GiB, 1.2 GiB in use
// (...), less 1.2 GiB kept free stopped it at 3.5 GiB", ...; `at` is what was reached, `reason`
// the child's (the error, or the limit's words).
std::string stop_words(const std::string& stopped_by, std::uint64_t at, std::uint64_t failed_at,
                       const std::string& reason);

// True when what stopped it was the driver's limit, not the cap, the time or the host's memory.
bool stopped_by_driver(const std::string& stopped_by);

// Whether a phase's data (budget_child.hpp) saw a pin that reported success without being
// pinned: stopped by it, or a pin of "tried", "chunks" or "first_try" named it (not_pinned).
bool silent_fallback_in(const nlohmann::json& phase_data);

// Whether the single phase pins the cap at once first (budget_child.hpp, "cap_first"): the held
// phase (its record, {"status", "data", "disturbed"?}) reached the cap in chunks with no call
// failing, no silent fallback and no other process moving device memory beside it. Where nothing
// fails below the cap that one pin is the answer the doubling gives, and the doubling's pins of
// one chunk, two, four ... up to the cap are not made: about half of the bytes the phase pins
// (16 GiB instead of 31.75 GiB per family with the defaults). Where the held phase stopped
// otherwise (the driver, a silent fallback, the time limit, the host's available memory), the
// single phase searches as it always did.
bool cap_first_applies(const nlohmann::json& held_phase);

}  // namespace pinbench
