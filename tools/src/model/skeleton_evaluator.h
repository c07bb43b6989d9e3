// The scalar evaluator of skeleton.h, run for a group of blocks at once: a
// box of block ids, each dimension from its first id to its last. A block
// id is then a range (scalar_ranges.h), and so is what is computed from
// it; a decision (an `if`'s condition, a `for`'s bounds, a `loop`'s exit)
// that is not the same for every block of the box stops the run with
// Split, and evaluate_skeleton halves the box. A box whose run ends holds
// blocks with the same counts, whatever its size.
//
// The counts of a run are a flat list (executions of each loop, then its
// iterations, then each memory operation's runs) kept with an undo log: a
// loop iterated one by one whose control turns out not computed is taken
// back to its counts before it began, and is run once for its declared or
// assumed trips instead. Each count is saved at most once per open loop,
// so the log grows with the counts a loop touches, never with all of them.
#pragma once

#include <cstdint>
#include <vector>

#include "model/control_dependences.h"
#include "model/scalar_ops.h"
#include "model/skeleton.h"

namespace tileperf {

// A group of blocks: per dimension, the first and last id.
struct BlockBox {
  std::int64_t lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
  std::int64_t blocks() const { return (hi[0] - lo[0] + 1) * (hi[1] - lo[1] + 1) * (hi[2] - lo[2] + 1); }
};

// A decision that differs between the blocks of the box: the operation and
// the grid dimensions it reads.
struct Split {
  int op = -1;
  std::uint8_t dims = 0;
};

struct StepLimit {};

// The counts of one run, with the undo log.
class RunCounts {
 public:
  RunCounts(std::size_t loops, std::size_t memory_ops);
  std::size_t loops() const { return loops_; }
  void clear();  // every count touched by the last run back to 0
  void add(std::size_t k, double v);
  double at(std::size_t k) const { return values_[k]; }
  std::size_t execution(int loop) const { return static_cast<std::size_t>(loop); }
  std::size_t iteration(int loop) const { return loops_ + static_cast<std::size_t>(loop); }
  std::size_t memory(int op) const { return 2 * loops_ + static_cast<std::size_t>(op); }
  // The counts of the run that are not 0, in order of their index.
  std::vector<std::pair<std::size_t, double>> nonzero() const;
  // The most counts saved at once since this was made (the log's size).
  std::size_t most_saved() const { return most_saved_; }

  void begin();     // a loop is iterated one by one from here
  void commit();    // ... and its counts hold
  void rollback();  // ... or go back to what they were when it began

 private:
  struct Saved {
    std::size_t k;
    double value;
    std::uint64_t stamp;
  };
  struct Mark {
    std::uint64_t id;
    std::size_t at;
  };
  std::size_t loops_;
  std::vector<double> values_;
  std::vector<std::uint64_t> stamp_;  // the loop (mark) each count was last saved for
  std::vector<std::size_t> touched_;  // counts the run made other than 0
  std::vector<Saved> log_;
  std::vector<Mark> marks_;
  std::uint64_t next_mark_ = 0;
  std::size_t most_saved_ = 0;
};

class Evaluator {
 public:
  Evaluator(const ControlDependences& a, const SkeletonInputs& in, std::vector<SkeletonLoop>& loops,
            const std::vector<const TripDeclaration*>& declared);

  std::int64_t steps() const { return steps_; }
  int innermost_running() const { return running_.empty() ? -1 : running_.back(); }

  // Runs the kernel for every block of `box` at once into `out` (cleared
  // first). Throws Split, StepLimit, and InputError for a literal or a
  // count it cannot evaluate.
  void run(const BlockBox& box, RunCounts& out);

 private:
  enum class Kind : std::uint8_t { kFor, kLoop, kIf, kYield, kContinue, kBreak, kReturn, kOther };
  enum class Leave { kNormal, kYield, kContinue, kBreak, kReturn };
  // What an iteration of the loop being run may have done on a decision
  // that was not computed: left the loop, or skipped to its next iteration.
  struct Doubt {
    bool may_break = false, may_continue = false;
    Val why = unknown(Why::kNone, -1);
  };
  struct UnknownControl {
    Val why;
  };
  struct View {
    std::vector<Val> shape;  // of the tensor; of the index space for a partition view
    std::vector<Val> tensor_shape;
  };

  Val& at(int value) { return env_[static_cast<std::size_t>(value)]; }
  const Val& operand(const IrOp& op, std::size_t k) const;
  IrType result_type(const IrOp& op, std::size_t k = 0) const;
  IrType operand_type(const IrOp& op, std::size_t k = 0) const;
  void set_results(const IrOp& op, const Val& v);
  void step();
  const Val* first_unknown(const IrOp& op) const;
  // A decision's value: a number, unknown, or Split when it differs between the blocks.
  const Val& decide(const Val& v, int index) const;

  Leave run_region(const IrRegion& r, double mult);
  Leave run_if(const IrOp& op, int index, double mult);
  void record(int l, double mult, double trips);
  void not_computed(int l, const Val& why);
  std::string describe(const Val& v) const;
  Leave once(const IrOp& op, double mult, double trips, const Val& vars);
  Leave uncounted(const IrOp& op, int l, double mult, const Val& why);
  void end_iterations(const Doubt& outer);
  Leave counted(const IrOp& op, int index, int l, double mult, double trips, const std::vector<Val>& carried,
                const Doubt& outer);
  Leave taken_back(const IrOp& op, int l, double mult, const Val& why, const Doubt& outer);
  Leave run_for(const IrOp& op, int index, double mult);
  Leave iterate_for(const IrOp& op, int index, int l, double mult, double trips, std::int64_t first, std::int64_t step);
  Leave run_loop(const IrOp& op, int index, double mult);

  void compute(const IrOp& op, int index);
  void compute_view(const IrOp& op, int index);
  void compute_scalar(const IrOp& op, int index, IrType type);
  void new_view(const IrOp& op, View v);

  const ControlDependences& a_;
  const TileIrProgram& p_;
  const SkeletonInputs& in_;
  std::vector<SkeletonLoop>& loops_;
  const std::vector<const TripDeclaration*>& declared_;
  std::vector<Kind> kinds_;  // of each operation
  std::vector<Val> env_;
  std::vector<View> views_;
  std::vector<Val> exit_;
  std::vector<int> running_;  // loops being iterated, innermost last
  Doubt doubt_;               // of the innermost loop's current iteration
  BlockBox box_;
  RunCounts* counts_ = nullptr;
  std::int64_t steps_ = 0;
};

}  // namespace tileperf
