// The tables of expected answers beside a fixture folder (expected.tsv, cases.tsv): one
// "FILE<TAB>EXPECTED" line a case, read the same way by every test that checks such a folder.
#pragma once

#include <fstream>
#include <string>
#include <utility>
#include <vector>

namespace pinbench::test {

// The (file, expected) pairs of `tsv_path`, in file order; lines without a tab are skipped. A
// missing file gives none (the tests then assert a minimum count).
inline std::vector<std::pair<std::string, std::string>> fixture_table(const std::string& tsv_path) {
    std::ifstream in(tsv_path);
    std::vector<std::pair<std::string, std::string>> out;
    std::string line;
    while (std::getline(in, line)) {
        const auto tab = line.find('\t');
        if (tab != std::string::npos) out.emplace_back(line.substr(0, tab), line.substr(tab + 1));
    }
    return out;
}

}  // namespace pinbench::test
