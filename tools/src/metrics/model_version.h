// The version of the model that turns a cubin's instructions into loop
// costs and the launch estimate (analysis/ and model/: the loops and their
// trips, the warp roles, the cost and launch models). Each baseline records the version
// that measured it, beside the toolchain; a check whose counts are its
// baseline's but whose estimate moved under another version ends `model
// changed`, never `regressed` or `improved`. Raise it with every change
// there that moves a cost.*, loop.* or launch.* metric of the same cubin.
#pragma once

namespace tileperf {

inline constexpr const char* kModelVersion = "2";

}  // namespace tileperf
