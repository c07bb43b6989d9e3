// What the reports draw of a launch estimate (model/launch_model.h): the
// steady iteration of a loop's replay as text and as data, the SMs'
// occupancy over the launch, and the estimate in one line.
#pragma once

#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

#include "model/launch_model.h"
#include "model/timeline.h"

namespace tileperf {

// The steady iteration of a loop's replay (the middle one of three) as text,
// `width` columns for one iteration's cycles: a row per instruction,
//   '~' the cycles it waited before issuing, then its mark at the issue
//   cycle ('M' MMA, 'L' global load or copy in, 'S' store or copy out,
//   'B' a barrier or wait, '*' anything else), '=' until its result or copy
//   is complete ('>' past the iteration's end),
// and what each wait was for: "SB1 <- 0x0c40 (iteration 0)", an mbarrier,
// another warp's copies.
std::string format_gantt(const LoopTimeline& loop, int width);

// The event's mark in the picture (see format_gantt).
char event_mark(const IssueEvent& e);

// The steady iteration as data for a picture: cycles per iteration and one
// entry per instruction (address, opcode, mark, issue and done relative to
// the iteration's start, the cycles it waited, what for, and for which
// instruction of which iteration: "this", "previous", "before the loop").
nlohmann::json timeline_json(const LoopTimeline& loop);

// The SMs' occupancy over the launch as the reports draw it: at most
// `rows` rows of SMs (each the mean of its SMs) by the schedule's columns,
// each cell the percent of the resident slots in use; with the launch's
// time, the slowest block over the mean and the idle share. Null without a
// picture (the estimate was made without keep_events).
nlohmann::json occupancy_json(const LaunchEstimate& e, std::size_t rows = 32);

// One line: "est. 352 us, latency-bound: 1 block/SM (registers), 249 waves,
// DRAM 9% busy, L2 6%".
std::string describe_launch(const LaunchEstimate& e);

}  // namespace tileperf
