// pto-wsp runtime core: the scheduling rules the Ascend host runtime (builder.cpp and
// executor.cpp, real threads) and the native core's virtual-time scheduler
// (runtime/core/scheduler.h) share, the C++ statement of docs/simulator.md's "Execution model": which queue a ready task waits
// in, its stream key and lane, the pipeline_depth gate it passes, and the order
// timing interleaved(n) issues a batch in.
#pragma once

#include <stdint.h>

#include <vector>

namespace pto {
namespace wsp {
namespace rules {

// Pool indices: vector, cube, any (the pool codes 0, 1, 255).
inline int pool_index(uint8_t pool) { return pool == 0 ? 0 : (pool == 1 ? 1 : 2); }

// Python's a % n for n > 0 (stream_by keys may be negative).
inline int64_t floor_mod(int64_t a, int64_t n) {
  const int64_t m = a % n;
  return m < 0 ? m + n : m;
}

// A task's stream key with `nstreams` streams: its stream_by key, else its issue number.
inline int64_t stream_key(bool keyed, int64_t stream, uint64_t issued, int64_t nstreams) {
  if (!keyed) return static_cast<int64_t>(issued % static_cast<uint64_t>(nstreams));
  return floor_mod(stream, nstreams);
}

// The lane of a stream key: one per key and placed worker (-1: not placed, a pool's queue).
inline int64_t lane_of(int64_t key, int64_t nstreams, int64_t placed) {
  return key + nstreams * (placed + 1);
}

// Whether a worker of pool index `worker_pool` takes tasks of pool index `task_pool`: a
// vector worker takes vector and any tasks, a cube worker cube and any, an any worker all.
inline bool serves(int worker_pool, int task_pool) {
  return task_pool == 2 || worker_pool == 2 || worker_pool == task_pool;
}

// The workers that take tasks of pool index `pool` (`worker_pools`: each worker's pool index);
// a pool nobody serves goes to every worker.
inline std::vector<int> pool_candidates(const std::vector<int>& worker_pools, int pool) {
  std::vector<int> cand;
  for (size_t w = 0; w < worker_pools.size(); ++w)
    if (serves(worker_pools[w], pool)) cand.push_back(static_cast<int>(w));
  if (cand.empty())
    for (size_t w = 0; w < worker_pools.size(); ++w) cand.push_back(static_cast<int>(w));
  return cand;
}

// The worker a task targeting `target` (>= 0) waits for: target mod its pool's workers
// (`candidates`: every worker when the pool has none).
inline int target_worker(int64_t target, const std::vector<int>& candidates) {
  return candidates[static_cast<size_t>(target % static_cast<int64_t>(candidates.size()))];
}

// pipeline_depth scopes (orchestration.h's DepthScope): one gate for all, one per stream, one
// per pool.
enum DepthScope : int { kDepthGlobal = 0, kDepthPerStream = 1, kDepthPerPool = 2 };

// Which gate of its scope kind a task passes: per stream its lane when there are streams
// (`lanes`), else its stream; per pool its pool index; globally 0.
inline int64_t depth_key(int scope, bool lanes, int64_t lane, int64_t stream, int pool) {
  if (scope == kDepthPerStream) return lanes ? lane : stream;
  if (scope == kDepthPerPool) return pool;
  return 0;
}

// timing interleaved(n): the batch `ids` (release order, keys[i] in [0, nkeys) computed before
// any of them is issued) reordered round-robin across keys, ascending, each key keeping its
// release order. `grouped` and `count` are scratch.
template <typename Id>
void interleave(std::vector<Id>& ids, const std::vector<uint32_t>& keys, size_t nkeys,
                std::vector<Id>& grouped, std::vector<size_t>& count) {
  const size_t n = ids.size();
  if (n < 2) return;
  count.assign(2 * nkeys + 1, 0);
  size_t most = 0;
  for (size_t i = 0; i < n; ++i) {
    const size_t c = ++count[keys[i] + 1];
    if (c > most) most = c;
  }
  for (size_t j = 0; j < nkeys; ++j) count[j + 1] += count[j];
  size_t* fill = &count[nkeys + 1];
  for (size_t j = 0; j < nkeys; ++j) fill[j] = count[j];
  grouped.resize(n);
  for (size_t i = 0; i < n; ++i) grouped[fill[keys[i]]++] = ids[i];
  size_t k = 0;
  for (size_t r = 0; r < most; ++r)
    for (size_t j = 0; j < nkeys; ++j)
      if (count[j] + r < count[j + 1]) ids[k++] = grouped[count[j] + r];
}

}  // namespace rules
}  // namespace wsp
}  // namespace pto
