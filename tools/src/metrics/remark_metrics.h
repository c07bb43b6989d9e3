// The metrics of tileiras's remarks (readers/remarks.h): their names are
// made here, with the other metrics'.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "readers/remarks.h"

namespace tileperf {

// remarks.tensor_core.{passed,failed}, remarks.tensor_core.instruction.<I>,
// remarks.tensor_core.shape.<MxNxK>, remarks.{load,store}.{tma,global,tma_failed},
// remarks.{load,store}.tma_shape.<AxB>, and the lost optimizations tileiras
// 13.5 reports: remarks.index_narrowing_missed (RemarkTensorViewIndexTypeNarrowing),
// remarks.register_pressure (RegisterPressure, W0001), remarks.register_spill
// (RemarkPerfRegisterSpill), remarks.local_memory (RemarkPerfLocalMemoryUsage);
// any other remark as remarks.other.<Name>.<kind>.
std::map<std::string, std::int64_t> remark_metrics(const std::vector<Remark>& remarks);

}  // namespace tileperf
