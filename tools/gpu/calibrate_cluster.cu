// Microbenchmarks for what the launch model does not yet have
// (tools/src/model/launch_model.cpp): thread-block clusters (num_ctas=2)
// and the depth of a load pipeline (what a load's latency hint changes).
//
//   nvcc -O3 -arch=sm_90a -cudart static -o calibrate_cluster tools/gpu/calibrate_cluster.cu
//   ./calibrate_cluster > cluster.json
//
// It also compiles for plain sm_90; PTX documents .multicast::cluster as
// optimised for sm_90a (what tileiras's cubins for sm_90 target, since they
// use warpgroup MMAs), so calibrate.sh builds it for sm_90a.
//
// Clusters: bulk copies (the TMA engine) of 16 KiB, four in flight per CTA,
// streamed from L2 (a 32 MiB span) or DRAM (a 4 GiB span) by every SM, three
// ways: no cluster; clusters of two CTAs, each CTA loading its own stream;
// clusters of two CTAs whose chunks are multicast, each CTA issuing half of
// them into the shared memory of both. The bytes that land in shared memory
// per second (received) against the bytes read from L2 say whether an SM's
// receive rate, not L2, limits a multicast GEMM. Also the cost of launching
// empty blocks in clusters of two.
//
// Load pipeline: a producer thread keeps `depth` bulk copies in flight into a
// ring of stages; a consumer warp waits for each stage, runs a chain of
// `work` dependent FFMAs on it, and frees it. Cycles per stage over depth
// and work, from L2 and from DRAM, one CTA per SM on every SM: the curve a
// stage count (a latency hint's effect on tileiras's pipeline) moves along.
//
// Every figure is the median of repeated runs. Prints one JSON object in the
// format of calibrate.cu ("tileperf-calibration/1"), whose measurements
// calibrate.sh merges.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#define CALIBRATE_PROGRAM "calibrate_cluster"
#include "calibrate_common.cuh"

namespace {

using calibrate::device_alloc;
using calibrate::median;
using calibrate::Out;
using calibrate::time_ms;

constexpr unsigned kChunk = 16384;  // bytes per bulk copy
constexpr int kStages = 4;          // copies in flight per CTA (cluster benchmark)
constexpr int kMaxDepth = 8;        // the deepest pipeline measured

// ---------------------------------------------------------------- mbarrier helpers

__device__ unsigned smem_addr(const void* p) { return static_cast<unsigned>(__cvta_generic_to_shared(p)); }

__device__ void bar_init(unsigned bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count));
}

__device__ void bar_expect(unsigned bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
}

__device__ void bar_arrive(unsigned bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
}

__device__ void bar_wait(unsigned bar, unsigned phase) { calibrate::mbarrier_wait(bar, phase); }

// One bulk copy of `bytes` from global into this CTA's shared memory.
__device__ void bulk_copy(unsigned dst, const char* src, unsigned bytes, unsigned bar) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(dst),
               "l"(src), "r"(bytes), "r"(bar)
               : "memory");
}

// One bulk copy multicast to the CTAs of `mask` in the cluster: the same
// shared-memory offset and mbarrier offset in each.
__device__ void bulk_copy_multicast(unsigned dst, const char* src, unsigned bytes, unsigned bar, unsigned short mask) {
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster"
      " [%0], [%1], %2, [%3], %4;" ::"r"(dst),
      "l"(src), "r"(bytes), "r"(bar), "h"(mask)
      : "memory");
}

__device__ unsigned cluster_rank() {
  unsigned r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}

__device__ unsigned cluster_size() {
  unsigned n;
  asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(n));
  return n;
}

// Every thread of every CTA of the cluster (a cluster of one: the CTA).
__device__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}

// ---------------------------------------------------------------- clusters

// `rounds` rounds of kStages chunks of kChunk bytes into each CTA's shared
// memory. multicast: chunk s of a round is issued by the CTA of rank
// s % cluster size and lands in every CTA of the cluster; otherwise each CTA
// issues all of its own. Each round: expect every chunk on its own
// mbarriers, a cluster barrier (no copy of the round lands before its
// expectation, none overwrites a stage still awaited), issue, wait.
__global__ void cluster_stream_kernel(const char* src, size_t span, int rounds, int multicast, unsigned* sink) {
  extern __shared__ __align__(128) char buf[];
  __shared__ __align__(8) unsigned long long bars[kStages];
  const unsigned rank = cluster_rank(), size = cluster_size();
  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) bar_init(smem_addr(&bars[s]), 1);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  cluster_sync();
  const size_t chunks = span / kChunk;
  const unsigned cluster_id = blockIdx.x / size;
  size_t next = size_t(multicast ? cluster_id : blockIdx.x) * 7919;
  const unsigned short all = static_cast<unsigned short>((1u << size) - 1);
  unsigned phase = 0;
  for (int r = 0; r < rounds; ++r) {
    if (threadIdx.x == 0) {
      for (int s = 0; s < kStages; ++s) bar_expect(smem_addr(&bars[s]), kChunk);
    }
    cluster_sync();
    if (threadIdx.x == 0) {
      for (int s = 0; s < kStages; ++s) {
        const char* from = src + ((next + s) % chunks) * kChunk;
        unsigned dst = smem_addr(buf + s * kChunk), bar = smem_addr(&bars[s]);
        if (!multicast) {
          bulk_copy(dst, from, kChunk, bar);
        } else if (unsigned(s) % size == rank) {
          bulk_copy_multicast(dst, from, kChunk, bar, all);
        }
      }
      for (int s = 0; s < kStages; ++s) bar_wait(smem_addr(&bars[s]), phase);
    }
    __syncwarp();
    next += kStages;
    phase ^= 1;
  }
  cluster_sync();  // no CTA leaves while a peer's copy may still target it
  if (threadIdx.x == 0) *sink = buf[kChunk - 1];
}

__global__ void empty_kernel() {}

// Launches `kernel` on `grid` blocks of `block` threads in clusters of `cluster`.
template <typename... Args>
void launch_clustered(void (*kernel)(Args...), int grid, int block, size_t smem, int cluster, Args... args) {
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(grid);
  cfg.blockDim = dim3(block);
  cfg.dynamicSmemBytes = smem;
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = cluster;
  attr[0].val.clusterDim.y = 1;
  attr[0].val.clusterDim.z = 1;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  CHECK(cudaLaunchKernelEx(&cfg, kernel, args...));
}

// ---------------------------------------------------------------- load pipeline

// Warp 0 lane 0 produces, warp 1 consumes: `stages` chunks of `bytes` through
// a ring of `depth` slots (full: the copy landed; empty: the consumer is done
// with it). The consumer runs `work` dependent FFMAs per stage, seeded from
// the stage's data. cycles[blockIdx.x]: the consumer's cycles over all stages.
__global__ void pipeline_kernel(const char* src, size_t span, unsigned bytes, int depth, int stages, int work,
                                long long* cycles, float* sink) {
  extern __shared__ __align__(128) char buf[];
  __shared__ __align__(8) unsigned long long full[kMaxDepth], empty[kMaxDepth];
  if (threadIdx.x == 0) {
    for (int d = 0; d < depth; ++d) {
      bar_init(smem_addr(&full[d]), 1);
      bar_init(smem_addr(&empty[d]), 1);
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  const size_t chunks = span / bytes;
  const size_t first = size_t(blockIdx.x) * 7919;
  const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (warp == 0) {
    if (lane != 0) return;
    for (int k = 0; k < stages; ++k) {
      int slot = k % depth;
      if (k >= depth) bar_wait(smem_addr(&empty[slot]), ((k / depth) - 1) & 1);
      unsigned bar = smem_addr(&full[slot]);
      bar_expect(bar, bytes);
      bulk_copy(smem_addr(buf + size_t(slot) * bytes), src + ((first + k) % chunks) * bytes, bytes, bar);
    }
    return;
  }
  if (warp != 1) return;
  float acc = 0.f;
  long long t0 = clock64();
  for (int k = 0; k < stages; ++k) {
    int slot = k % depth;
    bar_wait(smem_addr(&full[slot]), (k / depth) & 1);
    float x = reinterpret_cast<const float*>(buf + size_t(slot) * bytes)[lane];
    for (int i = 0; i < work; ++i) x = fmaf(x, 0.999f, 0.5f);
    acc += x;
    __syncwarp();
    if (lane == 0) bar_arrive(smem_addr(&empty[slot]));
  }
  long long t1 = clock64();
  if (lane == 0) cycles[blockIdx.x] = t1 - t0;
  if (acc == 12345.f) *sink = acc;
}

// How the CTAs of the cluster benchmark get their data.
struct ClusterCase {
  const char* key;
  int cluster;
  int multicast;
  const char* how;
};

void clusters(Out& out, const cudaDeviceProp& prop, const char* a, size_t big, unsigned* usink) {
  const int sms = prop.multiProcessorCount, rounds = 256;
  const size_t smem = size_t(kStages) * kChunk;
  CHECK(cudaFuncSetAttribute(cluster_stream_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
  const ClusterCase cases[] = {
      {"cluster1", 1, 0, "no cluster, each CTA its own chunks"},
      {"cluster2_unicast", 2, 0, "clusters of 2 CTAs, each CTA its own chunks"},
      {"cluster2_multicast", 2, 1, "clusters of 2 CTAs, each chunk multicast to both, each CTA issuing half"},
  };
  for (const auto& src : {std::make_pair("l2", size_t(32) << 20), std::make_pair("dram", big)}) {
    for (const ClusterCase& c : cases) {
      const int grid = sms;  // one CTA per SM (64 KiB of shared memory each)
      double ms = time_ms([&] {
        launch_clustered(cluster_stream_kernel, grid, 32, smem, c.cluster, a, src.second, rounds, c.multicast, usink);
      });
      double received = double(grid) * rounds * kStages * kChunk;
      double read = c.multicast ? received / c.cluster : received;
      std::string where = std::string(src.first == std::string("l2") ? "a 32 MiB span (L2)" : "a 4 GiB span (DRAM)");
      out.add(std::string(c.key) + "_" + src.first + "_recv_gbs", received / ms / 1e6, "GB/s",
              std::string("bytes landed in shared memory, all SMs: ") + c.how +
                  ", 4 x 16 KiB in flight per CTA, from " + where);
      out.add(std::string(c.key) + "_" + src.first + "_read_gbs", read / ms / 1e6, "GB/s",
              std::string("bytes read from memory, the same run: ") + c.how);
    }
  }
  // Block dispatch of clusters: 2^20 empty blocks in clusters of 2 against
  // none (calibrate.cu's block_dispatch_ns_per_sm is the second).
  const int many = 1 << 20;
  double one = time_ms([&] { launch_clustered(empty_kernel, 2, 256, 0, 2); }, 51);
  double ms2 = time_ms([&] { launch_clustered(empty_kernel, many, 256, 0, 2); });
  double ms1 = time_ms([&] { launch_clustered(empty_kernel, many, 256, 0, 1); });
  out.add("cluster2_launch_empty_us", one * 1e3, "us", "one cluster of 2 empty blocks between CUDA events");
  out.add("cluster2_block_dispatch_ns_per_sm", (ms2 - one) * 1e6 / (double(many) / sms), "ns",
          "empty blocks of 256 threads in clusters of 2: extra time per block an SM runs");
  out.add("cluster1_block_dispatch_ns_per_sm", (ms1 - one) * 1e6 / (double(many) / sms), "ns",
          "the same launched through cudaLaunchKernelEx with a cluster of 1");
}

void pipelines(Out& out, const cudaDeviceProp& prop, const char* a, size_t big, float* fsink) {
  const int sms = prop.multiProcessorCount, stages = 512;
  const unsigned bytes = kChunk;
  long long* cycles = device_alloc<long long>(sms);
  const size_t smem = size_t(kMaxDepth) * bytes;
  CHECK(cudaFuncSetAttribute(pipeline_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
  for (const auto& src : {std::make_pair("l2", size_t(32) << 20), std::make_pair("dram", big)}) {
    for (int work : {0, 256, 1024}) {
      for (int depth : {1, 2, 3, 4, 6, 8}) {
        std::vector<double> per;
        for (int r = 0; r < 5; ++r) {
          pipeline_kernel<<<sms, 64, size_t(depth) * bytes>>>(a, src.second, bytes, depth, stages, work, cycles, fsink);
          CHECK(cudaGetLastError());
          CHECK(cudaDeviceSynchronize());
          std::vector<long long> c(sms);
          CHECK(cudaMemcpy(c.data(), cycles, sms * sizeof(long long), cudaMemcpyDeviceToHost));
          std::vector<double> d(c.begin(), c.end());
          per.push_back(median(d) / stages);
        }
        out.add("pipeline_" + std::string(src.first) + "_w" + std::to_string(work) + "_d" + std::to_string(depth) +
                    "_cycles",
                median(per), "cycles",
                "cycles per 16 KiB stage, " + std::to_string(depth) + " bulk copies in flight, " +
                    std::to_string(work) + " dependent FFMAs per stage, one CTA per SM on every SM, from " +
                    (src.first == std::string("l2") ? "L2 (32 MiB span)" : "DRAM (4 GiB span)"));
      }
    }
  }
  CHECK(cudaFree(cycles));
}

}  // namespace

int main() {
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  Out out;
  unsigned* usink = device_alloc<unsigned>(1);
  float* fsink = device_alloc<float>(1);
  const size_t big = size_t(4) << 30;
  char* a = device_alloc<char>(big);
  CHECK(cudaMemset(a, 1, big));
  clusters(out, prop, a, big, usink);
  pipelines(out, prop, a, big, fsink);
  out.print(prop);
  return 0;
}
