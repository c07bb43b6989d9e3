// The timeline record, <config>.<arch>.timeline.json beside a test's result:
// what the reports draw of its launch estimate (the estimate in one line,
// the replay of the main loop's and the producer loop's steady iteration,
// the SMs' occupancy, the estimate by source line with each line's text).
// The check writes it (write_timeline_record) and the reports read it
// (read_timeline_record), both in the format kTimelineFormat.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "metrics/measure.h"

namespace tileperf {

inline constexpr const char* kTimelineFormat = "tileperf-timeline/1";

// The record of a measurement (made with the schedule's events kept).
nlohmann::json timeline_record(const Measurement& m);

// Writes the record of `m` to <prefix>.timeline.json, atomically.
void write_timeline_record(const std::string& prefix, const Measurement& m);

// The record beside the result file <prefix>.result.json; null when there
// is none, and when one is there that is not a record of kTimelineFormat
// with its loops (then `problem` says why).
nlohmann::json read_timeline_record(const std::string& result_file, std::string& problem);

}  // namespace tileperf
