// Random hex tokens: temporary-file names, lock owners, request nonces. Two processes (or
// threads) never pick the same one by accident.
#pragma once

#include <string>

namespace pinbench {

// 16 hex digits (64 random bits from std::random_device) per `words`.
std::string random_hex(int words = 1);

}  // namespace pinbench
