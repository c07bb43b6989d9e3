#include "model/timeline.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <filesystem>
#include <optional>

#include "analysis/isa.h"
#include "support/text.h"

namespace tileperf {

namespace {

using Index = std::size_t;

bool starts_with(std::string_view s, std::string_view prefix) { return s.rfind(prefix, 0) == 0; }

bool is_warpgroup_mma(const std::string& op) {
  std::string_view base = base_opcode(op);
  return base.size() > 4 && base.substr(base.size() - 4) == "GMMA";
}

bool is_tcgen05_mma(const std::string& op) {
  return starts_with(op, "UTC") && base_opcode(op).find("MMA") != std::string_view::npos;
}

// "[UR4+0x30000]" -> "0x30000"; "[UR9]" -> "0x0": an mbarrier named by its
// offset from the shared-memory base register, the same in every warp.
std::string barrier_of(const std::string& operands) {
  auto open = operands.find('[');
  auto close = open == std::string::npos ? open : operands.find(']', open);
  if (close == std::string::npos) return "";
  std::string inside = operands.substr(open + 1, close - open - 1);
  auto plus = inside.rfind("+0x");
  return plus == std::string::npos ? "0x0" : inside.substr(plus + 1);
}

// The count of "WARPGROUP.DEPBAR.LE gsb0, 0x1" or "DEPBAR.LE SB0, 0x2".
int allowed_pending(const std::string& operands) {
  auto comma = operands.rfind(',');
  if (comma == std::string::npos) return 0;
  std::string n = trim(operands.substr(comma + 1));
  if (starts_with(n, "0x")) n = n.substr(2);
  int v = 0;
  for (char c : n) {
    int d = is_digit(c) ? c - '0' : (c >= 'a' && c <= 'f') ? c - 'a' + 10 : -1;
    if (d < 0) break;
    v = v * 16 + d;
  }
  return v;
}

std::string line_key(const SourceLine& l) {
  return std::filesystem::path(l.file).filename().string() + ":" + std::to_string(l.line);
}

struct Signals {
  std::map<std::string, std::vector<double>> by_barrier;  // times, in the order they happen
};

// What an outstanding result or signal came from.
struct Origin {
  std::uint64_t address = 0;
  int iteration = -1;
  bool memory = false;
  bool known = false;
};

// The scoreboards a wait can name (the control word's wait mask has six
// bits). A write or read field of 6 names none of them: nothing waits on it.
constexpr int kScoreboards = 6;

struct WarpState {
  double t = 0;
  double sb[kScoreboards] = {0, 0, 0, 0, 0, 0};
  Origin sb_origin[kScoreboards];
  Origin pending_origin, open_origin;
  std::map<std::string, std::deque<Origin>> own_origin;
  double pending_loads = -1;                      // completion of copies not yet tied to a barrier
  std::string open_barrier;                       // an expect-arrive that came before its copies
  std::map<std::string, std::deque<double>> own;  // own signals not yet waited for
  std::map<std::string, int> waits;               // waits outside loops so far, per barrier
  std::deque<double> mma_groups;
  double tensor_free = 0, group_end = -1;
  std::deque<double> sb0;  // committed copy groups (TMA stores, cp.async) on SB0
  double sb0_open = -1;
  Signals made;  // every signal this role made

  void shift(double delta, double from) {
    auto move = [&](double& x) {
      if (x >= from) x += delta;
    };
    move(t);
    for (double& s : sb) move(s);
    if (pending_loads >= 0) move(pending_loads);
    for (auto& [k, q] : own)
      for (double& x : q) move(x);
    for (double& x : mma_groups) move(x);
    move(tensor_free);
    if (group_end >= 0) move(group_end);
    for (double& x : sb0) move(x);
    if (sb0_open >= 0) move(sb0_open);
  }
};

class RoleReplay {
 public:
  RoleReplay(const TimelineInputs& in, const FunctionFlow& flow, int warp, const Signals& others,
             const std::map<std::string, double>& copy_bytes, BlockTimeline* keep)
      : in_(in), f_(flow), g_(flow.graph), warp_(warp), others_(others), copy_bytes_(copy_bytes), keep_(keep) {}

  double run() {
    region(-1, 0);
    return s_.t;
  }

  const Signals& signals() const { return s_.made; }

 private:
  bool runs(Index b) const { return (f_.warps[b] >> warp_ & 1u) && f_.runs[b] > 0; }

  // Walks a loop's own blocks (or the function's top level) and its child
  // loops in address order.
  void region(int loop, int depth) {
    std::vector<std::pair<std::uint64_t, long>> items;  // address, block (>= 0) or ~child loop
    for (Index b = 0; b < g_.blocks.size(); ++b) {
      if (g_.innermost_loop[b] == loop) items.emplace_back(g_.block_address(b), static_cast<long>(b));
    }
    for (Index c = 0; c < g_.loops.size(); ++c) {
      if (g_.loops[c].parent == loop) items.emplace_back(g_.block_address(g_.loops[c].header), ~static_cast<long>(c));
    }
    std::sort(items.begin(), items.end());
    for (const auto& [address, item] : items) {
      if (item >= 0) {
        if (runs(static_cast<Index>(item))) block(static_cast<Index>(item), loop >= 0);
      } else {
        run_loop(static_cast<Index>(~item), depth + 1);
      }
    }
  }

  void run_loop(Index c, int depth) {
    const LoopInfo& info = in_.loops->loops[f_.first_loop + c];
    if (info.trips <= 0 || !runs(g_.loops[c].header)) return;
    // Up to three iterations replayed; a mean below one still replays one.
    std::int64_t replays = std::clamp<std::int64_t>(static_cast<std::int64_t>(info.trips), 1, 3);
    // The first replay of each loop in the last round is kept (its own
    // body's instructions; a nested loop's go to that loop).
    bool record = keep_ && in_.keep_events && !keep_->loops.count(f_.first_loop + c);
    LoopTimeline* kept = record ? &keep_->loops[f_.first_loop + c] : nullptr;
    std::vector<IssueEvent>* outer_events = events_;
    int outer_iteration = iteration_;
    double start[4] = {s_.t, 0, 0, 0};
    for (std::int64_t i = 0; i < replays; ++i) {
      iteration_ = static_cast<int>(i);
      events_ = kept ? &kept->events : nullptr;
      region(static_cast<int>(c), depth);
      start[i + 1] = s_.t;
    }
    events_ = outer_events;
    iteration_ = outer_iteration;
    double per = replays >= 2 ? start[replays] - start[replays - 1] : start[1] - start[0];
    if (kept) {
      kept->loop = f_.first_loop + c;
      kept->cycles_per_iteration = per;
    }
    if (info.trips > static_cast<double>(replays)) {
      s_.shift(per * (info.trips - static_cast<double>(replays)), start[replays - 1]);
    }
  }

  void wait_until(double when, const std::string& what, IssueEvent& e, const Origin& from = {}) {
    if (when > s_.t) {
      e.waited += when - s_.t;
      if (events_) e.waits_for = e.waits_for.empty() ? what : e.waits_for + ", " + what;  // for the picture only
      if (from.known) {
        e.waited_on = from.address;
        e.waited_on_iteration = from.iteration;
        e.waited_for_memory = e.waited_for_memory || from.memory;
      }
      s_.t = when;
    }
  }

  Origin origin_of(const SassInstruction& insn, bool memory) const {
    return Origin{insn.address, in_loop_ ? iteration_ : -1, memory, true};
  }

  double copy_latency(const SassInstruction& insn, bool load) {
    double bytes = 4096;
    if (in_.lines) {
      if (auto l = in_.lines->find(g_.function->name, insn.address)) {
        if (auto it = copy_bytes_.find(line_key(*l)); it != copy_bytes_.end()) bytes = it->second;
      }
    }
    const Latencies& L = in_.latency;
    return load ? L.tma_load + L.tma_load_per_kib * bytes / 1024 : L.tma_store + L.tma_store_per_kib * bytes / 1024;
  }

  double result_latency(const SassInstruction& insn) const {
    const Latencies& L = in_.latency;
    const std::string& op = insn.opcode;
    std::string_view base = base_opcode(op);
    switch (op_class(op)) {
      case OpClass::kLoad:
        if (base == "LDL") return L.local;
        if (base == "LDS" || base == "LDSM" || base == "ATOMS" || base == "LDTM") return L.shared;
        if (base == "LDC" || base == "LDCU") return L.constant;
        return L.global_load;
      case OpClass::kMufu:
        return L.mufu;
      case OpClass::kShuffle:
        return L.shuffle;
      case OpClass::kConvert:
      case OpClass::kConvert64:
        return L.convert;
      case OpClass::kTensor:
        return L.register_mma;
      case OpClass::kUniform:
        if (base == "ULDC") return L.constant;
        return L.other;
      default:
        if (base == "S2R" || base == "S2UR" || base == "CS2R") return L.special_register;
        return L.other;
    }
  }

  double mma_cycles(const SassInstruction& insn) const {
    double macs = static_cast<double>(mma_shape_macs(insn.opcode));
    if (macs == 0) macs = static_cast<double>(in_.tensor_macs_hint);
    double rate = in_.latency.mma_macs_per_cycle;
    if (has_modifier(insn.opcode, "TF32")) rate /= 2;
    std::string_view base = base_opcode(insn.opcode);
    if (base[0] == 'I' || base[0] == 'Q' || base == "UTCIMMA" || base == "UTCQMMA") rate *= 2;
    return rate > 0 ? macs / rate : 0;
  }

  // A wait on an mbarrier: for the oldest stage this role signalled itself
  // and has not consumed; outside loops, else for the signal of another
  // role that matches this wait in order.
  double barrier_ready(const std::string& barrier, bool in_loop, Origin& from) {
    auto& own = s_.own[barrier];
    if (!own.empty()) {
      double at = own.front();
      own.pop_front();
      auto& origins = s_.own_origin[barrier];
      if (!origins.empty()) {
        from = origins.front();
        origins.pop_front();
      }
      return at;
    }
    if (in_loop) return 0;
    int k = s_.waits[barrier]++;
    auto it = others_.by_barrier.find(barrier);
    if (it == others_.by_barrier.end() || k >= static_cast<int>(it->second.size())) return 0;
    from = Origin{0, -1, true, false};  // another warp's copies
    return it->second[static_cast<std::size_t>(k)];
  }

  void signal(const std::string& barrier, double at, const Origin& from) {
    s_.own[barrier].push_back(at);
    s_.own_origin[barrier].push_back(from);
    s_.made.by_barrier[barrier].push_back(at);
  }

  void block(Index b, bool in_loop) {
    in_loop_ = in_loop;
    for (Index i = g_.blocks[b].begin; i < g_.blocks[b].end; ++i) instruction(i, in_loop);
  }

  void instruction(Index i, bool in_loop) {
    const SassInstruction& insn = g_.instruction(i);
    const std::string& op = insn.opcode;
    const Latencies& L = in_.latency;
    if (never_executes(insn)) return;
    IssueEvent e;
    e.instruction = i;
    e.address = insn.address;
    if (events_) e.opcode = op;
    e.iteration = iteration_;
    static const std::string kNames[kScoreboards] = {"SB0", "SB1", "SB2", "SB3", "SB4", "SB5"};
    for (int sb = 0; sb < kScoreboards; ++sb) {
      if (insn.control.waits_on(sb)) wait_until(s_.sb[sb], kNames[sb], e, s_.sb_origin[sb]);
    }
    std::string_view base = base_opcode(op);
    if (starts_with(op, "SYNCS.PHASECHK")) {
      std::string bar = barrier_of(insn.operands);
      Origin from;
      double ready = barrier_ready(bar, in_loop, from);
      wait_until(ready, "mbarrier " + bar, e, from);
    } else if (starts_with(op, "WARPGROUP.DEPBAR")) {
      close_mma_group();
      int allowed = allowed_pending(insn.operands);
      while (static_cast<int>(s_.mma_groups.size()) > allowed) {
        wait_until(s_.mma_groups.front(), "MMA group", e);
        s_.mma_groups.pop_front();
      }
    } else if (base == "DEPBAR" && insn.operands.find("SB0") != std::string::npos) {
      commit_sb0();
      int allowed = allowed_pending(insn.operands);
      while (static_cast<int>(s_.sb0.size()) > allowed) {
        wait_until(s_.sb0.front(), "copies on SB0", e);
        s_.sb0.pop_front();
      }
    } else if (base == "BAR" && !has_modifier(op, "ARV")) {
      wait_until(s_.t + L.barrier, "block barrier", e);
    }
    e.issue = s_.t;
    e.done = s_.t;
    if (int w = insn.control.write_scoreboard; w >= 0) {
      e.done = s_.t + result_latency(insn);
      if (w < kScoreboards && e.done >= s_.sb[w]) {
        std::string_view b = base_opcode(op);
        s_.sb_origin[w] = origin_of(insn, b == "LDG" || b == "LD" || b == "ATOM" || b == "ATOMG");
      }
      if (w < kScoreboards) s_.sb[w] = std::max(s_.sb[w], e.done);
    }
    if (int r = insn.control.read_scoreboard; r >= 0 && r < kScoreboards) {
      if (s_.t + L.operand_read >= s_.sb[r]) s_.sb_origin[r] = origin_of(insn, false);
      s_.sb[r] = std::max(s_.sb[r], s_.t + L.operand_read);
    }
    async(insn, e);
    s_.t += std::max(1, insn.control.stall);
    if (events_ && (iteration_ < 3)) events_->push_back(std::move(e));
  }

  void close_mma_group() {
    if (s_.group_end >= 0) {
      s_.mma_groups.push_back(s_.group_end + in_.latency.mma_result);
      s_.group_end = -1;
    }
  }

  void commit_sb0() {
    if (s_.sb0_open >= 0) {
      s_.sb0.push_back(s_.sb0_open);
      s_.sb0_open = -1;
    }
  }

  // The work an instruction hands to the copy engine or the tensor cores.
  void async(const SassInstruction& insn, IssueEvent& e) {
    const std::string& op = insn.opcode;
    std::string_view base = base_opcode(op);
    if (is_copy_load(op)) {
      double done = s_.t + copy_latency(insn, true);
      e.done = done;
      Origin from = origin_of(insn, true);
      if (!s_.open_barrier.empty()) {
        // The stage's expect-arrive came first: its signal is the copies' end.
        auto& own = s_.own[s_.open_barrier];
        auto& made = s_.made.by_barrier[s_.open_barrier];
        if (!own.empty() && done >= own.back()) {
          own.back() = done;
          s_.own_origin[s_.open_barrier].back() = from;
        }
        if (!made.empty()) made.back() = std::max(made.back(), done);
      } else if (done >= s_.pending_loads) {
        s_.pending_loads = done;
        s_.pending_origin = from;
      }
    } else if (starts_with(op, "SYNCS.ARRIVE")) {
      std::string bar = barrier_of(insn.operands);
      bool expects_bytes = starts_with(op, "SYNCS.ARRIVE.TRANS64") && !has_modifier(op, "A1T0");
      double at = s_.t;
      Origin from = origin_of(insn, false);
      if (expects_bytes && s_.pending_loads >= 0) {
        at = std::max(at, s_.pending_loads);  // the copies before it complete the stage
        from = s_.pending_origin;
        s_.pending_loads = -1;
        s_.open_barrier.clear();
      } else if (expects_bytes) {
        s_.open_barrier = bar;  // the copies after it complete the stage
      }
      signal(bar, at, from);
    } else if (is_copy_store(op)) {
      double done = s_.t + copy_latency(insn, false);
      e.done = done;
      s_.sb0_open = std::max(s_.sb0_open, done);
    } else if (base == "LDGSTS") {
      e.done = s_.t + in_.latency.global_load;
      s_.sb0_open = std::max(s_.sb0_open, e.done);
    } else if (base == "UTMACMDFLUSH" || base == "LDGDEPBAR") {
      commit_sb0();
    } else if (is_warpgroup_mma(op) || is_tcgen05_mma(op)) {
      double start = std::max(s_.t, s_.tensor_free);
      s_.tensor_free = start + mma_cycles(insn);
      s_.group_end = s_.tensor_free;
      e.done = s_.tensor_free;
      if (insn.operands.find("gsb0") != std::string::npos) close_mma_group();
    } else if (starts_with(op, "UTCBAR")) {
      // tcgen05: the MMAs so far signal an mbarrier when they complete.
      signal(barrier_of(insn.operands), std::max(s_.t, s_.tensor_free) + in_.latency.mma_result,
             origin_of(insn, false));
    }
  }

  const TimelineInputs& in_;
  const FunctionFlow& f_;
  const FunctionGraph& g_;
  int warp_;
  const Signals& others_;
  const std::map<std::string, double>& copy_bytes_;
  BlockTimeline* keep_;
  WarpState s_;
  int iteration_ = 0;
  bool in_loop_ = false;
  std::vector<IssueEvent>* events_ = nullptr;
};

// The warp roles of a function: warps that run the same blocks, each
// represented by its lowest warp.
std::vector<std::pair<int, WarpMask>> roles_of(const FunctionFlow& f) {
  std::map<std::vector<bool>, std::pair<int, WarpMask>> by_blocks;
  WarpMask any = 0;
  for (WarpMask m : f.warps) any |= m;
  for (int w = 0; w < kMaxWarps; ++w) {
    if (!(any >> w & 1u)) continue;
    std::vector<bool> runs(f.warps.size());
    for (Index b = 0; b < f.warps.size(); ++b) runs[b] = (f.warps[b] >> w & 1u) && f.runs[b] > 0;
    auto [it, fresh] = by_blocks.emplace(runs, std::make_pair(w, WarpMask(0)));
    it->second.second |= WarpMask(1) << w;
  }
  std::vector<std::pair<int, WarpMask>> out;
  for (const auto& [blocks, role] : by_blocks) out.push_back(role);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

std::map<std::string, double> copy_bytes_by_line(const SassListing& listing, const LineTable& lines,
                                                 const TileIrStats& tileir) {
  std::map<std::string, double> tile_bytes;
  for (const auto& m : tileir.memory) {
    if (m.line > 0)
      tile_bytes[std::filesystem::path(m.file).filename().string() + ":" + std::to_string(m.line)] += m.bytes;
  }
  std::map<std::string, double> copies;
  for (const auto& fn : listing.functions) {
    for (std::size_t i = 0; i < fn.padding_begin; ++i) {
      const auto& op = fn.instructions[i].opcode;
      if (!is_copy_load(op) && !is_copy_store(op)) continue;
      if (auto l = lines.find(fn.name, fn.instructions[i].address)) copies[line_key(*l)] += 1;
    }
  }
  std::map<std::string, double> out;
  for (const auto& [line, n] : copies) {
    if (auto it = tile_bytes.find(line); it != tile_bytes.end() && it->second > 0) out[line] = it->second / n;
  }
  return out;
}

BlockTimeline replay_block(const TimelineInputs& in) {
  BlockTimeline out;
  std::map<std::string, double> copy_bytes;
  if (in.lines && in.tileir) copy_bytes = copy_bytes_by_line(*in.listing, *in.lines, *in.tileir);
  for (const auto& flow : *in.flows) {
    auto roles = roles_of(flow);
    std::vector<Signals> made(roles.size());
    std::vector<double> cycles(roles.size(), 0);
    for (int round = 0; round < 3; ++round) {
      std::vector<Signals> next(roles.size());
      for (std::size_t r = 0; r < roles.size(); ++r) {
        Signals others;
        for (std::size_t o = 0; o < roles.size(); ++o) {
          if (o == r) continue;
          for (const auto& [bar, times] : made[o].by_barrier) {
            auto& all = others.by_barrier[bar];
            all.insert(all.end(), times.begin(), times.end());
          }
        }
        for (auto& [bar, times] : others.by_barrier) std::sort(times.begin(), times.end());
        RoleReplay replay(in, flow, roles[r].first, others, copy_bytes, round == 2 ? &out : nullptr);
        cycles[r] = replay.run();
        next[r] = replay.signals();
      }
      made = std::move(next);
    }
    for (std::size_t r = 0; r < roles.size(); ++r) {
      out.roles.push_back({roles[r].second, cycles[r]});
      out.cycles = std::max(out.cycles, cycles[r]);
    }
  }
  return out;
}

std::vector<std::pair<std::string, double*>> latency_fields(Latencies& l) {
  return {{"global_load", &l.global_load},
          {"shared", &l.shared},
          {"local", &l.local},
          {"constant", &l.constant},
          {"special_register", &l.special_register},
          {"mufu", &l.mufu},
          {"shuffle", &l.shuffle},
          {"convert", &l.convert},
          {"other", &l.other},
          {"operand_read", &l.operand_read},
          {"barrier", &l.barrier},
          {"tma_load", &l.tma_load},
          {"tma_load_per_kib", &l.tma_load_per_kib},
          {"tma_store", &l.tma_store},
          {"tma_store_per_kib", &l.tma_store_per_kib},
          {"mma_macs_per_cycle", &l.mma_macs_per_cycle},
          {"mma_result", &l.mma_result},
          {"register_mma", &l.register_mma}};
}

bool set_latency(Latencies& l, const std::string& name, double value) {
  for (auto& [field, at] : latency_fields(l)) {
    if (field == name) {
      *at = value;
      return true;
    }
  }
  return false;
}

}  // namespace tileperf
