// A program's output as lines, for the tests that count them ("one line and the exit code"):
// empty lines are dropped and a CR is no part of a line (Windows ends lines with CRLF).
#pragma once

#include <string>
#include <vector>

namespace pinbench::test {

inline std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::string line;
    for (const char c : text) {
        if (c == '\n') {
            if (!line.empty()) lines.push_back(line);
            line.clear();
        } else if (c != '\r') {
            line += c;
        }
    }
    if (!line.empty()) lines.push_back(line);
    return lines;
}

}  // namespace pinbench::test
