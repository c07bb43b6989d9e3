#include "report/timeline_record.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "analysis/source_lines.h"
#include "analysis/warps.h"
#include "report/launch_picture.h"
#include "results/result.h"
#include "support/text.h"
#include "support/work_paths.h"

namespace tileperf {

nlohmann::json timeline_record(const Measurement& m) {
  nlohmann::json loops = nlohmann::json::array();
  auto add = [&](int index, const char* role) {
    if (index < 0) return;
    auto it = m.launch.timeline.loops.find(static_cast<std::size_t>(index));
    if (it == m.launch.timeline.loops.end()) return;
    const LoopInfo& l = m.loops.loops[static_cast<std::size_t>(index)];
    nlohmann::json j = timeline_json(it->second);
    j["role"] = role;
    j["loop"] = loop_name(l);
    j["warps"] = format_warps(l.warps);
    if (l.lines) j["lines"] = format_lines(*l.lines);
    if (std::string(role) == "main") j["overlap_pct"] = std::lround(100 * std::max(0.0, m.launch.overlap));
    loops.push_back(std::move(j));
  };
  add(m.loops.main, "main");
  add(producer_loop(m.loops), "producer");
  nlohmann::json record = {{"format", kTimelineFormat}, {"launch", describe_launch(m.launch)}, {"loops", loops}};
  if (auto occupancy = occupancy_json(m.launch); !occupancy.is_null()) record["sm_occupancy"] = std::move(occupancy);
  record["line_time"] = line_time_json(m.line_time);
  std::map<std::string, std::int64_t> attributed;
  for (const auto& l : m.line_time.lines) attributed[l.line] = 0;
  auto texts = line_texts(attributed, m.lines.paths);
  for (auto& l : record["line_time"]["lines"]) {
    if (auto it = texts.find(l["line"].get<std::string>()); it != texts.end()) l["text"] = it->second;
  }
  return record;
}

void write_timeline_record(const std::string& prefix, const Measurement& m) {
  write_file_atomic(prefixed_file(prefix, FileKind::kTimeline), timeline_record(m).dump(1) + "\n",
                    Durability::kRenamed);
}

nlohmann::json read_timeline_record(const std::string& result_file, std::string& problem) {
  auto j = record_beside(result_file, FileKind::kTimeline, kTimelineFormat, problem);
  if (!j.is_null() && !(j.contains("loops") && j["loops"].is_array())) {
    problem = prefixed_file(*prefix_of(result_file, FileKind::kResult), FileKind::kTimeline) + ": not a " +
              kTimelineFormat + " record";
    return nullptr;
  }
  return j;
}

}  // namespace tileperf
