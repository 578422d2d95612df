#include "pinbench/platform/process_info.hpp"

#include <fstream>

namespace pinbench {

std::string process_name(std::uint32_t pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/comm");
    std::string name;
    std::getline(in, name);
    return name;
}

std::vector<std::string> program_arguments(int argc, char** argv) { return {argv, argv + argc}; }

}  // namespace pinbench
