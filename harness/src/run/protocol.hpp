// The parent/child protocol of isolated repeats. The parent writes a request file, starts
// `pinbench __child --request FILE`, and accepts a response only if it carries the request's
// nonce, run id and repeat index: a stale file from an earlier repeat can never be mistaken
// for this one. Responses are written atomically, so a crash leaves no half response.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace pinbench {

inline constexpr const char* child_protocol = "pinbench.child/1";

// Modes of the child process (a stage above the runner adds its own: run/child.hpp's ChildMode).
namespace child_mode {
inline constexpr const char* environment = "environment";          // collect the environment record
inline constexpr const char* measure = "measure";                  // one repeat of a planned run, by kind
inline constexpr const char* null_control = "null_control";        // snapshots with nothing allocated
inline constexpr const char* positive_device = "positive_device";  // cudaMalloc + touch S bytes
inline constexpr const char* positive_host = "positive_host";      // pin S bytes (DXGI NON_LOCAL)
inline constexpr const char* hold_device = "hold_device";          // cross-check: allocate S, hold until told
inline constexpr const char* replay = "replay";                    // re-emit a recorded repeat
}  // namespace child_mode

// A fresh random token (hex) for one request.
std::string make_nonce();

// Validates a response against its request; returns an empty string when it belongs to it,
// else why not (wrong protocol, nonce, run id or repeat).
std::string response_mismatch(const nlohmann::json& request, const nlohmann::json& response);

}  // namespace pinbench
