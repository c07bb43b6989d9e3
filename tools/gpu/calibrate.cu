// Microbenchmarks behind the constants of the launch model
// (tools/src/model/launch_model.cpp) that no datasheet gives: achieved DRAM and L2
// bandwidth, the latencies of the operations a warp waits on, what a launch
// and a block cost, how fast the load/store unit takes warp instructions.
//
//   nvcc -O3 -arch=sm_90 -cudart static -o calibrate tools/gpu/calibrate.cu
//   ./calibrate > calibration.json
//
// Every figure is the median of repeated runs; latencies are timed with the
// SM's clock (clock64) inside one thread's dependent chain, throughputs with
// CUDA events around whole launches. Prints one JSON object.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <string>
#include <vector>

#define CALIBRATE_PROGRAM "calibrate"
#include "calibrate_common.cuh"

namespace {

using calibrate::device_alloc;
using calibrate::median;
using calibrate::Out;
using calibrate::time_ms;

// ---------------------------------------------------------------- bandwidth

__global__ void read_kernel(const int4* __restrict__ in, size_t n, int passes, int* sink) {
  int acc = 0;
  size_t stride = size_t(gridDim.x) * blockDim.x;
  for (int p = 0; p < passes; ++p) {
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += stride) {
      int4 v = __ldcg(in + i);
      acc ^= v.x ^ v.y ^ v.z ^ v.w;
    }
  }
  if (acc == 0x7fffffff) *sink = acc;  // keeps the loads
}

__global__ void write_kernel(int4* __restrict__ out, size_t n) {
  size_t stride = size_t(gridDim.x) * blockDim.x;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += stride) {
    out[i] = make_int4(int(i), 1, 2, 3);
  }
}

__global__ void copy_kernel(const int4* __restrict__ in, int4* __restrict__ out, size_t n) {
  size_t stride = size_t(gridDim.x) * blockDim.x;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += stride) out[i] = in[i];
}

// ---------------------------------------------------------------- latency

// One thread follows a chain of indices: every load depends on the last.
__global__ void chase_kernel(const unsigned* __restrict__ next, int steps, unsigned start, long long* cycles,
                             unsigned* sink) {
  unsigned j = start;
  for (int i = 0; i < 64; ++i) j = __ldcg(next + j);  // warm the translation caches
  long long t0 = clock64();
  for (int i = 0; i < steps; ++i) j = __ldcg(next + j);
  long long t1 = clock64();
  *cycles = t1 - t0;
  *sink = j;
}

__global__ void smem_chase_kernel(int steps, long long* cycles, unsigned* sink) {
  __shared__ unsigned next[4096];
  for (int i = threadIdx.x; i < 4096; i += blockDim.x) next[i] = (i * 1031 + 7) % 4096;
  __syncthreads();
  if (threadIdx.x != 0) return;
  unsigned j = 0;
  long long t0 = clock64();
  for (int i = 0; i < steps; ++i) j = next[j];
  long long t1 = clock64();
  *cycles = t1 - t0;
  *sink = j;
}

__global__ void shfl_chain_kernel(int steps, long long* cycles, unsigned* sink) {
  unsigned v = threadIdx.x;
  long long t0 = clock64();
  for (int i = 0; i < steps; ++i) v = __shfl_xor_sync(0xffffffffu, v, 1) + 1;
  long long t1 = clock64();
  if (threadIdx.x == 0) {
    *cycles = t1 - t0;
    *sink = v;
  }
}

__global__ void mufu_chain_kernel(int steps, long long* cycles, float* sink) {
  float v = 0.5f + threadIdx.x * 1e-3f;
  long long t0 = clock64();
  for (int i = 0; i < steps; ++i) {
    asm volatile("ex2.approx.ftz.f32 %0, %0;" : "+f"(v));
    v *= 0.25f;
  }
  long long t1 = clock64();
  if (threadIdx.x == 0) {
    *cycles = t1 - t0;
    *sink = v;
  }
}

__global__ void ffma_chain_kernel(int steps, long long* cycles, float* sink) {
  float v = threadIdx.x * 1e-3f, a = 0.999f, b = 1e-4f;
  long long t0 = clock64();
  for (int i = 0; i < steps; ++i) v = fmaf(v, a, b);
  long long t1 = clock64();
  if (threadIdx.x == 0) {
    *cycles = t1 - t0;
    *sink = v;
  }
}

__global__ void barrier_kernel(int steps, long long* cycles, unsigned* sink) {
  __shared__ unsigned x;
  if (threadIdx.x == 0) x = 0;
  __syncthreads();
  long long t0 = clock64();
  for (int i = 0; i < steps; ++i) {
    if (threadIdx.x == (i & 255)) x += i;
    __syncthreads();
  }
  long long t1 = clock64();
  if (threadIdx.x == 0) {
    *cycles = t1 - t0;
    *sink = x;
  }
}

// One bulk copy (the copy engine TMA loads use) from global into shared
// memory at a time, completing on an mbarrier, each from a new address of a
// buffer far larger than L2 (or, with `span` small, the same lines from L2).
__global__ void bulk_load_kernel(const char* src, size_t span, unsigned bytes, int steps, long long* cycles,
                                 unsigned* sink) {
  extern __shared__ __align__(128) char buf[];
  __shared__ __align__(8) unsigned long long bar;
  unsigned bar_addr = static_cast<unsigned>(__cvta_generic_to_shared(&bar));
  unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(buf));
  if (threadIdx.x != 0) return;
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar_addr));
  asm volatile("fence.mbarrier_init.release.cluster;");
  unsigned phase = 0;
  long long total = 0;
  for (int i = -4; i < steps; ++i) {
    size_t offset = (size_t(i + 4) * 1048583ull * 128ull) % (span - bytes);
    offset &= ~size_t(127);
    long long t0 = clock64();
    asm volatile(
        "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n"
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%2], [%3], %1, [%0];\n" ::"r"(bar_addr),
        "r"(bytes), "r"(dst), "l"(src + offset)
        : "memory");
    calibrate::mbarrier_wait(bar_addr, phase);
    long long t1 = clock64();
    phase ^= 1;
    if (i >= 0) total += t1 - t0;
  }
  *cycles = total;
  *sink = buf[bytes - 1];
}

// One bulk store from shared memory to global at a time, waited for until
// written (cp.async.bulk.wait_group 0).
__global__ void bulk_store_kernel(char* dst_base, size_t span, unsigned bytes, int steps, long long* cycles) {
  extern __shared__ __align__(128) char buf[];
  for (unsigned i = threadIdx.x; i < bytes; i += blockDim.x) buf[i] = char(i);
  asm volatile("fence.proxy.async.shared::cta;");
  __syncthreads();
  if (threadIdx.x != 0) return;
  unsigned src = static_cast<unsigned>(__cvta_generic_to_shared(buf));
  long long total = 0;
  for (int i = -4; i < steps; ++i) {
    size_t offset = (size_t(i + 4) * 1048583ull * 128ull) % (span - bytes);
    offset &= ~size_t(127);
    long long t0 = clock64();
    asm volatile(
        "cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;\n"
        "cp.async.bulk.commit_group;\n"
        "cp.async.bulk.wait_group 0;\n" ::"l"(dst_base + offset),
        "r"(src), "r"(bytes)
        : "memory");
    long long t1 = clock64();
    if (i >= 0) total += t1 - t0;
  }
  *cycles = total;
}

// ---------------------------------------------------------------- throughput

__global__ void empty_kernel() {}

// Eight independent chains of one instruction per thread, many warps per
// SM: results per clock per SM of that instruction (against the launch's
// time and the SM clock).
#define ALU_KERNEL(NAME, TYPE, INIT, ASM, CONSTRAINT)                                                         \
  __global__ void NAME(int steps, TYPE* sink) {                                                               \
    TYPE v[8];                                                                                                \
    for (int k = 0; k < 8; ++k) v[k] = INIT;                                                                  \
    TYPE c = (TYPE)(threadIdx.x | 1);                                                                         \
    for (int i = 0; i < steps; ++i) {                                                                         \
      _Pragma("unroll") for (int k = 0; k < 8; ++k) asm volatile(ASM : "+" CONSTRAINT(v[k]) : CONSTRAINT(c)); \
    }                                                                                                         \
    TYPE acc = v[0];                                                                                          \
    for (int k = 1; k < 8; ++k) acc += v[k];                                                                  \
    if (acc == (TYPE)123456) *sink = acc;                                                                     \
  }

// Integer adds and multiply-adds take another chain's value, so that the
// compiler cannot fold repeated steps into one multiply.
#define CROSS_KERNEL(NAME, ASM)                                                                           \
  __global__ void NAME(int steps, int* sink) {                                                            \
    int v[8];                                                                                             \
    for (int k = 0; k < 8; ++k) v[k] = threadIdx.x + k;                                                   \
    for (int i = 0; i < steps; ++i) {                                                                     \
      _Pragma("unroll") for (int k = 0; k < 8; ++k) asm volatile(ASM : "+r"(v[k]) : "r"(v[(k + 3) & 7])); \
    }                                                                                                     \
    int acc = v[0];                                                                                       \
    for (int k = 1; k < 8; ++k) acc ^= v[k];                                                              \
    if (acc == 123456) *sink = acc;                                                                       \
  }

CROSS_KERNEL(iadd_kernel, "add.s32 %0, %0, %1;")
ALU_KERNEL(lop3_kernel, int, threadIdx.x, "lop3.b32 %0, %0, %1, %0, 0x96;", "r")
CROSS_KERNEL(imad_kernel, "mad.lo.s32 %0, %0, %1, %0;")
ALU_KERNEL(shf_kernel, int, threadIdx.x, "shf.l.wrap.b32 %0, %0, %0, %1;", "r")
ALU_KERNEL(ffma_kernel, float, threadIdx.x * 1e-3f, "fma.rn.f32 %0, %0, %1, %1;", "f")
ALU_KERNEL(mufu_kernel, float, threadIdx.x * 1e-3f, "ex2.approx.ftz.f32 %0, %0;", "f")
ALU_KERNEL(dfma_kernel, double, threadIdx.x * 1e-3, "fma.rn.f64 %0, %0, %1, %1;", "d")

// Float to int and back: a conversion pair per step.
__global__ void convert_kernel(int steps, float* sink) {
  float v[8];
  for (int k = 0; k < 8; ++k) v[k] = threadIdx.x + k;
  for (int i = 0; i < steps; ++i) {
#pragma unroll
    for (int k = 0; k < 8; ++k) {
      int t;
      asm volatile("cvt.rzi.s32.f32 %0, %1;" : "=r"(t) : "f"(v[k]));
      asm volatile("cvt.rn.f32.s32 %0, %1;" : "=f"(v[k]) : "r"(t));
    }
  }
  float acc = 0;
  for (int k = 0; k < 8; ++k) acc += v[k];
  if (acc == 123456.f) *sink = acc;
}

// L2 bandwidth with more loads in flight: four independent 16-byte loads
// per thread and step over an L2-resident span.
__global__ void l2_read4_kernel(const int4* __restrict__ in, size_t n, int passes, int* sink) {
  int acc = 0;
  size_t stride = size_t(gridDim.x) * blockDim.x;
  size_t quarter = n / 4;
  for (int p = 0; p < passes; ++p) {
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < quarter; i += stride) {
      int4 a = __ldcg(in + i), b = __ldcg(in + i + quarter), c = __ldcg(in + i + 2 * quarter),
           d = __ldcg(in + i + 3 * quarter);
      acc ^= a.x ^ b.y ^ c.z ^ d.w;
    }
  }
  if (acc == 0x7fffffff) *sink = acc;
}

// Bulk copies (the TMA engine) into shared memory, `stages` of 16 KiB in
// flight per block, from a span of `span` bytes: the bandwidth copies get
// from L2 (a small span) or DRAM (a large one).
__global__ void bulk_stream_kernel(const char* src, size_t span, int rounds, int stages, unsigned* sink) {
  extern __shared__ __align__(128) char buf[];
  __shared__ __align__(8) unsigned long long bars[8];
  const unsigned bytes = 16384;
  if (threadIdx.x != 0) return;
  for (int s = 0; s < stages; ++s) {
    unsigned bar = static_cast<unsigned>(__cvta_generic_to_shared(&bars[s]));
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar));
  }
  asm volatile("fence.mbarrier_init.release.cluster;");
  size_t chunks = span / bytes;
  size_t next = size_t(blockIdx.x) * 7919;
  unsigned phase = 0;
  for (int r = 0; r < rounds; ++r) {
    for (int s = 0; s < stages; ++s) {
      unsigned bar = static_cast<unsigned>(__cvta_generic_to_shared(&bars[s]));
      unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(buf + s * bytes));
      const char* from = src + (next++ % chunks) * bytes;
      asm volatile(
          "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n"
          "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%2], [%3], %1, [%0];\n" ::"r"(bar),
          "r"(bytes), "r"(dst), "l"(from)
          : "memory");
    }
    for (int s = 0; s < stages; ++s) {
      unsigned bar = static_cast<unsigned>(__cvta_generic_to_shared(&bars[s]));
      calibrate::mbarrier_wait(bar, phase);
    }
    phase ^= 1;
  }
  *sink = buf[bytes - 1];
}

// Warp-wide 2-byte loads from an L1-resident array: how many warp load
// instructions the SM retires per clock.
__global__ void lsu_kernel(const unsigned short* __restrict__ in, int steps, unsigned* sink, long long* cycles) {
  unsigned acc = 0;
  unsigned i = threadIdx.x;
  __syncthreads();
  long long t0 = clock64();
#pragma unroll 8
  for (int s = 0; s < steps; ++s) {
    acc += __ldca(in + ((i + s * 32) & 4095));
  }
  __syncthreads();
  long long t1 = clock64();
  if (acc == 0xffffffffu) *sink = acc;
  if (threadIdx.x == 0 && blockIdx.x == 0) *cycles = t1 - t0;
}

__global__ void sm_clock_kernel(long long* cycles, unsigned long long* ns, int spin) {
  unsigned long long g0, g1;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g0));
  long long t0 = clock64();
  while (clock64() - t0 < spin) {
  }
  long long t1 = clock64();
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g1));
  *cycles = t1 - t0;
  *ns = g1 - g0;
}

// "l2_bulk_gbs", "l2_bulk2_gbs", "l2_bulk4_gbs".
std::string fmt_key(const std::string& stem, int per_sm) {
  return stem + (per_sm == 1 ? "" : std::to_string(per_sm)) + "_gbs";
}

template <typename T>
T read_back(const T* p) {
  T v;
  CHECK(cudaMemcpy(&v, p, sizeof(T), cudaMemcpyDeviceToHost));
  return v;
}

}  // namespace

int main() {
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  const int sms = prop.multiProcessorCount;
  Out out;
  long long* cycles = device_alloc<long long>(1);
  unsigned* usink = device_alloc<unsigned>(1);
  float* fsink = device_alloc<float>(1);
  int* isink = device_alloc<int>(1);

  // The SM clock while a kernel runs: clock64 against the global timer.
  {
    unsigned long long* ns = device_alloc<unsigned long long>(1);
    std::vector<double> ghz;
    for (int i = 0; i < 5; ++i) {
      sm_clock_kernel<<<1, 1>>>(cycles, ns, 200000000);
      CHECK(cudaDeviceSynchronize());
      ghz.push_back(double(read_back(cycles)) / double(read_back(ns)));
    }
    out.add("sm_clock_ghz", median(ghz), "GHz", "clock64 cycles over %globaltimer ns, one thread spinning 2e8 cycles");
    CHECK(cudaFree(ns));
  }

  // DRAM: 4 GiB buffers, far larger than L2.
  const size_t big = size_t(4) << 30;
  int4* a = device_alloc<int4>(big / 16);
  int4* b = device_alloc<int4>(big / 16);
  CHECK(cudaMemset(a, 1, big));
  CHECK(cudaMemset(b, 2, big));
  const size_t n16 = big / 16;
  const int blocks = sms * 8, threads = 512;
  double ms = time_ms([&] { read_kernel<<<blocks, threads>>>(a, n16, 1, isink); });
  out.add("dram_read_gbs", big / ms / 1e6, "GB/s", "4 GiB read once, 16-byte loads, 8 blocks of 512 per SM");
  ms = time_ms([&] { write_kernel<<<blocks, threads>>>(b, n16); });
  out.add("dram_write_gbs", big / ms / 1e6, "GB/s", "4 GiB written once, 16-byte stores");
  ms = time_ms([&] { copy_kernel<<<blocks, threads>>>(a, b, n16); });
  out.add("dram_copy_gbs", 2 * big / ms / 1e6, "GB/s", "4 GiB copied, bytes read plus written");

  // L2: 16 MiB read 64 times in one launch.
  const size_t l2n = (size_t(16) << 20) / 16;
  ms = time_ms([&] { read_kernel<<<blocks, threads>>>(a, l2n, 64, isink); });
  out.add("l2_read_gbs", 64.0 * l2n * 16 / ms / 1e6, "GB/s", "16 MiB read 64 times in one launch (L2-resident)");

  // Latency chains: a random cycle over `count` 128-byte-spaced slots.
  auto chase = [&](size_t bytes, const char* key, const char* how) {
    size_t slots = bytes / 128;
    std::vector<unsigned> order(slots);
    for (size_t i = 0; i < slots; ++i) order[i] = unsigned(i);
    std::mt19937 rng(12345);
    std::shuffle(order.begin() + 1, order.end(), rng);
    std::vector<unsigned> next(bytes / 4, 0);
    for (size_t i = 0; i < slots; ++i) next[order[i] * 32] = order[(i + 1) % slots] * 32;
    unsigned* d = device_alloc<unsigned>(next.size());
    CHECK(cudaMemcpy(d, next.data(), bytes, cudaMemcpyHostToDevice));
    std::vector<double> per;
    const int steps = 4096;
    for (int r = 0; r < 5; ++r) {
      chase_kernel<<<1, 1>>>(d, steps, order[(r * 7919) % slots] * 32, cycles, usink);
      CHECK(cudaDeviceSynchronize());
      per.push_back(double(read_back(cycles)) / steps);
    }
    out.add(key, median(per), "cycles", how);
    CHECK(cudaFree(d));
  };
  chase(size_t(2) << 30, "dram_latency_cycles",
        "one thread, dependent 4-byte loads over 2 GiB at random 128-byte slots");
  chase(size_t(8) << 20, "l2_latency_cycles", "the same over 8 MiB (L2-resident, ld.cg skips L1)");

  auto chain = [&](auto kernel, int threads_, const char* key, const char* how, auto sink) {
    std::vector<double> per;
    const int steps = 1 << 14;
    for (int r = 0; r < 5; ++r) {
      kernel<<<1, threads_>>>(steps, cycles, sink);
      CHECK(cudaDeviceSynchronize());
      per.push_back(double(read_back(cycles)) / steps);
    }
    out.add(key, median(per), "cycles", how);
  };
  chain(smem_chase_kernel, 32, "shared_latency_cycles", "dependent shared-memory loads, one thread", usink);
  chain(shfl_chain_kernel, 32, "shfl_latency_cycles", "dependent SHFL.BFLY plus an IADD, one warp", usink);
  chain(mufu_chain_kernel, 32, "mufu_latency_cycles", "dependent MUFU.EX2 plus an FMUL, one warp", fsink);
  chain(ffma_chain_kernel, 32, "ffma_latency_cycles", "dependent FFMA, one warp", fsink);
  chain(barrier_kernel, 256, "bar_sync_cycles", "BAR.SYNC of 8 warps after a shared store, per barrier", usink);

  // Bulk copies (the TMA engine), one at a time, single thread.
  auto bulk = [&](bool load, size_t span, unsigned bytes, const char* key, const char* how) {
    std::vector<double> per;
    const int steps = 256;
    for (int r = 0; r < 5; ++r) {
      if (load) {
        bulk_load_kernel<<<1, 32, bytes>>>(reinterpret_cast<const char*>(a), span, bytes, steps, cycles, usink);
      } else {
        bulk_store_kernel<<<1, 128, bytes>>>(reinterpret_cast<char*>(b), span, bytes, steps, cycles);
      }
      CHECK(cudaDeviceSynchronize());
      per.push_back(double(read_back(cycles)) / steps);
    }
    out.add(key, median(per), "cycles", how);
  };
  bulk(true, big, 4096, "tma_load_latency_4k_cycles",
       "cp.async.bulk 4 KiB global->shared from DRAM, issue to mbarrier completion");
  bulk(true, big, 16384, "tma_load_latency_16k_cycles", "the same, 16 KiB");
  bulk(true, size_t(4) << 20, 4096, "tma_load_latency_l2_4k_cycles", "4 KiB from a 4 MiB span (L2 hits)");
  bulk(false, big, 4096, "tma_store_latency_4k_cycles", "cp.async.bulk 4 KiB shared->global, issue to wait_group 0");
  bulk(false, big, 16384, "tma_store_latency_16k_cycles", "the same, 16 KiB");

  // Results per clock per SM of single instructions (many warps, eight
  // independent chains each).
  {
    const double clock_ghz = std::stod(out.items.front().substr(out.items.front().find("\"value\": ") + 9));
    const int steps = 4096, block = 1024, grid = sms * 2;
    auto rate = [&](auto kernel, auto sink, const char* key, const char* how, double per_step = 8) {
      double t = time_ms([&] { kernel<<<grid, block>>>(steps, sink); });
      double ops = double(grid) * block * steps * per_step;
      out.add(key, ops / (t * 1e-3) / (sms * clock_ghz * 1e9), "1/clock/SM", how);
    };
    int* isink2 = isink;
    double* dsink = device_alloc<double>(1);
    rate(iadd_kernel, isink2, "rate_iadd", "add.s32 (IADD3): results per clock per SM, 64 warps per SM");
    rate(lop3_kernel, isink2, "rate_lop3", "lop3.b32 (LOP3.LUT)");
    rate(imad_kernel, isink2, "rate_imad", "mad.lo.s32 (IMAD)");
    rate(shf_kernel, isink2, "rate_shf", "shf.l.wrap.b32 (SHF)");
    rate(ffma_kernel, fsink, "rate_ffma", "fma.rn.f32 (FFMA)");
    rate(mufu_kernel, fsink, "rate_mufu", "ex2.approx.ftz.f32 (MUFU.EX2)");
    rate(dfma_kernel, dsink, "rate_dfma", "fma.rn.f64 (DFMA)");
    rate(convert_kernel, fsink, "rate_convert", "cvt.rzi.s32.f32 and cvt.rn.f32.s32 (F2I, I2F): conversions per clock",
         16);
    CHECK(cudaFree(dsink));
  }

  // L2 and DRAM bandwidth with more in flight: four loads per thread, and
  // bulk copies four stages deep per block.
  ms = time_ms([&] { l2_read4_kernel<<<blocks, threads>>>(a, l2n, 64, isink); });
  out.add("l2_read4_gbs", 64.0 * l2n * 16 / ms / 1e6, "GB/s",
          "16 MiB read 64 times, four independent 16-byte loads per thread and step");
  {
    const int rounds = 256, stages = 4;
    const size_t smem = size_t(stages) * 16384;
    CHECK(cudaFuncSetAttribute(bulk_stream_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
    for (int per_sm : {1, 2, 4}) {
      double t = time_ms([&] {
        bulk_stream_kernel<<<sms * per_sm, 32, smem>>>(reinterpret_cast<const char*>(a), size_t(32) << 20, rounds,
                                                       stages, usink);
      });
      out.add(fmt_key("l2_bulk", per_sm), double(sms) * per_sm * rounds * stages * 16384 / t / 1e6, "GB/s",
              "bulk copies 4 x 16 KiB in flight per block, " + std::to_string(per_sm) +
                  " block(s) per SM, from a 32 MiB span (L2)");
      t = time_ms([&] {
        bulk_stream_kernel<<<sms * per_sm, 32, smem>>>(reinterpret_cast<const char*>(a), big, rounds, stages, usink);
      });
      out.add(fmt_key("dram_bulk", per_sm), double(sms) * per_sm * rounds * stages * 16384 / t / 1e6, "GB/s",
              "the same from a 4 GiB span (DRAM), " + std::to_string(per_sm) + " block(s) per SM");
    }
  }

  // Launch costs, timed as the edit timing times kernels (events around one launch).
  ms = time_ms([&] { empty_kernel<<<1, 32>>>(); }, 51);
  out.add("launch_empty_us", ms * 1e3, "us", "an empty kernel of one block between CUDA events");
  const int many = 1 << 20;
  double ms_many = time_ms([&] { empty_kernel<<<many, 256>>>(); }, 15);
  out.add("block_dispatch_ns_per_sm", (ms_many - ms) * 1e6 / (double(many) / sms), "ns",
          "empty blocks of 256 threads: extra time per block an SM runs (2^20 blocks less one)");
  double ms_many128 = time_ms([&] { empty_kernel<<<many, 128>>>(); }, 15);
  out.add("block_dispatch_ns_per_sm_128", (ms_many128 - ms) * 1e6 / (double(many) / sms), "ns",
          "the same with 128 threads per block");

  // Load/store unit: warp-wide 2-byte loads per clock per SM.
  {
    unsigned short* small = device_alloc<unsigned short>(4096);
    CHECK(cudaMemset(small, 3, 8192));
    std::vector<double> per;
    const int steps = 1 << 14, warps = 32;
    for (int r = 0; r < 5; ++r) {
      lsu_kernel<<<1, warps * 32>>>(small, steps, usink, cycles);
      CHECK(cudaDeviceSynchronize());
      per.push_back(double(steps) * warps / double(read_back(cycles)));
    }
    out.add("lsu_warp_loads_per_clock", median(per), "1/cycle",
            "32 warps of one SM issuing 2-byte L1-hit loads: warp instructions retired per clock");
    CHECK(cudaFree(small));
  }

  char device[512];
  std::snprintf(device, sizeof device,
                "  \"shared_per_sm\": %zu, \"shared_per_block_optin\": %zu, \"registers_per_sm\": %d,\n"
                "  \"max_threads_per_sm\": %d, \"max_blocks_per_sm\": %d, \"reserved_shared_per_block\": %zu,\n",
                prop.sharedMemPerMultiprocessor, prop.sharedMemPerBlockOptin, prop.regsPerMultiprocessor,
                prop.maxThreadsPerMultiProcessor, prop.maxBlocksPerMultiProcessor, prop.reservedSharedMemPerBlock);
  out.print(prop, device);
  return 0;
}
