// What the microbenchmarks of tools/gpu share: the error check, the median
// of repeated timings, allocation, and the JSON object each prints
// ("tileperf-calibration/1", whose measurements calibrate.sh merges).
// A program defines CALIBRATE_PROGRAM (its name in error messages) first.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#define CHECK(call)                                                                                             \
  do {                                                                                                          \
    cudaError_t err_ = (call);                                                                                  \
    if (err_ != cudaSuccess) {                                                                                  \
      std::fprintf(stderr, "%s: %s:%d: %s\n", CALIBRATE_PROGRAM, __FILE__, __LINE__, cudaGetErrorString(err_)); \
      std::exit(1);                                                                                             \
    }                                                                                                           \
  } while (0)

namespace calibrate {

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Milliseconds of one launch made by `launch`, between CUDA events: the
// median of `reps` after two warm-ups.
inline double time_ms(const std::function<void()>& launch, int reps = 15) {
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  std::vector<double> t;
  for (int i = 0; i < reps + 2; ++i) {
    CHECK(cudaEventRecord(a));
    launch();
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(b));
    CHECK(cudaEventSynchronize(b));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, a, b));
    if (i >= 2) t.push_back(ms);
  }
  CHECK(cudaEventDestroy(a));
  CHECK(cudaEventDestroy(b));
  return median(t);
}

template <typename T>
T* device_alloc(size_t count) {
  T* p = nullptr;
  CHECK(cudaMalloc(&p, count * sizeof(T)));
  return p;
}

// Waits until the mbarrier at the shared address `bar` has completed the
// phase of parity `phase`.
__device__ inline void mbarrier_wait(unsigned bar, unsigned phase) {
  unsigned done = 0;
  while (!done) {
    asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                 : "=r"(done)
                 : "r"(bar), "r"(phase)
                 : "memory");
  }
}

// The measurements of one program, printed as one JSON object; `device`
// holds the fields about the GPU after its name (each line ending in ",").
struct Out {
  std::vector<std::string> items;
  void add(const std::string& key, double value, const std::string& unit, const std::string& how) {
    char buf[1024];
    std::snprintf(buf, sizeof buf, "  \"%s\": {\"value\": %.6g, \"unit\": \"%s\", \"how\": \"%s\"}", key.c_str(), value,
                  unit.c_str(), how.c_str());
    items.push_back(buf);
    std::fprintf(stderr, "%-40s %12.6g %s\n", key.c_str(), value, unit.c_str());
  }
  void print(const cudaDeviceProp& p, const std::string& device = "") {
    std::printf("{\n  \"format\": \"tileperf-calibration/1\",\n");
    std::printf("  \"device\": \"%s\", \"multiprocessors\": %d, \"l2_bytes\": %d,\n", p.name, p.multiProcessorCount,
                p.l2CacheSize);
    std::printf("%s", device.c_str());
    std::printf("  \"measurements\": {\n");
    for (size_t i = 0; i < items.size(); ++i) std::printf("%s%s\n", items[i].c_str(), i + 1 < items.size() ? "," : "");
    std::printf("  }\n}\n");
  }
};

}  // namespace calibrate
