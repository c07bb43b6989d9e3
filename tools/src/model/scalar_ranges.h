// The scalar operations on values that differ between the blocks of a
// group evaluated at once (skeleton.h): a block id over the group's ids is
// a range, and an operation on ranges gives the range of its results when
// that is exact to compute (integer arithmetic that does not wrap, min and
// max, division and shifts by a constant, comparisons, casts that keep the
// value), else a value that varies. Sound: every block's own value lies in
// the range. A decision on a range or a varying value splits the group.
#pragma once

#include "model/scalar_ops.h"

namespace tileperf {

// A block id over [lo, hi] of dimension `dim` (a number when lo == hi).
Val block_range(std::int64_t lo, std::int64_t hi, int dim);

// A value that varies, from the grid dimensions `dims`.
Val varies(std::uint8_t dims);

// The range (or number) of [lo, hi] in an integer type of `bits` bits as
// the evaluator keeps its values (sign-extended; i1 0 or 1), or a varying
// value when it does not fit.
Val fitted(Int128 lo, Int128 hi, int bits, std::uint8_t dims);

// The result of scalar operation `x` with at least one operand that
// differs (kRange, kVaries), the others numbers: a range, a number, or a
// varying value. The caller has checked that the operation is one
// scalar_result computes.
Val range_result(const ScalarOperation& x);

}  // namespace tileperf
