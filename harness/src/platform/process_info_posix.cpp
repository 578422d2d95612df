#include "pinbench/process_info.hpp"

#include <fstream>

namespace pinbench {

std::string process_name(std::uint32_t pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/comm");
    std::string name;
    std::getline(in, name);
    return name;
}

}  // namespace pinbench
