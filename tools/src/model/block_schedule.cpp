#include "model/block_schedule.h"

#include <algorithm>
#include <cmath>
#include <queue>
#include <set>
#include <stdexcept>

namespace tileperf {

namespace {

// Events closer than this share one instant (a relative tolerance).
constexpr double kSameTime = 1e-9;
// Launches of more blocks than this are not simulated for the picture alone.
constexpr std::int64_t kMaxPictureBlocks = std::int64_t(1) << 20;

double wave(double per_sm, const BlockWork& w) { return std::max(per_sm * w.work, w.latency); }

// Every block alike: full waves, then the last one with its own blocks per SM.
BlockSchedule closed_form(int sms, std::int64_t resident, std::int64_t blocks, const BlockWork& w) {
  BlockSchedule s;
  double slots = static_cast<double>(sms) * static_cast<double>(resident);
  double n = static_cast<double>(blocks);
  s.waves = static_cast<std::int64_t>(std::ceil(n / slots));
  double full = std::max(0.0, static_cast<double>(s.waves - 1));
  double last = n - full * slots;
  double last_per_sm = std::ceil(last / static_cast<double>(sms));
  s.cycles = full * wave(static_cast<double>(resident), w) + wave(last_per_sm, w);
  // The last wave: r SMs run q + 1 blocks, the others q.
  double q = std::floor(last / static_cast<double>(sms)), r = last - q * static_cast<double>(sms);
  double busy = full * static_cast<double>(sms) * wave(static_cast<double>(resident), w) + r * wave(q + 1, w) +
                (static_cast<double>(sms) - r) * (q > 0 ? wave(q, w) : 0.0);
  s.idle = s.cycles > 0 ? std::clamp(1 - busy / (static_cast<double>(sms) * s.cycles), 0.0, 1.0) : 0;
  double total = full * slots * wave(static_cast<double>(resident), w) + r * (q + 1) * wave(q + 1, w) +
                 (static_cast<double>(sms) - r) * q * wave(q, w);
  s.mean = n > 0 ? total / n : 0;
  s.slowest = full > 0 ? wave(static_cast<double>(resident), w) : wave(last_per_sm, w);
  if (full > 0) s.slowest = std::max(s.slowest, wave(last_per_sm, w));
  return s;
}

struct Resident {
  double remaining = 0;  // work cycles left
  double latency_end = 0;
  double start = 0;
};

struct Sm {
  std::vector<Resident> blocks;
  double updated = 0;    // the time its blocks' work was last advanced to
  double busy = 0;       // time with at least one block
  std::int64_t ran = 0;  // blocks started
  std::uint64_t version = 0;
};

class Simulation {
 public:
  Simulation(int sms, std::int64_t resident, std::int64_t blocks, const std::function<int(std::int64_t)>& class_of,
             const std::vector<BlockWork>& classes, int buckets, double horizon)
      : sms_(static_cast<std::size_t>(sms)),
        resident_(resident),
        blocks_(blocks),
        class_of_(class_of),
        classes_(classes),
        buckets_(buckets),
        horizon_(horizon) {
    if (buckets_ > 0) occupancy_.assign(sms_.size(), std::vector<double>(static_cast<std::size_t>(buckets_), 0));
    by_free_.resize(static_cast<std::size_t>(resident + 1));
    for (std::size_t s = 0; s < sms_.size(); ++s) by_free_[static_cast<std::size_t>(resident)].insert(s);
  }

  BlockSchedule run() {
    dispatch(0);
    while (!events_.empty()) {
      double t = events_.top().first;
      std::vector<std::size_t> due;
      while (!events_.empty() && events_.top().first <= t + kSameTime * std::max(1.0, std::fabs(t))) {
        auto [when, key] = events_.top();
        events_.pop();
        std::size_t s = static_cast<std::size_t>(key.first);
        if (key.second != sms_[s].version) continue;  // superseded
        due.push_back(s);
      }
      for (std::size_t s : due) complete(s, t);
      dispatch(t);
      for (std::size_t s : due) schedule(s);
    }
    BlockSchedule out;
    out.simulated = true;
    out.cycles = end_;
    double busy = 0;
    std::int64_t most = 0;
    for (const auto& sm : sms_) {
      busy += sm.busy;
      most = std::max(most, sm.ran);
    }
    out.waves = (most + resident_ - 1) / resident_;
    out.idle = end_ > 0 ? std::clamp(1 - busy / (static_cast<double>(sms_.size()) * end_), 0.0, 1.0) : 0;
    out.mean = blocks_ > 0 ? total_time_ / static_cast<double>(blocks_) : 0;
    out.slowest = slowest_;
    if (buckets_ > 0 && end_ > 0) {
      double width = end_ / buckets_;
      for (auto& row : occupancy_) {
        std::vector<float> r;
        for (double v : row) r.push_back(static_cast<float>(v / width));
        out.occupancy.push_back(std::move(r));
      }
    }
    return out;
  }

 private:
  // Advances the work of SM `s`'s blocks to time `t`, recording its occupancy.
  void advance(std::size_t s, double t) {
    Sm& sm = sms_[s];
    double dt = t - sm.updated;
    if (dt <= 0) return;
    std::size_t working = 0;
    for (const auto& b : sm.blocks) working += b.remaining > 0;
    for (auto& b : sm.blocks) {
      if (b.remaining > 0) b.remaining = std::max(0.0, b.remaining - dt / static_cast<double>(working));
    }
    if (!sm.blocks.empty()) sm.busy += dt;
    if (buckets_ > 0 && !sm.blocks.empty()) spread(s, sm.updated, t, static_cast<double>(sm.blocks.size()));
    sm.updated = t;
  }

  // Adds `n` resident blocks over [a, b) to SM s's buckets of the horizon.
  void spread(std::size_t s, double a, double b, double n) {
    double width = horizon_ / buckets_;
    if (width <= 0) return;
    auto& row = occupancy_[s];
    for (int k = std::max(0, static_cast<int>(a / width)); k < buckets_; ++k) {
      double lo = k * width, hi = lo + width;
      if (lo >= b) break;
      double overlap = std::min(hi, b) - std::max(lo, a);
      if (overlap > 0) row[static_cast<std::size_t>(k)] += n * overlap;
    }
  }

  void complete(std::size_t s, double t) {
    advance(s, t);
    Sm& sm = sms_[s];
    double eps = kSameTime * std::max(1.0, std::fabs(t));
    std::size_t before = sm.blocks.size();
    for (auto it = sm.blocks.begin(); it != sm.blocks.end();) {
      if (it->remaining <= eps && it->latency_end <= t + eps) {
        double took = t - it->start;
        total_time_ += took;
        slowest_ = std::max(slowest_, took);
        end_ = std::max(end_, t);
        it = sm.blocks.erase(it);
      } else {
        if (it->remaining <= eps) it->remaining = 0;
        ++it;
      }
    }
    move_free(s, before);
  }

  // Keeps by_free_ in step with SM s's free slots (it had `before` blocks).
  void move_free(std::size_t s, std::size_t before) {
    std::size_t now = sms_[s].blocks.size();
    if (now == before) return;
    by_free_[static_cast<std::size_t>(resident_) - before].erase(s);
    by_free_[static_cast<std::size_t>(resident_) - now].insert(s);
  }

  // Starts pending blocks on free slots, the SM with the most free first.
  void dispatch(double t) {
    std::set<std::size_t> touched;
    while (next_ < blocks_) {
      std::size_t s = sms_.size();
      for (std::size_t f = by_free_.size(); f-- > 1;) {
        if (!by_free_[f].empty()) {
          s = *by_free_[f].begin();
          break;
        }
      }
      if (s == sms_.size()) break;
      advance(s, t);
      const BlockWork& w = classes_[static_cast<std::size_t>(class_of_(next_))];
      std::size_t before = sms_[s].blocks.size();
      sms_[s].blocks.push_back({w.work, t + w.latency, t});
      ++sms_[s].ran;
      move_free(s, before);
      touched.insert(s);
      ++next_;
    }
    for (std::size_t s : touched) schedule(s);
  }

  // The next time something ends on SM s.
  void schedule(std::size_t s) {
    Sm& sm = sms_[s];
    ++sm.version;
    if (sm.blocks.empty()) return;
    std::size_t working = 0;
    double least = INFINITY, latency = INFINITY;
    for (const auto& b : sm.blocks) {
      if (b.remaining > 0) {
        ++working;
        least = std::min(least, b.remaining);
      } else {
        latency = std::min(latency, b.latency_end);
      }
    }
    double next =
        std::min(working ? sm.updated + least * static_cast<double>(working) : INFINITY, std::max(latency, sm.updated));
    events_.push({next, {static_cast<std::int64_t>(s), sm.version}});
  }

  using Event = std::pair<double, std::pair<std::int64_t, std::uint64_t>>;
  std::vector<Sm> sms_;
  std::int64_t resident_;
  std::int64_t blocks_;
  const std::function<int(std::int64_t)>& class_of_;
  const std::vector<BlockWork>& classes_;
  int buckets_;
  double horizon_;
  std::vector<std::set<std::size_t>> by_free_;  // SMs by free slots
  std::priority_queue<Event, std::vector<Event>, std::greater<Event>> events_;
  std::vector<std::vector<double>> occupancy_;
  std::int64_t next_ = 0;
  double end_ = 0, total_time_ = 0, slowest_ = 0;
};

// Past kMaxSimulatedBlocks: the blocks before the last kTailWaves waves in
// closed form per class, the last waves simulated after them.
BlockSchedule large_launch(int sms, std::int64_t resident, std::int64_t blocks,
                           const std::function<int(std::int64_t)>& class_of, const std::vector<BlockWork>& classes) {
  std::int64_t counted = 0;
  for (const auto& c : classes) counted += std::max<std::int64_t>(c.blocks, 0);
  if (counted != blocks) throw std::invalid_argument("schedule_blocks: the classes' blocks do not sum to the launch's");
  double slots = static_cast<double>(sms) * static_cast<double>(resident);
  double waves_of_tail = static_cast<double>(kTailWaves) * slots;
  std::int64_t tail =
      std::min({blocks, kMaxSimulatedBlocks,
                waves_of_tail < static_cast<double>(blocks) ? static_cast<std::int64_t>(waves_of_tail) : blocks});
  std::int64_t first = blocks - tail;
  std::vector<double> body(classes.size());
  for (std::size_t k = 0; k < classes.size(); ++k) body[k] = static_cast<double>(classes[k].blocks);
  std::function<int(std::int64_t)> tail_class = [&](std::int64_t b) { return class_of(first + b); };
  for (std::int64_t b = 0; b < tail; ++b) body[static_cast<std::size_t>(tail_class(b))] -= 1;
  BlockSchedule end = Simulation(sms, resident, tail, tail_class, classes, 0, 0).run();
  BlockSchedule s;
  s.simulated = true;
  double body_cycles = 0, body_time = 0;
  s.slowest = end.slowest;
  for (std::size_t k = 0; k < classes.size(); ++k) {
    double w = wave(static_cast<double>(resident), classes[k]);
    body_cycles += body[k] * w / slots;
    body_time += body[k] * w;
    if (body[k] > 0) s.slowest = std::max(s.slowest, w);
  }
  s.cycles = body_cycles + end.cycles;
  s.waves = static_cast<std::int64_t>(std::ceil(static_cast<double>(first) / slots)) + end.waves;
  s.idle = s.cycles > 0 ? end.idle * end.cycles / s.cycles : 0;
  s.mean = (body_time + end.mean * static_cast<double>(tail)) / static_cast<double>(blocks);
  return s;
}

}  // namespace

BlockSchedule schedule_blocks(int sms, std::int64_t resident, std::int64_t blocks,
                              const std::function<int(std::int64_t)>& class_of, const std::vector<BlockWork>& classes,
                              int buckets) {
  sms = std::max(sms, 1);
  blocks = std::max<std::int64_t>(blocks, 1);
  // More resident slots than blocks change nothing: every block starts at once.
  resident = std::clamp<std::int64_t>(resident, 1, blocks);
  if (classes.size() == 1) {
    BlockSchedule s = closed_form(sms, resident, blocks, classes[0]);
    if (buckets > 0 && blocks <= kMaxPictureBlocks) {
      s.occupancy = Simulation(sms, resident, blocks, class_of, classes, buckets, s.cycles).run().occupancy;
    }
    return s;
  }
  if (blocks > kMaxSimulatedBlocks) return large_launch(sms, resident, blocks, class_of, classes);
  // A first run gives the horizon the picture's buckets divide.
  BlockSchedule s = Simulation(sms, resident, blocks, class_of, classes, 0, 0).run();
  if (buckets > 0)
    s.occupancy = Simulation(sms, resident, blocks, class_of, classes, buckets, s.cycles).run().occupancy;
  return s;
}

}  // namespace tileperf
