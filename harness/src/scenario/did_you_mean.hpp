// The known names a scenario file's messages list, and the "did you mean" hint for a name close
// to one of them (scenario keys, parameters, choices; the metric catalog's names too).
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>

#include "scenario/yaml_reader.hpp"

namespace pinbench {

template <typename Names>
bool contains(const Names& names, std::string_view name) {
    return std::find(names.begin(), names.end(), name) != names.end();
}

template <typename Names>
std::string join(const Names& names) {
    std::string out;
    for (std::string_view n : names) {
        out += (out.empty() ? "" : ", ") + std::string(n);
    }
    return out;
}

// Edit distance, for "did you mean" hints on misspelt names.
std::size_t edit_distance(std::string_view a, std::string_view b);

// "did you mean" for a close name, else the list of what is known.
template <typename Names>
std::string suggestion(std::string_view name, const Names& known, std::string_view what) {
    for (std::string_view k : known) {
        if (edit_distance(name, k) <= 2) {
            return "; did you mean " + in_quotes(k) + "?";
        }
    }
    return " (" + std::string(what) + ": " + join(known) + ")";
}

template <typename Names>
std::string unknown_key_message(std::string_view key, const Names& known, std::string_view where) {
    return "unknown key " + in_quotes(key) + std::string(where) + suggestion(key, known, "keys");
}

}  // namespace pinbench
