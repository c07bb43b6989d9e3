#include "analysis/cost_model.h"

#include <algorithm>

#include "support/error.h"
#include "support/json_input.h"

namespace tileperf {

namespace {

constexpr const char* kArchTableJson =
#include "support/arch_table_json.inc"  // the text of tools/tileperf_dump/archs.json
    ;

constexpr double kIssueCycles = 0.25;  // four schedulers per SM, one warp instruction each per clock

ArchRates rates_row(const std::string& arch, const nlohmann::json& row, const std::string& filename) {
  std::string place = "issue_rates." + arch;
  if (!row.is_object()) throw InputError(filename, 0, place + " must be an object");
  auto rate = [&](const char* key) { return json_number(row, key, filename, place); };
  return ArchRates{.arch = arch,
                   .fp32 = rate("fp32"),
                   .fp16 = rate("fp16"),
                   .fp64 = rate("fp64"),
                   .mufu = rate("mufu"),
                   .integer = rate("integer"),
                   .bitcount = rate("bitcount"),
                   .convert = rate("convert"),
                   .convert64 = rate("convert64"),
                   .pack = rate("pack"),
                   .shuffle = rate("shuffle"),
                   .tensor_macs = rate("tensor_macs"),
                   .fp64_tensor_macs = rate("fp64_tensor_macs"),
                   .l1_bytes = rate("l1_bytes")};
}

const std::vector<ArchRates>& rates_table() {
  static const std::vector<ArchRates> rows = parse_issue_rates(kArchTableJson, "archs.json");
  return rows;
}

const ArchRates* rates_for(std::string_view arch) {
  int want = arch_number(arch);
  const ArchRates* best = &rates_table().front();
  for (const auto& row : rates_table()) {
    if (arch_number(row.arch) <= want) best = &row;
  }
  return best;
}

}  // namespace

std::vector<ArchRates> parse_issue_rates(const std::string& text, const std::string& filename) {
  auto table = parse_json(text, filename);
  auto rates = table.is_object() ? table.find("issue_rates") : table.end();
  if (!table.is_object() || rates == table.end() || !rates->is_object() || rates->empty()) {
    throw InputError(filename, 0, "issue_rates must be an object of one row per architecture");
  }
  std::vector<ArchRates> rows;
  for (const auto& [arch, row] : rates->items()) {
    if (arch_number(arch) == 0) throw InputError(filename, 0, "issue_rates." + arch + " is not an architecture");
    rows.push_back(rates_row(arch, row, filename));
  }
  std::sort(rows.begin(), rows.end(),
            [](const ArchRates& a, const ArchRates& b) { return arch_number(a.arch) < arch_number(b.arch); });
  return rows;
}

CostModel::CostModel(std::string_view arch, std::int64_t tensor_macs_hint)
    : rates_(rates_for(arch)), tensor_macs_hint_(tensor_macs_hint) {}

double CostModel::alu(double results_per_clock, double lanes) const {
  return std::max(kIssueCycles, lanes / results_per_clock);
}

double CostModel::tensor(std::string_view opcode) const {
  std::string_view base = base_opcode(opcode);
  double macs = static_cast<double>(mma_shape_macs(opcode));
  if (macs == 0) macs = static_cast<double>(tensor_macs_hint_);
  if (macs == 0) return kIssueCycles;
  // A warpgroup MMA is issued by each of the group's four warps for one
  // product: a quarter of it per warp.
  if (base.size() > 3 && base.substr(base.size() - 4) == "GMMA") macs /= 4;
  if (base == "DMMA") return std::max(kIssueCycles, macs / rates_->fp64_tensor_macs);
  double rate = rates_->tensor_macs;
  if (has_modifier(opcode, "TF32")) rate /= 2;
  // 8-bit integer and floating-point operands run at twice the 16-bit rate.
  if (base[0] == 'I' || base[0] == 'Q' || base == "UTCIMMA" || base == "UTCQMMA") rate *= 2;
  return std::max(kIssueCycles, macs / rate);
}

double CostModel::memory(std::string_view opcode) const {
  std::string_view base = base_opcode(opcode);
  // Constant-cache loads broadcast one value to the warp.
  if (base == "LDC" || base == "LDCU") return kIssueCycles;
  return std::max(kIssueCycles, kWarpLanes * access_bytes(opcode) / rates_->l1_bytes);
}

double CostModel::cycles(const SassInstruction& insn) const {
  const std::string& op = insn.opcode;
  const ArchRates& r = *rates_;
  switch (op_class(op)) {
    case OpClass::kFp32:
      return alu(r.fp32, kWarpLanes);
    case OpClass::kFp16:
      return alu(r.fp16, 2 * kWarpLanes);
    case OpClass::kFp32x2:
      return alu(r.fp32, 2 * kWarpLanes);
    case OpClass::kFp64:
      return alu(r.fp64, kWarpLanes);
    case OpClass::kMufu:
      return alu(r.mufu, kWarpLanes);
    case OpClass::kInteger:
      return alu(r.integer, kWarpLanes);
    case OpClass::kBitCount:
      return alu(r.bitcount, kWarpLanes);
    case OpClass::kConvert:
      return alu(r.convert, kWarpLanes);
    case OpClass::kConvert64:
      return alu(r.convert64, kWarpLanes);
    case OpClass::kPack:
      return alu(r.pack, kWarpLanes);
    case OpClass::kShuffle:
      return alu(r.shuffle, kWarpLanes);
    case OpClass::kTensor:
      return tensor(op);
    case OpClass::kLoad:
    case OpClass::kStore:
      return memory(op);
    case OpClass::kAsyncCopy:
    case OpClass::kBarrier:
    case OpClass::kUniform:
    case OpClass::kControl:
    case OpClass::kOther:
      return kIssueCycles;
  }
  return kIssueCycles;
}

}  // namespace tileperf
