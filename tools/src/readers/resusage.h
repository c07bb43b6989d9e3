// Parser for `cuobjdump -res-usage` output:
//
//   Resource usage:
//    Common:
//     GLOBAL:64 CONSTANT[4]:8
//    Function gelu_f16:
//     REG:40 STACK:0 SHARED:0 LOCAL:0 CONSTANT[0]:928 TEXTURE:0 SURFACE:0 SAMPLER:0
#pragma once

#include <cstdint>
#include <istream>
#include <map>
#include <string>
#include <vector>

namespace tileperf {

struct FunctionResources {
  std::string name;
  std::map<std::string, std::int64_t> values;      // "REG" -> 40, "CONSTANT[0]" -> 928, ...
  std::int64_t get(const std::string& key) const;  // 0 when absent
};

struct ResourceUsage {
  std::map<std::string, std::int64_t> common;
  std::vector<FunctionResources> functions;
};

// Throws InputError naming `filename` and the line on malformed or truncated
// input; every function must report REG, STACK, SHARED and LOCAL.
ResourceUsage parse_resource_usage(std::istream& in, const std::string& filename);

}  // namespace tileperf
