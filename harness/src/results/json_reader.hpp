// Moved to json/json_reader.hpp. Kept only for store/store.cpp, which other work is changing
// now; remove it when store.cpp includes json/json_reader.hpp (docs/architecture.md, "Waiting
// for other work").
#pragma once

#include "json/json_reader.hpp"  // IWYU pragma: export
