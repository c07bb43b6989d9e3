#include "metrics/remark_metrics.h"

#include <cctype>

namespace tileperf {

namespace {

// Metric-name-safe word: letters, digits, '_' and 'x'; others become '_'.
std::string word(std::string s) {
  for (char& c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') c = '_';
  }
  return s;
}

// The metric of each lost optimization.
const char* lost_metric(LostOptimization lost) {
  switch (lost) {
    case LostOptimization::kIndexNarrowing:
      return "remarks.index_narrowing_missed";
    case LostOptimization::kRegisterPressure:
      return "remarks.register_pressure";
    case LostOptimization::kRegisterSpill:
      return "remarks.register_spill";
    case LostOptimization::kLocalMemory:
      return "remarks.local_memory";
    case LostOptimization::kNone:
      break;
  }
  return nullptr;
}

void count_memory(const Remark& r, const std::string& op, std::map<std::string, std::int64_t>& m) {
  std::string instruction = r.arg("Instruction");
  bool tma = instruction.find("TMA") != std::string::npos;
  ++m["remarks." + op + (tma ? ".tma" : ".global")];
  if (tma && !r.arg("Shape").empty()) ++m["remarks." + op + ".tma_shape." + word(shape_key(r.arg("Shape")))];
}

}  // namespace

std::map<std::string, std::int64_t> remark_metrics(const std::vector<Remark>& remarks) {
  std::map<std::string, std::int64_t> m = {
      {"remarks.tensor_core.passed", 0}, {"remarks.tensor_core.failed", 0}, {"remarks.load.tma", 0},
      {"remarks.load.global", 0},        {"remarks.load.tma_failed", 0},    {"remarks.store.tma", 0},
      {"remarks.store.global", 0},       {"remarks.store.tma_failed", 0},
  };
  for (auto lost : {LostOptimization::kIndexNarrowing, LostOptimization::kRegisterPressure,
                    LostOptimization::kRegisterSpill, LostOptimization::kLocalMemory}) {
    m[lost_metric(lost)] = 0;
  }
  for (const auto& r : remarks) {
    if (r.name == "RemarkTensorCoreMMA") {
      ++m[is_lost_tensor_core(r) ? "remarks.tensor_core.failed" : "remarks.tensor_core.passed"];
      std::string instruction = r.arg("Instruction");
      if (instruction.rfind("Tensor-core ", 0) == 0) instruction = instruction.substr(12);
      ++m["remarks.tensor_core.instruction." + word(instruction)];
      if (!r.arg("Shape").empty()) ++m["remarks.tensor_core.shape." + word(shape_key(r.arg("Shape")))];
    } else if (r.name == "RemarkMemoryLoadInstructionSelected") {
      count_memory(r, "load", m);
    } else if (r.name == "RemarkMemoryStoreInstructionSelected") {
      count_memory(r, "store", m);
    } else if (r.name == "RemarkMemoryTmaLoadFailed") {
      ++m["remarks.load.tma_failed"];
    } else if (r.name == "RemarkMemoryTmaStoreFailed") {
      ++m["remarks.store.tma_failed"];
    } else if (const char* metric = lost_metric(lost_optimization(r))) {
      ++m[metric];
    } else {
      ++m["remarks.other." + word(r.name) + "." + word(r.kind)];
    }
  }
  return m;
}

}  // namespace tileperf
