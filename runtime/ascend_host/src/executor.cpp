// The executor of the Ascend host runtime: worker threads take ready tasks, pass their
// pipeline_depth gate, run the kernel and complete them (successors made ready, wakes).
#include "builder_impl.h"

namespace pto {
namespace wsp {

namespace host {
thread_local int64_t block_idx = 0;
thread_local int64_t block_num = 1;
thread_local bool on_worker = false;  // the calling thread is a worker

// Kept ready-queue cells (ReadyQueue::Kept): up to 16 rings of at most 65,536 cells (512 KB),
// for this library only (internal linkage, as the worker pool: another library's ReadyQueue
// may differ).
namespace {
std::mutex g_cells_m;
std::vector<ReadyQueue::Kept> g_cells;
}  // namespace

bool ReadyQueue::take_kept(uint64_t capacity, Kept& out) {
  std::lock_guard<std::mutex> g(g_cells_m);
  for (size_t i = g_cells.size(); i-- > 0;)
    if (g_cells[i].capacity == capacity) {
      out = g_cells[i];
      g_cells.erase(g_cells.begin() + static_cast<std::ptrdiff_t>(i));
      return true;
    }
  return false;
}

bool ReadyQueue::give_kept(const Kept& k) {
  if (k.capacity > (uint64_t(1) << 16)) return false;
  std::lock_guard<std::mutex> g(g_cells_m);
  if (g_cells.size() >= 16) return false;
  g_cells.push_back(k);
  return true;
}
}  // namespace host

// A task starts (a worker took it and passed its pipeline_depth gate): the next task of its
// lane may start too.
void Builder::Impl::started(int w, uint32_t id) {
  if (record)
    starts[static_cast<size_t>(w)].emplace_back(
        id, start_count.fetch_add(1, std::memory_order_acq_rel));
  if (!lanes) return;
  const uint32_t next = slot(id).lane_next.exchange(kLaneStarted, std::memory_order_acq_rel);
  if (next != kLaneOpen && slot(next).pending.fetch_sub(1, std::memory_order_acq_rel) == 1)
    push_ready(next);
}

void Builder::Impl::wake(const ReadyQueue& q) {
  // Waking a sleeping worker is a system call (and a context switch): wake when a queue
  // becomes non-empty and when work piles up (every 64 tasks). The orchestrator, which pushes
  // again soon, wakes at most every 50 us while it builds; a worker's push (a successor made
  // ready by a completion) always wakes, or the next task would wait for a sleeper's timeout.
  const int64_t queued = q.approx_size();
  bool wake = (queued & 63) == 0 || (queued == 1 && host::on_worker);
  if (!wake && queued == 1) {
    const int64_t now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                            std::chrono::steady_clock::now().time_since_epoch())
                            .count();
    if (now - last_wake.load(std::memory_order_relaxed) > 50000) {
      last_wake.store(now, std::memory_order_relaxed);
      wake = true;
    }
  }
  if (wake) {
    std::lock_guard<std::mutex> g(wait_m);
    wait_cv.notify_all();
  }
}

void Builder::Impl::complete(uint32_t first) {
  std::vector<uint32_t> stack;
  uint32_t n = first;
  while (true) {
    Slot& s = slot(n);
    if (solo) {
      slot_done[n & mask].store(n, std::memory_order_relaxed);
    } else {
      s.lock.lock();
      slot_done[n & mask].store(n, std::memory_order_release);
      s.lock.unlock();
    }
    for (uint32_t succ : s.fanout) {
      Slot& t = slot(succ);
      if (drop_pending(t) == 0) {
        if (t.kind == kBarrier)
          stack.push_back(succ);
        else
          push_ready(succ);
      }
    }
    s.fanout.clear();
    const bool task = s.kind == kTask;
    slot_free[n & mask].store(n, std::memory_order_release);
    const uint64_t add = (uint64_t(1) << 32) | (task ? 1u : 0u);
    uint64_t done;
    if (solo) {
      const uint64_t c = completed.load(std::memory_order_relaxed) + add;
      completed.store(c, std::memory_order_relaxed);
      done = c >> 32;
    } else {
      done = (completed.fetch_add(add, std::memory_order_acq_rel) >> 32) + 1;
    }
    if (orch_waiting.load(std::memory_order_seq_cst) > 0 ||
        (build_done.load(std::memory_order_acquire) &&
         done == total_nodes.load(std::memory_order_acquire))) {
      std::lock_guard<std::mutex> g(done_m);
      done_cv.notify_all();
      if (done == total_nodes.load(std::memory_order_acquire)) {
        std::lock_guard<std::mutex> g2(wait_m);
        wait_cv.notify_all();
      }
    }
    if (stack.empty()) break;
    n = stack.back();
    stack.pop_back();
  }
}

std::atomic<int64_t>* Builder::Impl::gate(const Slot& s) {
  if (cfg.pipeline_depth <= 0) return nullptr;
  const int64_t key =
      rules::depth_key(static_cast<int>(cfg.depth_scope), lanes, s.lane, s.stream,
                       rules::pool_index(static_cast<uint8_t>(s.pod.pool)));
  switch (cfg.depth_scope) {
    case DepthScope::PerStream:  // 256 gates: streams mod 256
      return &gates[1 + (static_cast<uint64_t>(key) & 255)];
    case DepthScope::PerPool:
      return &gates[257 + key];
    case DepthScope::Global:
    default:
      return &gates[0];
  }
}

void Builder::Impl::run_task(int w, uint32_t id) {
  Slot& s = slot(id);
  if (!aborted.load(std::memory_order_acquire)) {
    std::atomic<int64_t>* g = gate(s);
    if (g != nullptr) {
      int64_t cur = g->load(std::memory_order_acquire);
      while (true) {
        if (cur < cfg.pipeline_depth &&
            g->compare_exchange_weak(cur, cur + 1, std::memory_order_acq_rel))
          break;
        std::this_thread::yield();
        cur = g->load(std::memory_order_acquire);
      }
    }
    if (slow_issue) started(w, id);
    try {
      pto_wsp_aicore_dispatch(reinterpret_cast<GM_ADDR>(&s.pod));
    } catch (const std::exception& e) {
      set_error(describe(id) + ": " + e.what(), 1);
    } catch (...) {
      set_error(describe(id) + ": the kernel threw", 1);
    }
    if (g != nullptr) g->fetch_sub(1, std::memory_order_acq_rel);
  } else if (slow_issue) {
    started(w, id);  // not run, but its lane goes on (the run ends with the error)
  }
  ++worker_tasks[static_cast<size_t>(w) * 8];
  complete(id);
}

bool Builder::Impl::take(int w, uint32_t& id) {
  if (queues[w].pop(id)) return true;
  const int pool = worker_pool[w];
  if (rules::serves(pool, 0) && queues[nworkers + 0].pop(id)) return true;
  if (rules::serves(pool, 1) && queues[nworkers + 1].pop(id)) return true;
  if (queues[nworkers + 2].pop(id)) return true;
  if (cfg.dispatch == Dispatch::WorkSteal) {
    for (int o = 1; o < nworkers; ++o) {
      const int v = (w + o) % nworkers;
      if ((worker_pool[v] == pool || pool == 2) && queues[v].pop(id)) return true;
    }
  }
  return false;
}

// How long the orchestrating thread runs a solo run's tasks alone after the build before it
// wakes the other workers' kept threads (PTO_WSP_HOST_JOIN_US, default 100): a wake-up costs
// a system call and the woken thread's first look at cold descriptors (~10-50 us on two shared
// vCPUs), while a build of fewer than kWakeAt no-op tasks leaves ~50 us of work, so only
// kernels that take real time make the other workers worth waking.
static int64_t join_ns() {
  const char* v = getenv("PTO_WSP_HOST_JOIN_US");
  return v != nullptr ? int64_t(atoll(v)) * 1000 : int64_t(100000);
}

static int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// A solo run's tasks, on the orchestrating thread after the build (no kept thread woken):
// every queue's, each task run as a worker that takes it (block_idx, statistics, records).
// True when the run is finished; false once it has woken the kept threads (the run has lasted
// join_ns() and tasks are still queued), when the caller goes on as worker w.
bool Builder::Impl::run_solo(int w) {
  const int64_t join = nworkers > 1 ? join_ns() : 0;
  const int64_t t0 = nworkers > 1 ? now_ns() : 0;
  uint32_t id = 0;
  for (uint32_t k = 1;; ++k) {
    int q = 0;
    while (q < nqueues && !queues[q].pop_solo(id)) ++q;
    if (q == nqueues) break;
    const int role = q < nworkers ? q : pool_workers[q - nworkers][0];
    host::block_idx = role;
    run_task(role, id);
    // The clock costs ~35 ns on the benchmark's VM: read after tasks 1, 2, 4 and 8 (a slow
    // kernel shows at once), then every 16th.
    if (nworkers > 1 && ((k & 15) == 0 || (k & (k - 1)) == 0) && now_ns() - t0 > join) break;
  }
  host::block_idx = w;
  if (finished()) return true;
  wake_workers();
  return false;
}

void Builder::Impl::worker(int w) {
  host::block_idx = w;
  host::block_num = nworkers;
  host::on_worker = true;
  if (solo && run_solo(w)) return;
  uint32_t id;
  while (true) {
    if (take(w, id)) {
      run_task(w, id);
      continue;
    }
    if (finished()) break;
    // While the orchestrator builds (and waits for nothing), an idle worker sleeps
    // idle_hold_ns between looks at the queues: a worker that takes each task the moment it
    // is pushed shares the queue's and the descriptors' cache lines with the orchestrator
    // task by task (measured on two vCPUs: the orchestrator's CPU time per task doubled), and
    // one that polls or yields competes for the CPUs. Sleeping lets tasks accumulate, moves
    // their lines in batches and leaves the CPU to the orchestrator meanwhile.
    if (holding()) {
      holders.fetch_add(1, std::memory_order_seq_cst);
      {
        std::unique_lock<std::mutex> lk(wait_m);
        if (holding()) wait_cv.wait_for(lk, std::chrono::nanoseconds(idle_hold_ns));
      }
      holders.fetch_sub(1, std::memory_order_seq_cst);
      continue;
    }
    // Otherwise: poll the queues for idle_spin_ns, optionally yield for idle_yield_ns, then
    // sleep 200 us at a time; pushes wake sleepers (see push_ready).
    const auto since = std::chrono::steady_clock::now();
    bool got = false, yielding = false;
    for (int64_t spins = 0; !got; ++spins) {
      if (yielding) {
        std::this_thread::yield();
      } else {
        for (int k = 0; k < 16; ++k) cpu_relax();
      }
      if (take(w, id)) {
        got = true;
        break;
      }
      if (yielding || (spins & 15) == 15) {
        const int64_t waited = std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::steady_clock::now() - since)
                                   .count();
        if (waited >= idle_spin_ns + idle_yield_ns || finished()) break;
        yielding = waited >= idle_spin_ns;
      }
    }
    if (got) {
      run_task(w, id);
      continue;
    }
    if (finished()) break;
    sleepers.fetch_add(1, std::memory_order_seq_cst);
    {
      std::unique_lock<std::mutex> lk(wait_m);
      bool any = false;
      for (int q = 0; q < nqueues && !any; ++q) any = !queues[q].empty();
      if (!any && !finished()) wait_cv.wait_for(lk, std::chrono::microseconds(200));
    }
    sleepers.fetch_sub(1, std::memory_order_seq_cst);
  }
}

}  // namespace wsp
}  // namespace pto
