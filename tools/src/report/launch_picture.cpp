#include "report/launch_picture.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "analysis/isa.h"

namespace tileperf {

char event_mark(const IssueEvent& e) {
  const std::string& op = e.opcode;
  OpClass c = op_class(op);
  if (c == OpClass::kTensor) return 'M';
  if (op.starts_with("SYNCS.PHASECHK") || op.starts_with("WARPGROUP.DEPBAR") || base_opcode(op) == "BAR" ||
      base_opcode(op) == "DEPBAR") {
    return 'B';
  }
  if (c == OpClass::kLoad || is_copy_load(op) || base_opcode(op) == "LDGSTS") return 'L';
  if (c == OpClass::kStore || is_copy_store(op)) return 'S';
  return '*';
}

namespace {

std::string iteration_text(const IssueEvent& e, int steady);

std::string wait_text(const IssueEvent& e, int steady) {
  if (e.waited <= 0) return "";
  std::string out = fmt::format("waits {:.0f} for {}", e.waited, e.waits_for);
  if (e.waited_on != 0) {
    out += fmt::format(" <- {:#06x} ({})", e.waited_on, iteration_text(e, steady));
  } else if (e.waited_for_memory) {
    out += " <- another warp's copies";
  }
  return out;
}

}  // namespace

namespace {

// The replay shown: the middle of three iterations (both neighbours overlap
// it), its first cycle and its length.
struct Window {
  int steady = 0;
  double t0 = -1, span = 0;
};

Window steady_window(const LoopTimeline& loop) {
  Window w;
  for (const auto& e : loop.events) w.steady = std::max(w.steady, e.iteration);
  w.steady = std::min(w.steady, 1);
  double last = 0;
  for (const auto& e : loop.events) {
    if (e.iteration != w.steady) continue;
    if (w.t0 < 0) w.t0 = e.issue - e.waited;
    last = std::max(last, e.issue);
  }
  w.span = std::max(loop.cycles_per_iteration, last - w.t0 + 1);
  return w;
}

std::string iteration_text(const IssueEvent& e, int steady) {
  if (e.waited_on == 0) return "";
  return e.waited_on_iteration < 0             ? "before the loop"
         : e.waited_on_iteration == steady     ? "this iteration"
         : e.waited_on_iteration == steady - 1 ? "the previous iteration"
                                               : fmt::format("iteration {}", e.waited_on_iteration);
}

}  // namespace

nlohmann::json timeline_json(const LoopTimeline& loop) {
  Window w = steady_window(loop);
  nlohmann::json events = nlohmann::json::array();
  for (const auto& e : loop.events) {
    if (e.iteration != w.steady) continue;
    nlohmann::json j = {{"address", fmt::format("{:#06x}", e.address)},
                        {"opcode", e.opcode},
                        {"mark", std::string(1, event_mark(e))},
                        {"issue", std::round(e.issue - w.t0)},
                        {"done", std::round(e.done - w.t0)},
                        {"waited", std::round(e.waited)}};
    if (e.waited > 0) j["waits_for"] = e.waits_for;
    if (e.waited_on != 0) {
      j["waited_on"] = fmt::format("{:#06x}", e.waited_on);
      j["waited_on_iteration"] = iteration_text(e, w.steady);
    } else if (e.waited_for_memory && e.waited > 0) {
      j["waited_on_iteration"] = "another warp's copies";
    }
    events.push_back(j);
  }
  return {{"cycles_per_iteration", std::round(w.span)}, {"events", events}};
}

std::string format_gantt(const LoopTimeline& loop, int width) {
  Window w = steady_window(loop);
  int steady = w.steady;
  double t0 = w.t0;
  if (t0 < 0) return "  (no instruction of the loop ran)\n";
  double span = w.span;
  auto col = [&](double t) { return static_cast<int>(std::floor((t - t0) / span * width)); };
  std::string out = fmt::format("  {:.0f} cycles per iteration; one column = {:.1f} cycles\n", span, span / width);
  for (const auto& e : loop.events) {
    if (e.iteration != steady) continue;
    std::string bar(static_cast<std::size_t>(width), ' ');
    int at = std::clamp(col(e.issue), 0, width - 1);
    for (int c = std::max(0, col(e.issue - e.waited)); c < at; ++c) bar[static_cast<std::size_t>(c)] = '~';
    if (e.done > e.issue) {
      int end = col(e.done);
      for (int c = at + 1; c <= std::min(end, width - 1); ++c) bar[static_cast<std::size_t>(c)] = '=';
      if (end >= width) bar[static_cast<std::size_t>(width - 1)] = '>';
    }
    bar[static_cast<std::size_t>(at)] = event_mark(e);
    std::string op = e.opcode.size() > 26 ? e.opcode.substr(0, 25) + "+" : e.opcode;
    std::string note = wait_text(e, steady);
    out += fmt::format("  {:#06x} {:<26} |{}|{}\n", e.address, op, bar, note.empty() ? "" : " " + note);
  }
  return out;
}

nlohmann::json occupancy_json(const LaunchEstimate& e, std::size_t rows) {
  if (e.occupancy.empty() || rows == 0) return nullptr;
  std::size_t sms = e.occupancy.size(), per_row = (sms + rows - 1) / rows;
  nlohmann::json out = nlohmann::json::array();
  for (std::size_t first = 0; first < sms; first += per_row) {
    std::size_t last = std::min(sms, first + per_row);
    nlohmann::json row = nlohmann::json::array();
    for (std::size_t c = 0; c < e.occupancy[first].size(); ++c) {
      double sum = 0;
      for (std::size_t s = first; s < last; ++s) sum += e.occupancy[s][c];
      double pct =
          100 * sum / static_cast<double>(last - first) / static_cast<double>(std::max<std::int64_t>(e.resident, 1));
      row.push_back(std::lround(std::clamp(pct, 0.0, 100.0)));
    }
    out.push_back(std::move(row));
  }
  return {{"sms", sms},
          {"sms_per_row", per_row},
          {"resident", e.resident},
          {"waves_us", e.waves_us},
          {"imbalance", e.imbalance},
          {"idle_pct", std::lround(100 * e.idle)},
          {"classes", e.classes},
          {"rows", out}};
}

namespace {

std::string format_us(double us) {
  if (us >= 1000) return fmt::format("{:.2f} ms", us / 1000);
  return fmt::format("{:.1f} us", us);
}

std::string limit_text(const std::string& limit) {
  if (limit == "dram") return "DRAM-bound";
  if (limit == "l2") return "L2-bound";
  if (limit == "launch") return "launch-bound";
  if (limit == "latency") return "latency-bound";
  return limit + "-bound";
}

// Blocks that differ are worth a mention when the slowest takes this much
// longer than the mean, or the SMs stand idle this much of the launch.
constexpr double kUnevenImbalance = 1.1;
constexpr double kUnevenIdle = 0.1;

}  // namespace

std::string describe_launch(const LaunchEstimate& e) {
  auto pct = [&](double us) { return e.total_us > 0 ? static_cast<int>(std::lround(100 * us / e.total_us)) : 0; };
  std::string out =
      fmt::format("est. {}, {}: {} block(s)/SM ({}), {} wave(s), DRAM {}% busy, L2 {}%", format_us(e.total_us),
                  limit_text(e.limit), e.resident, e.occupancy_limit, e.waves, pct(e.dram_us), pct(e.l2_us));
  if (e.imbalance >= kUnevenImbalance) {
    out += fmt::format(", blocks uneven: the slowest {:.2f}x the mean", e.imbalance);
  }
  if (e.idle >= kUnevenIdle) out += fmt::format(", SMs {}% idle", static_cast<int>(std::lround(100 * e.idle)));
  return out;
}

}  // namespace tileperf
