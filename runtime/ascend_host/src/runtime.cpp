// pto-wsp host runtime: the builder API of pto_wsp/orchestration.h with worker threads.
//
// The emitted orchestration runs on the calling thread and creates tasks; N worker threads run
// them as they become ready, concurrently (the AICPU model: build and execution overlap).
//
// Graph construction follows runtime/graph.py exactly, so a program creates the same nodes and
// edges here as under tg-materialize: node ids are creation order, shared by tasks and barrier
// nodes; an ordering point orders through a barrier node when more than one task precedes it;
// a task's dependencies are its scope's frontier (structural) and, per region, the TensorMap's
// read-after-write, write-after-write and write-after-read tasks, each predecessor once with
// its first reason. Every dependency found is an edge of the graph (counted, and recorded on
// request); it is wired for execution only if the predecessor has not completed yet.
//
// Scheduling: descriptors live in a ring of slots (the task window: the orchestrator stalls
// when the slot it needs still holds an unfinished task, or when more tasks than task_window
// are in flight; window_overflow = abort fails instead). A node is held (fanin + 1) until
// submitted, or until its batch is flushed (batch_deps, timing batched); it becomes ready when
// its fanin reaches zero. Ready tasks go to the queue of their target worker (target mod the
// pool's workers), else to their pool's queue (vector, cube, any); workers are split between
// the vector and cube pools (about 2:1, as AIV:AIC cores) and also take `any` tasks; with
// work_steal dispatch they take other workers' tasks too. Queues are FIFO, or by priority
// (lower first) with issue = priority. pipeline_depth bounds the tasks running at once
// (globally, per stream or per pool); rate_limit(n) paces submission to n tasks per ms.
// Issue follows the simulator (docs/simulator.md): with streams n a task is linked behind the
// last issued task of its lane (stream key + n * (placed worker + 1)) and held until that task
// starts, i.e. a worker takes it; timing interleaved(n) issues n tasks at a time, round-robin
// across stream keys. Without streams, interleave or record, submit skips all of it.
// Barrier nodes run no kernel: they complete as soon as they are ready.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <unistd.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <new>
#include <queue>
#include <stdexcept>
#include <string>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "pto_wsp/aicore.h"
#include "pto_wsp/orchestration.h"
#include "hooks.h"
#include "order.h"
#include "schedule_rules.h"
#include "task_abi.h"
#include "tensormap.h"

extern "C" __global__ __aicore__ void pto_wsp_aicore_dispatch(GM_ADDR task);

namespace pto {
namespace wsp {

namespace host {
thread_local int64_t block_idx = 0;
thread_local int64_t block_num = 1;
thread_local bool on_worker = false;  // the calling thread is a worker
}  // namespace host

namespace host {

// Node and edge kinds, and the rules of structural order: order.h, shared with the native core.
using order::kBarrier;
using order::kRaw;
using order::kStructural;
using order::kTask;
using order::kWar;
using order::kWaw;
using order::pack;

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

class SpinLock {
 public:
  void lock() {
    int spins = 0;
    while (flag_.test_and_set(std::memory_order_acquire)) {
      if (++spins > 64) std::this_thread::yield();
      cpu_relax();
    }
  }
  void unlock() { flag_.clear(std::memory_order_release); }

 private:
  std::atomic_flag flag_ = ATOMIC_FLAG_INIT;
};

// One slot of the ring: a node's descriptor and its scheduling state. What the orchestrator
// writes for every node comes first; the lock and fanout, which a completion writes, are on
// their own cache line, touched by the orchestrator only to wire a successor to an unfinished
// node. Whether the node completed and whether the slot is free are in Impl's compact arrays
// (slot_done, slot_free), not here.
// Stream lanes (streams n): a slot's lane_next is kLaneOpen until its task starts, when the
// starting worker swaps in kLaneStarted; the orchestrator, issuing the next task of the lane,
// swaps kLaneOpen for that task's id (one CAS). Whoever comes second knows the order: a
// worker that finds an id lets that task go (pending - 1), an orchestrator that finds
// kLaneStarted does not hold its task.
constexpr uint32_t kLaneOpen = 0xFFFFFFFFu;
constexpr uint32_t kLaneStarted = 0xFFFFFFFEu;

struct Slot {
  TaskNodePod pod;
  std::atomic<int32_t> pending{0};  // predecessors not completed, + 1 while held
  uint8_t kind = kTask;
  uint32_t id = 0xFFFFFFFFu;  // the node in this slot (written by the orchestrator only)
  int32_t queue = -1;         // its ready queue
  int64_t target = -1;
  int64_t stream = 0;
  int64_t lane = -1;  // its stream lane (streams n), set at issue
  std::atomic<uint32_t> lane_next{kLaneOpen};  // see kLaneOpen
  const TaskSite* site = nullptr;
  int64_t coords[kMaxCoords];
  alignas(64) SpinLock lock;  // completion vs late wiring: guards fanout and slot_done
  std::vector<uint32_t> fanout;
};

// A ready queue. FIFO: a bounded lock-free ring (D. Vyukov's MPMC queue: one CAS per push
// and per pop, no lock, no allocation); it never fills, since at most `capacity` nodes (the
// task ring's slots) are unfinished at once. Priority: a heap under a mutex.
class ReadyQueue {
 public:
  void init(bool priority, uint64_t capacity) {
    priority_ = priority;
    if (priority_) return;
    cells_.reset(new Cell[capacity]);
    mask_ = capacity - 1;
    for (uint64_t i = 0; i < capacity; ++i)
      cells_[i].seq.store(static_cast<uint32_t>(i), std::memory_order_relaxed);
  }
  void push(uint32_t id, int64_t prio) {
    if (priority_) {
      std::lock_guard<std::mutex> g(m_);
      heap_.push({prio, id});
      size_.fetch_add(1, std::memory_order_release);
      return;
    }
    uint32_t pos = head_.load(std::memory_order_relaxed);
    Cell* c;
    while (true) {
      c = &cells_[pos & mask_];
      const uint32_t seq = c->seq.load(std::memory_order_acquire);
      const int32_t diff = static_cast<int32_t>(seq - pos);
      if (diff == 0) {
        if (head_.compare_exchange_weak(pos, pos + 1, std::memory_order_relaxed)) break;
      } else if (diff < 0) {
        cpu_relax();  // full: cannot happen (see above); wait for a pop
        pos = head_.load(std::memory_order_relaxed);
      } else {
        pos = head_.load(std::memory_order_relaxed);
      }
    }
    c->id = id;
    c->seq.store(pos + 1, std::memory_order_release);
  }
  // push and pop for a run with one thread (Impl::solo): the same cells and positions,
  // without the CAS (nothing else touches the queue meanwhile).
  void push_solo(uint32_t id, int64_t prio) {
    if (priority_) return push(id, prio);
    const uint32_t pos = head_.load(std::memory_order_relaxed);
    Cell& c = cells_[pos & mask_];
    c.id = id;
    c.seq.store(pos + 1, std::memory_order_relaxed);
    head_.store(pos + 1, std::memory_order_relaxed);
  }
  bool pop_solo(uint32_t& id) {
    if (priority_) return pop(id);
    const uint32_t pos = tail_.load(std::memory_order_relaxed);
    Cell& c = cells_[pos & mask_];
    if (c.seq.load(std::memory_order_relaxed) != pos + 1) return false;  // empty
    id = c.id;
    c.seq.store(pos + static_cast<uint32_t>(mask_) + 1, std::memory_order_relaxed);
    tail_.store(pos + 1, std::memory_order_relaxed);
    return true;
  }
  // The queue's approximate length (reads the consumers' position: a cache miss, so only
  // when a worker sleeps).
  int64_t approx_size() const {
    if (priority_) return size_.load(std::memory_order_relaxed);
    return static_cast<int32_t>(head_.load(std::memory_order_relaxed) -
                                tail_.load(std::memory_order_relaxed));
  }
  bool pop(uint32_t& id) {
    if (priority_) {
      if (size_.load(std::memory_order_acquire) == 0) return false;
      std::lock_guard<std::mutex> g(m_);
      if (heap_.empty()) return false;
      id = heap_.top().second;
      heap_.pop();
      size_.fetch_sub(1, std::memory_order_relaxed);
      return true;
    }
    uint32_t pos = tail_.load(std::memory_order_relaxed);
    Cell* c;
    while (true) {
      c = &cells_[pos & mask_];
      const uint32_t seq = c->seq.load(std::memory_order_acquire);
      const int32_t diff = static_cast<int32_t>(seq - (pos + 1));
      if (diff == 0) {
        if (tail_.compare_exchange_weak(pos, pos + 1, std::memory_order_relaxed)) break;
      } else if (diff < 0) {
        return false;  // empty
      } else {
        pos = tail_.load(std::memory_order_relaxed);
      }
    }
    id = c->id;
    c->seq.store(pos + static_cast<uint32_t>(mask_) + 1, std::memory_order_release);
    return true;
  }
  bool empty() const {
    if (priority_) return size_.load(std::memory_order_acquire) == 0;
    const uint32_t pos = tail_.load(std::memory_order_acquire);
    return cells_[pos & mask_].seq.load(std::memory_order_acquire) != pos + 1;
  }

 private:
  struct Cell {  // 8 bytes: positions wrap at 2^32 (compared as differences)
    std::atomic<uint32_t> seq;
    uint32_t id;
  };
  using Item = std::pair<int64_t, uint32_t>;
  bool priority_ = false;
  std::unique_ptr<Cell[]> cells_;
  uint64_t mask_ = 0;
  alignas(64) std::atomic<uint32_t> head_{0};
  alignas(64) std::atomic<uint32_t> tail_{0};
  alignas(64) std::mutex m_;
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> heap_;
  std::atomic<int64_t> size_{0};
};

// What a run records for inspection (record = 1): the static graph, as runtime/graph.py's
// TaskGraph holds it.
struct Records {
  std::vector<uint8_t> kind, pool, domain;
  std::vector<int32_t> kernel, site;
  std::vector<int64_t> target, stream, priority;
  std::vector<int64_t> args_begin{0}, args, coords_begin{0}, coords, regions_begin{0}, regions;
  std::vector<int64_t> edge_src, edge_dst;
  std::vector<uint8_t> edge_kind;
  // The schedule, per node (-1 for barriers): issue number, stream key and lane (streams n),
  // start number (the order workers took tasks in: a global counter) and worker.
  std::vector<int64_t> issue, stream_key, lane, start, worker;
};

// Task rings kept from one run to the next with their slots still constructed (each slot's
// fanout vector keeps its capacity): a run's first lap then neither constructs slots nor
// zeroes descriptors, nor allocates fanout arrays again. At most kKeepRings are kept.
struct KeptRing {
  Slot* ring;
  uint64_t cap;
  uint64_t constructed;
};
constexpr size_t kKeepRings = 2;
std::mutex g_rings_m;
std::vector<KeptRing> g_rings;

void destroy_ring(Slot* ring, uint64_t cap, uint64_t constructed) {
  const uint64_t n = std::min<uint64_t>(constructed, cap);
  for (uint64_t i = 0; i < n; ++i) ring[i].~Slot();
  host::block_give(ring, cap * sizeof(Slot), 2);
}

}  // namespace host

using namespace host;

// ---------------------------------------------------------------------------------- Impl

struct Builder::Impl {
  RuntimeConfig cfg;
  int nworkers = 1;
  bool record = false;
  uint64_t cap = 0, mask = 0;
  Slot* ring = nullptr;
  uint64_t constructed = 0;  // slots constructed (first lap)
  uint64_t reused = 0;       // slots already constructed by an earlier run (a kept ring)
  // Compact per-slot state for wiring (16 KB at 4,096 slots: cache-resident, unlike the
  // slots): the node in each slot (orchestrator-written) and the last node completed in it
  // (worker-written), so a predecessor that is done costs no access to its slot.
  std::unique_ptr<uint32_t[]> slot_node;
  std::unique_ptr<std::atomic<uint32_t>[]> slot_done;
  // The last node whose slot was released (its completion fully processed): slot n & mask
  // is free for node n when it holds n - cap.
  std::unique_ptr<std::atomic<uint32_t>[]> slot_free;

  // The TensorMap, kept from one run to the next with its memory (TensorMap::take / give).
  std::unique_ptr<host::TensorMap, void (*)(host::TensorMap*)> tmap_kept{host::TensorMap::take(),
                                                                        host::TensorMap::give};
  host::TensorMap& tmap = *tmap_kept;
  order::Scopes scopes;
  uint64_t allocated = 0;  // nodes
  int64_t ntasks = 0;
  int64_t building = -1;  // the task between alloc_task and submit
  std::vector<uint32_t> held;
  int64_t batch = 0;
  // Issue (docs/simulator.md "Execution model" 2): a task is issued when batch_deps and
  // timing release it; issue numbers count tasks in that order. With streams n, issue links
  // it behind the last issued task of its lane (lane_tail); with timing interleaved(n), the
  // released tasks wait in tbuf and are issued n at a time, round-robin across stream keys.
  // slow_issue: any of these (or record) is on; otherwise submit takes the direct path.
  bool slow_issue = false, lanes = false, interleave = false;
  int64_t nstreams = 0;
  uint64_t issued = 0;
  std::vector<uint32_t> lane_tail;  // per lane: its last issued task (0xFFFFFFFF: none)
  std::vector<uint32_t> tbuf;
  std::vector<uint32_t> tkeys, torder;  // flush_timing's scratch
  std::vector<size_t> tcount;
  // record: each worker's starts (node, start number); the counter.
  std::vector<std::vector<std::pair<uint32_t, uint64_t>>> starts;
  alignas(64) std::atomic<uint64_t> start_count{0};
  std::vector<uint32_t> raw, waw, war;
  // A predecessor and the reason of its edge, packed (node | kind << 32): built in registers
  // (a pair goes through memory and stalls store forwarding on every push).
  std::vector<uint64_t> preds;
  order::FirstReason first_reason;
  order::Events events;              // streams and events (use_events)
  std::vector<uint32_t> event_preds;  // the event waits of the task being built

  // Queues: one per worker (targeted tasks), then vector, cube, any.
  std::unique_ptr<ReadyQueue[]> queues;
  int nqueues = 0;
  std::vector<int> worker_pool;  // 0 vector, 1 cube, 2 both
  std::vector<int> pool_workers[3];  // vector, cube, any (every worker)

  // Cache lines apart: what the workers write on every completion, what the orchestrator
  // writes once, and the sleep/wake handshake.
  // Completed nodes (high 32 bits) and tasks (low 32 bits) in one word: one atomic add per
  // completion (node ids stay below 2^32).
  alignas(64) std::atomic<uint64_t> completed{0};
  uint64_t completed_nodes() const { return completed.load(std::memory_order_acquire) >> 32; }
  int64_t completed_tasks() const {
    return static_cast<int64_t>(completed.load(std::memory_order_acquire) & 0xFFFFFFFFu);
  }
  alignas(64) std::atomic<uint64_t> total_nodes{~0ull};
  std::atomic<bool> build_done{false};
  std::atomic<bool> aborted{false};
  alignas(64) std::atomic<int> sleepers{0};
  std::atomic<int> holders{0};  // idle workers sleeping between looks (see worker)
  std::atomic<int64_t> last_wake{0};
  std::atomic<int> orch_waiting{0};
  alignas(64) int64_t idle_spin_ns = 0;
  int64_t idle_yield_ns = 0;
  int64_t idle_hold_ns = 0;
  int64_t completed_seen = 0;  // the orchestrator's last read of completed_tasks
  std::mutex wait_m;
  std::condition_variable wait_cv;
  std::mutex done_m;
  std::condition_variable done_cv;

  // pipeline_depth gates: global, per stream (mod 256), per pool.
  std::unique_ptr<std::atomic<int64_t>[]> gates;

  // A one-worker run's kept thread, not woken yet (see pto_wsp_run): woken by wake_workers
  // once the build has kWakeAt tasks or before the orchestrator waits for a completion.
  // Until then its thread may not take the run (WorkerPool::start with notify_now false):
  // the run has one thread, the orchestrator's, which also runs the worker after the build
  // if nothing woke the thread. solo says so: the wiring, completions, pending counts and
  // ready queues then do without locks and read-modify-writes (plain loads and stores of the
  // same fields; the pool's mutex orders them before the thread's first look, if woken).
  void (*wake_fn)(void*) = nullptr;
  void* wake_ctx = nullptr;
  bool solo = false;
  static constexpr int64_t kWakeAt = 1024;
  void wake_workers() {
    if (wake_fn == nullptr) return;
    void (*f)(void*) = wake_fn;
    wake_fn = nullptr;
    solo = false;
    f(wake_ctx);
  }
  // pending - 1, the new value: one thread (solo) or a locked subtract.
  int32_t drop_pending(Slot& s) {
    if (solo) {
      const int32_t v = s.pending.load(std::memory_order_relaxed) - 1;
      s.pending.store(v, std::memory_order_relaxed);
      return v;
    }
    return s.pending.fetch_sub(1, std::memory_order_acq_rel) - 1;
  }

  std::mutex err_m;
  std::string error;
  int error_code = 0;

  // Statistics.
  int64_t edges = 0, wired = 0, window_stalls = 0, ring_stalls = 0, max_live = 0;
  int64_t edge_kinds[4] = {0, 0, 0, 0};
  int64_t pool_tasks[3] = {0, 0, 0};
  std::unordered_set<int64_t> streams;
  int64_t last_stream = -1;
  std::vector<int64_t> worker_tasks;
  std::chrono::steady_clock::time_point start;
  int64_t build_ns = 0;
  Records rec;
  std::unordered_map<const TaskSite*, int32_t> site_ids;
  std::vector<const TaskSite*> sites;
  // The pipeline process creating tasks now (pipeline.cpp), else nullptr.
  host::IssueContext* issue_ctx = nullptr;

  Impl(const RuntimeConfig& c, int workers, bool rec_, uint64_t ring_capacity);
  ~Impl();

  Slot& slot(uint64_t id) { return ring[id & mask]; }
  void set_error(const std::string& what, int code);
  uint32_t alloc_node(uint8_t kind);
  void wait_until(const std::function<bool()>& ready, bool flush_all = true);
  void flush();
  void flush_batch();
  void flush_timing();
  void time_release(uint32_t id);
  void issue(uint32_t id);
  int64_t stream_key(uint32_t id) const;
  void started(int w, uint32_t id);
  void release(uint32_t id);
  int32_t link(const std::vector<uint64_t>& ps, uint32_t id);
  uint32_t barrier(const std::vector<uint32_t>& preds);
  // A ready task to its queue; sleeping workers may need waking (wake, out of line).
  void push_ready(uint32_t id) {
    const Slot& s = slot(id);
    ReadyQueue& q = queues[s.queue];
    if (solo)
      q.push_solo(id, s.pod.priority);
    else
      q.push(id, s.pod.priority);
    if (sleepers.load(std::memory_order_seq_cst) != 0) wake(q);
  }
  void wake(const ReadyQueue& q);
  void complete(uint32_t id);
  bool take(int w, uint32_t& id);
  // An idle worker waits between looks at the queues (see worker).
  bool holding() const {
    return idle_hold_ns > 0 && !build_done.load(std::memory_order_acquire) &&
           orch_waiting.load(std::memory_order_seq_cst) == 0;
  }
  bool finished() const {
    return build_done.load(std::memory_order_acquire) &&
           completed_nodes() ==
               total_nodes.load(std::memory_order_acquire);
  }
  void worker(int w);
  void run_task(int w, uint32_t id);
  std::atomic<int64_t>* gate(const Slot& s);
  std::string describe(uint32_t id);
  void record_node(uint32_t id);
  void pipeline_task(uint32_t id, Slot& s);
  void place(Slot& s, const ReceiptKeys& k, const Coords& c);
  bool node_done(uint32_t n) const {
    const uint32_t v = slot_done[n & mask].load(std::memory_order_acquire);
    return v != 0xFFFFFFFFu && v >= n;
  }
};

Builder::Impl::Impl(const RuntimeConfig& c, int workers, bool rec_, uint64_t ring_capacity)
    : cfg(c), nworkers(workers), record(rec_) {
  uint64_t want = ring_capacity > 0 ? ring_capacity : 4096;
  if (cfg.task_window > 0 && static_cast<uint64_t>(cfg.task_window) > want)
    want = static_cast<uint64_t>(cfg.task_window);
  cap = 64;
  while (cap < want) cap <<= 1;
  mask = cap - 1;
  // Zeroed pages, touched only as slots come into use.
  // Raw memory (slots are constructed on the ring's first lap), kept for the next run.
  {
    std::lock_guard<std::mutex> g(g_rings_m);
    for (size_t i = 0; i < g_rings.size(); ++i) {
      if (g_rings[i].cap == cap) {
        ring = g_rings[i].ring;
        reused = g_rings[i].constructed;
        g_rings[i] = g_rings.back();
        g_rings.pop_back();
        break;
      }
    }
  }
  constructed = reused;
  if (ring == nullptr) {
    try {
      ring = static_cast<Slot*>(host::block_take(cap * sizeof(Slot)));
    } catch (const std::bad_alloc&) {
      throw RunError("cannot allocate the task ring", 2);
    }
  }
  batch = cfg.batch_deps > 0 ? cfg.batch_deps : 0;
  if (cfg.timing == Timing::Batched && cfg.timing_n > 0)
    batch = batch > 0 ? std::min(batch, cfg.timing_n) : cfg.timing_n;
  lanes = cfg.streams > 0;
  nstreams = cfg.streams > 0 ? cfg.streams : 1;
  interleave = cfg.timing == Timing::Interleaved && cfg.timing_n > 0;
  slow_issue = lanes || interleave || record;
  if (lanes) {
    // Lane key + streams * (placed worker + 1): the runtime-placed tasks share lanes
    // 0..streams-1, each worker has its own (as the simulator).
    const uint64_t nlanes = static_cast<uint64_t>(cfg.streams) * static_cast<uint64_t>(workers + 1);
    if (nlanes > (uint64_t(1) << 26)) throw RunError("streams " + std::to_string(cfg.streams) +
                                                         ": too many stream lanes",
                                                     3);
    lane_tail.assign(nlanes, 0xFFFFFFFFu);
  }
  if (interleave) tbuf.reserve(static_cast<size_t>(std::min<int64_t>(cfg.timing_n, 1 << 20)));
  if (record) starts.resize(static_cast<size_t>(workers));
  slot_node.reset(new uint32_t[cap]);
  slot_done.reset(new std::atomic<uint32_t>[cap]);
  slot_free.reset(new std::atomic<uint32_t>[cap]);
  for (uint64_t i = 0; i < cap; ++i) {
    slot_node[i] = 0xFFFFFFFFu;
    slot_done[i].store(0xFFFFFFFFu, std::memory_order_relaxed);
    slot_free[i].store(0xFFFFFFFFu, std::memory_order_relaxed);
  }
  nqueues = nworkers + 3;
  queues.reset(new ReadyQueue[nqueues]);
  for (int i = 0; i < nqueues; ++i) queues[i].init(cfg.ready == ReadyPolicy::Priority, cap);
  const int ncube = nworkers >= 2 ? std::max(1, nworkers / 3) : 0;
  for (int w = 0; w < nworkers; ++w) {
    const int pool = nworkers == 1 ? 2 : (w < nworkers - ncube ? 0 : 1);
    worker_pool.push_back(pool);
    if (pool == 0 || pool == 2) pool_workers[0].push_back(w);
    if (pool == 1 || pool == 2) pool_workers[1].push_back(w);
    pool_workers[2].push_back(w);
  }
  // An idle worker polls the queues for 2 us, then polls between sched_yield calls for
  // 200 us, then sleeps. Yielding, not spinning: when the worker shares a CPU with the
  // orchestrator (other jobs on the machine, or more threads than CPUs), a spinning worker
  // holds the CPU the orchestrator needs for its time slice, while a yielding one hands it
  // back at once (measured on 2 shared vCPUs: 2,100 -> 3,900 tasks/ms). While the build
  // runs, it sleeps 50 us between looks instead (see worker). Tunable with
  // PTO_WSP_HOST_SPIN_US, PTO_WSP_HOST_YIELD_US and PTO_WSP_HOST_HOLD_US.
  idle_spin_ns = 2000;
  idle_yield_ns = 200000;
  if (const char* v = getenv("PTO_WSP_HOST_SPIN_US")) idle_spin_ns = int64_t(atoll(v)) * 1000;
  if (const char* v = getenv("PTO_WSP_HOST_YIELD_US")) idle_yield_ns = int64_t(atoll(v)) * 1000;
  idle_hold_ns = 50000;
  if (const char* v = getenv("PTO_WSP_HOST_HOLD_US")) idle_hold_ns = int64_t(atoll(v)) * 1000;
  gates.reset(new std::atomic<int64_t>[260]);
  for (int i = 0; i < 260; ++i) gates[i].store(0);
  worker_tasks.assign(static_cast<size_t>(nworkers) * 8, 0);
}

Builder::Impl::~Impl() {
  {
    std::lock_guard<std::mutex> g(g_rings_m);
    if (g_rings.size() < kKeepRings) {
      g_rings.push_back({ring, cap, std::min<uint64_t>(constructed, cap)});
      return;
    }
  }
  destroy_ring(ring, cap, constructed);
}

void Builder::Impl::set_error(const std::string& what, int code) {
  std::lock_guard<std::mutex> g(err_m);
  if (error.empty()) {
    error = what;
    error_code = code;
  }
  aborted.store(true, std::memory_order_release);
}

std::string Builder::Impl::describe(uint32_t id) {
  const Slot& s = slot(id);
  std::string text = "task " + std::to_string(id);
  if (static_cast<int32_t>(s.pod.kernel) < pto_wsp_num_kernels)
    text += " (kernel " + std::string(pto_wsp_kernel_names[s.pod.kernel]);
  else
    text += " (kernel #" + std::to_string(s.pod.kernel);
  if (s.site != nullptr && s.site->num_coords > 0) {
    text += ", at ";
    for (int i = 0; i < s.site->num_coords; ++i) {
      if (i) text += ", ";
      text += std::string(s.site->coord_names[i]) + " = " + std::to_string(s.coords[i]);
    }
  }
  return text + ")";
}

void Builder::Impl::wait_until(const std::function<bool()>& ready, bool flush_all) {
  if (flush_all) flush();
  wake_workers();  // a deferred worker must run for the wait to end
  if (ready()) return;
  // Waiting: completions notify done_cv, and workers stop sleeping between looks (holding);
  // those asleep now are woken.
  orch_waiting.fetch_add(1, std::memory_order_seq_cst);
  if (holders.load(std::memory_order_seq_cst) > 0) {
    std::lock_guard<std::mutex> g(wait_m);
    wait_cv.notify_all();
  }
  for (int spins = 0; !ready();) {
    if (++spins < 200) {
      std::this_thread::yield();
      continue;
    }
    std::unique_lock<std::mutex> lk(done_m);
    done_cv.wait_for(lk, std::chrono::microseconds(200), ready);
  }
  orch_waiting.fetch_sub(1, std::memory_order_seq_cst);
}

inline __attribute__((always_inline)) uint32_t Builder::Impl::alloc_node(uint8_t kind) {
  if (aborted.load(std::memory_order_acquire)) throw RunError("", 0);
  const uint64_t n = allocated;
  if (n >= 0xFFFFFFF0ull) throw RunError("more than 2^32 tasks", 2);
  if (kind == kTask && cfg.task_window > 0 &&
      ntasks - completed_tasks() >= cfg.task_window) {
    if (cfg.window_overflow == Overflow::Abort)
      throw RunError("task window of " + std::to_string(cfg.task_window) +
                         " tasks overflowed at task " + std::to_string(n) +
                         " (window_overflow = abort)",
                     2);
    ++window_stalls;
    wait_until([&] {
      return ntasks - completed_tasks() < cfg.task_window;
    });
    tmap.gc_before(static_cast<uint32_t>(n > static_cast<uint64_t>(cfg.task_window)
                                             ? n - static_cast<uint64_t>(cfg.task_window)
                                             : 0));
  }
  Slot* s = &ring[n & mask];
  if (n < cap) {
    if (n >= reused) {
      // First lap of a new ring: the slot's memory is still raw.
      new (s) Slot();
      memset(static_cast<void*>(&s->pod), 0, sizeof(TaskNodePod));
      constructed = n + 1;
    } else {
      // First lap of a ring kept from an earlier run: whatever that run left (a fanout not
      // processed after an error, a lock an exception left held) is reset.
      s->fanout.clear();
      s->lock.unlock();
    }
  } else {
    std::atomic<uint32_t>& prev = slot_free[n & mask];
    const uint32_t want = static_cast<uint32_t>(n - cap);
    if (prev.load(std::memory_order_acquire) != want) {
      ++ring_stalls;
      // The awaited node, and every node before it, must be issued; the later ones buffered
      // by timing interleaved may stay (a flush there would change the issue order).
      flush_batch();
      if (!tbuf.empty() && tbuf.front() <= want) flush_timing();
      wait_until([&prev, want] { return prev.load(std::memory_order_acquire) == want; },
                 false);
    }
  }
  s->kind = kind;
  s->id = static_cast<uint32_t>(n);
  slot_node[n & mask] = static_cast<uint32_t>(n);
  s->pending.store(1, std::memory_order_relaxed);
  s->lane = -1;
  s->target = -1;
  s->site = nullptr;
  s->queue = -1;
  TaskNodePod& p = s->pod;
  p.id = static_cast<TaskId>(n);
  p.kernel = 0xFFFF;
  p.domain = ExecDomain::HostCPU;
  p.pool = ExecPool::Any;
  p.stream = 0;
  p.affinity = kAnyTarget;
  p.fanin = 0;
  p.fanout_begin = 0;
  p.fanout_count = 0;
  p.num_args = 0;
  p.num_io = 0;
  p.sched_tags = kind == kBarrier ? kTagBarrier : 0;
  p.priority = 0;
  allocated = n + 1;
  return static_cast<uint32_t>(n);
}

int32_t Builder::Impl::link(const std::vector<uint64_t>& ps, uint32_t id) {
  Slot& me = slot(id);
  const size_t n = ps.size();
  const uint64_t* __restrict pk = ps.data();
  if (record) {
    for (size_t i = 0; i < n; ++i) {
      rec.edge_src.push_back(static_cast<uint32_t>(pk[i]));
      rec.edge_dst.push_back(id);
      rec.edge_kind.push_back(static_cast<uint8_t>(pk[i] >> 32));
    }
  }
  // The wiring of predecessors not completed yet. (Edges by kind are counted by the callers:
  // an array indexed by kind would live on the stack, and its increments stall store
  // forwarding.)
  // me.pending counts the wired predecessors: reserved for all the remaining edges at the
  // first wiring (one locked add instead of one per wired edge: at 1k tasks every edge is
  // wired), the unused part given back at the end. It never reaches zero meanwhile: the task
  // is held (+1) until submitted.
  int32_t nwired = 0, reserved = 0;
  const uint32_t* __restrict nodes = slot_node.get();
  const std::atomic<uint32_t>* done = slot_done.get();
  const uint64_t msk = mask;
  for (size_t i = 0; i < n; ++i) {
    const uint32_t p = static_cast<uint32_t>(pk[i]);
    // Long completed (its slot holds a newer node), or completed: nothing to wire.
    if (nodes[p & msk] != p || done[p & msk].load(std::memory_order_acquire) == p) continue;
    Slot& ps_ = ring[p & msk];
    if (solo) {  // one thread: no completion can come between the check and the push
      ps_.fanout.push_back(id);
      ++nwired;
      continue;
    }
    ps_.lock.lock();
    if (done[p & msk].load(std::memory_order_relaxed) != p) {
      if (nwired == reserved) {
        reserved += static_cast<int32_t>(n - i);
        me.pending.fetch_add(static_cast<int32_t>(n - i), std::memory_order_relaxed);
      }
      ps_.fanout.push_back(id);
      ++nwired;
    }
    ps_.lock.unlock();
  }
  if (solo) {
    me.pending.store(me.pending.load(std::memory_order_relaxed) + nwired,
                     std::memory_order_relaxed);
  } else if (reserved != nwired) {
    me.pending.fetch_sub(reserved - nwired, std::memory_order_relaxed);
  }
  edges += static_cast<int64_t>(n);
  wired += nwired;
  me.pod.fanin = static_cast<int32_t>(n);
  return nwired;
}

uint32_t Builder::Impl::barrier(const std::vector<uint32_t>& preds) {
  const uint32_t b = alloc_node(kBarrier);
  std::vector<uint64_t> ps;
  ps.reserve(preds.size());
  for (uint32_t p : preds) ps.push_back(pack(p, kStructural));
  edge_kinds[kStructural] += static_cast<int64_t>(ps.size());
  if (record) record_node(b);
  link(ps, b);
  release(b);
  return b;
}

void Builder::Impl::record_node(uint32_t id) {
  const Slot& s = slot(id);
  const bool task = s.kind == kTask;
  rec.kind.push_back(s.kind);
  rec.kernel.push_back(task ? static_cast<int32_t>(s.pod.kernel) : -1);
  rec.pool.push_back(task ? static_cast<uint8_t>(s.pod.pool) : 255);
  rec.domain.push_back(task ? static_cast<uint8_t>(s.pod.domain) : 0);
  rec.target.push_back(task ? s.target : -1);
  rec.stream.push_back(task ? s.stream : 0);
  rec.priority.push_back(task ? s.pod.priority : 0);
  int32_t site = -1;
  if (task && s.site != nullptr) {
    auto it = site_ids.find(s.site);
    if (it == site_ids.end()) {
      it = site_ids.emplace(s.site, static_cast<int32_t>(sites.size())).first;
      sites.push_back(s.site);
    }
    site = it->second;
    for (int i = 0; i < s.site->num_coords; ++i) rec.coords.push_back(s.coords[i]);
  }
  rec.site.push_back(site);
  rec.issue.push_back(-1);
  rec.stream_key.push_back(-1);
  rec.lane.push_back(-1);
  if (task) {
    for (int i = 0; i < s.pod.num_args; ++i)
      rec.args.push_back(static_cast<int64_t>(s.pod.args[i].bits));
    for (int i = 0; i < s.pod.num_io; ++i) {
      const TaskIO& io = s.pod.io[i];
      rec.regions.push_back(io.region.tensor);
      rec.regions.push_back(io.access);
      rec.regions.push_back(io.region.rank);
      for (int d = 0; d < io.region.rank; ++d) rec.regions.push_back(io.region.offsets[d]);
      for (int d = 0; d < io.region.rank; ++d) rec.regions.push_back(io.region.sizes[d]);
      for (int d = 0; d < io.region.rank; ++d) rec.regions.push_back(io.region.strides[d]);
    }
  }
  rec.args_begin.push_back(static_cast<int64_t>(rec.args.size()));
  rec.coords_begin.push_back(static_cast<int64_t>(rec.coords.size()));
  rec.regions_begin.push_back(static_cast<int64_t>(rec.regions.size()));
}

void Builder::Impl::release(uint32_t id) {
  Slot& s = slot(id);
  if (drop_pending(s) == 0) {
    if (s.kind == kBarrier)
      complete(id);
    else
      push_ready(id);
  }
}

void Builder::Impl::flush() {
  flush_batch();
  if (!tbuf.empty()) flush_timing();
}

void Builder::Impl::flush_batch() {
  if (held.empty()) return;
  if (slow_issue) {
    std::vector<uint32_t> batch_ids;
    batch_ids.swap(held);
    for (uint32_t id : batch_ids) time_release(id);
    batch_ids.clear();
    if (held.empty()) held.swap(batch_ids);  // keep the capacity
    return;
  }
  for (uint32_t id : held) release(id);
  held.clear();
}

void Builder::Impl::time_release(uint32_t id) {
  if (!interleave) {
    issue(id);
    return;
  }
  tbuf.push_back(id);
  if (static_cast<int64_t>(tbuf.size()) >= cfg.timing_n) flush_timing();
}

int64_t Builder::Impl::stream_key(uint32_t id) const {
  // As the simulator's _stream_key: the task's stream_by key, else its issue number, mod n.
  return rules::stream_key(cfg.stream_keyed, ring[id & mask].stream, issued, nstreams);
}

void Builder::Impl::flush_timing() {
  const size_t n = tbuf.size();
  if (n > 1) {
    // Keys are computed before any of these tasks is issued (unkeyed: one key for all).
    tkeys.resize(n);
    for (size_t i = 0; i < n; ++i) tkeys[i] = static_cast<uint32_t>(stream_key(tbuf[i]));
    rules::interleave(tbuf, tkeys, static_cast<size_t>(nstreams), torder, tcount);
  }
  // issue() never releases into tbuf: no reentry.
  for (uint32_t id : tbuf) issue(id);
  tbuf.clear();
}

void Builder::Impl::issue(uint32_t id) {
  Slot& s = slot(id);
  if (lanes) {
    const int64_t key = stream_key(id);
    const int64_t placed = s.target >= 0 ? s.queue : -1;
    const int64_t lane = rules::lane_of(key, nstreams, placed);
    s.lane = lane;
    s.lane_next.store(kLaneOpen, std::memory_order_relaxed);  // no worker knows it yet
    uint32_t& tail = lane_tail[static_cast<size_t>(lane)];
    // The lane's last task, unless its slot holds a newer node (then it completed long ago).
    if (tail != 0xFFFFFFFFu && slot_node[tail & mask] == tail) {
      // Held by one more until that task starts: added before the task can see it.
      s.pending.fetch_add(1, std::memory_order_relaxed);
      uint32_t open = kLaneOpen;
      if (!slot(tail).lane_next.compare_exchange_strong(open, id, std::memory_order_acq_rel))
        s.pending.fetch_sub(1, std::memory_order_relaxed);  // it started: never 0 (held)
    }
    tail = id;
    if (record) {
      rec.stream_key[id] = key;
      rec.lane[id] = lane;
    }
  }
  if (record) rec.issue[id] = static_cast<int64_t>(issued);
  ++issued;
  release(id);
}

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
  if (solo) {  // one worker (nworkers == 1): its own queue, then the three pool queues
    for (int q = 0; q < nqueues; ++q)
      if (queues[q].pop_solo(id)) return true;
    return false;
  }
  if (queues[w].pop(id)) return true;
  const int pool = worker_pool[w];
  if ((pool == 0 || pool == 2) && queues[nworkers + 0].pop(id)) return true;
  if ((pool == 1 || pool == 2) && queues[nworkers + 1].pop(id)) return true;
  if (queues[nworkers + 2].pop(id)) return true;
  if (cfg.dispatch == Dispatch::WorkSteal) {
    for (int o = 1; o < nworkers; ++o) {
      const int v = (w + o) % nworkers;
      if ((worker_pool[v] == pool || pool == 2) && queues[v].pop(id)) return true;
    }
  }
  return false;
}

void Builder::Impl::worker(int w) {
  host::block_idx = w;
  host::block_num = nworkers;
  host::on_worker = true;
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

// ---------------------------------------------------------------------------------- Builder

TaskBuilder Builder::alloc_task(KernelId kernel, ExecDomain domain, ExecPool pool,
                                int64_t target, int64_t stream, int64_t priority,
                                const TaskSite* site) {
  Impl& m = *impl_;
  m.scopes.frontier([&m](const std::vector<uint32_t>& nodes) { return m.barrier(nodes); });
  if (m.events.on)
    m.events.waits(stream, [&m](const std::vector<uint32_t>& nodes) { return m.barrier(nodes); },
                   m.event_preds);
  const uint32_t id = m.alloc_node(kTask);
  m.building = id;
  ++m.ntasks;
  // In flight: reading the workers' counter costs a cache miss, so it is read every 16th
  // task (and at every task under a task window, which reads it anyway).
  if (m.cfg.task_window > 0 || (m.ntasks & 15) == 1) {
    m.completed_seen = m.completed_tasks();
    if (m.ntasks >= Impl::kWakeAt) m.wake_workers();
  }
  const int64_t live = m.ntasks - m.completed_seen;
  if (live > m.max_live) m.max_live = live;
  Slot& s = m.slot(id);
  s.target = target;
  s.stream = stream;
  s.site = site;
  TaskNodePod& p = s.pod;
  p.kernel = kernel;
  p.domain = domain;
  p.pool = pool;
  p.stream = static_cast<StreamId>(stream);
  p.priority = priority;
  // Where it will wait when ready: its target worker, else its pool's queue.
  const int pi = rules::pool_index(static_cast<uint8_t>(pool));
  if (target >= 0) {
    const std::vector<int>& ws = m.pool_workers[pi];
    const int w = rules::target_worker(target, ws.empty() ? m.pool_workers[2] : ws);
    s.queue = w;
    p.affinity = static_cast<TargetId>(w);
  } else {
    s.queue = m.nworkers + pi;
  }
  ++m.pool_tasks[pi];
  if (stream != m.last_stream) {
    m.streams.insert(stream);
    m.last_stream = stream;
  }
  TaskBuilder t;
  t.pod_ = &p;
  t.coords_ = s.coords;
  t.slot_ = id;
  return t;
}

void Builder::submit(TaskBuilder& t) {
  Impl& m = *impl_;
  const uint32_t id = t.pod_->id;
  Slot& s = m.slot(id);
  if (m.issue_ctx != nullptr) m.pipeline_task(id, s);
  m.scopes.created(id);
  if (m.events.on) m.events.created(id, s.stream);
  m.raw.clear();
  m.waw.clear();
  m.war.clear();
  for (int i = 0; i < s.pod.num_io; ++i)
    m.tmap.access(s.pod.io[i].region, s.pod.io[i].access, id, m.raw, m.waw, m.war);
  std::vector<uint64_t>& ps = m.preds;
  ps.clear();
  for (uint32_t f : m.scopes.current()) ps.push_back(pack(f, kStructural));
  if (m.events.on)
    for (uint32_t f : m.event_preds) ps.push_back(pack(f, kStructural));
  for (uint32_t p : m.raw) ps.push_back(pack(p, kRaw));
  for (uint32_t p : m.waw) ps.push_back(pack(p, kWaw));
  for (uint32_t p : m.war) ps.push_back(pack(p, kWar));
  m.first_reason.filter(ps, id, m.edge_kinds);
  if (m.record) m.record_node(id);
  const int32_t nwired = m.link(ps, id);
  m.building = -1;
  if (m.batch > 0) {
    m.held.push_back(id);
    if (static_cast<int64_t>(m.held.size()) >= m.batch) m.flush_batch();
  } else if (m.slow_issue) {
    m.time_release(id);
  } else if (nwired == 0) {
    // Nothing to wait for, and no worker knows this task yet: ready now, without an atomic
    // read-modify-write.
    s.pending.store(0, std::memory_order_relaxed);
    m.push_ready(id);
  } else {
    m.release(id);
  }
  if (m.cfg.timing == Timing::RateLimit && m.cfg.timing_n > 0) {
    // At most timing_n tasks per millisecond since the start.
    const auto due = m.start + std::chrono::microseconds(m.ntasks * 1000 / m.cfg.timing_n);
    while (std::chrono::steady_clock::now() < due) std::this_thread::yield();
  }
}

void Builder::enter_ordered() { impl_->scopes.enter(); }

void Builder::order_point() {
  if (!impl_->scopes.point()) fail("order_point() outside an ordered scope");
}

void Builder::exit_ordered() {
  if (!impl_->scopes.exit()) fail("exit_ordered() without enter_ordered()");
}

void Builder::use_events() {
  if (impl_->events.on) return;
  if (impl_->ntasks > 0) fail("use_events() after the first task");
  impl_->events.on = true;
}

void Builder::event_record(const char* event, int64_t stream) {
  Impl& m = *impl_;
  if (!m.events.on) fail("event_record() without use_events()");
  m.events.record(event, stream == kAllStreams, stream,
                  [&m](const std::vector<uint32_t>& nodes) { return m.barrier(nodes); });
}

void Builder::event_wait(const char* event, int64_t stream) {
  if (!impl_->events.on) fail("event_wait() without use_events()");
  impl_->events.wait(event, stream == kAllStreams, stream);
}

bool Builder::event_query(const char* event) const { return impl_->events.query(event); }

int64_t Builder::num_tasks() const { return impl_->ntasks; }

namespace host {

namespace {
// Sites of tasks whose coordinates a pipeline merged (a message's, the task's, replica): made
// once per list of names and kernel, kept for the library's lifetime (a run's records name
// them after the run).
struct MergedSite {
  std::vector<const char*> names;
  TaskSite site;
};
std::mutex g_sites_m;
std::deque<MergedSite> g_sites;

const TaskSite* merged_site(KernelId kernel, const std::vector<const char*>& names) {
  std::lock_guard<std::mutex> g(g_sites_m);
  for (const MergedSite& m : g_sites) {
    if (m.site.kernel != kernel || m.names.size() != names.size()) continue;
    bool same = true;
    for (size_t i = 0; i < names.size() && same; ++i) same = strcmp(m.names[i], names[i]) == 0;
    if (same) return &m.site;
  }
  g_sites.push_back(MergedSite{names, TaskSite{}});
  MergedSite& m = g_sites.back();
  m.site = TaskSite{kernel, static_cast<int32_t>(m.names.size()), m.names.data()};
  return &m.site;
}
}  // namespace

void set_issue_context(Builder& b, IssueContext* c) { b.impl()->issue_ctx = c; }
void swap_scopes(Builder& b, order::Scopes& s) { std::swap(b.impl()->scopes, s); }
void flush_issue(Builder& b) { b.impl()->flush(); }
void start_workers(Builder& b) { b.impl()->wake_workers(); }
void fail_run(Builder& b, const std::string& what, int code) { b.impl()->set_error(what, code); }
void wait_nodes(Builder& b, const std::vector<uint32_t>& ids) {
  Builder::Impl& m = *b.impl();
  m.wait_until(
      [&m, &ids] {
        for (uint32_t n : ids)
          if (!m.node_done(n)) return false;
        return true;
      },
      false);
}

}  // namespace host

// A task of a pipeline process: remembered for its waits, named by its merged coordinates.
void Builder::Impl::pipeline_task(uint32_t id, Slot& s) {
  host::IssueContext& c = *issue_ctx;
  c.issued.push_back(id);
  if (c.names.empty() && c.replica < 0) return;
  const TaskSite* site = s.site;
  const int own = site != nullptr ? site->num_coords : 0;
  std::vector<const char*> names;
  int64_t values[kMaxCoords + 1];
  auto add = [&](const char* name, int64_t v) {
    if (names.size() >= static_cast<size_t>(kMaxCoords))
      fail("a pipeline task has more coordinates than the ABI holds (coordinates, limit)",
           static_cast<int64_t>(names.size()) + 1, kMaxCoords);
    values[names.size()] = v;
    names.push_back(name);
  };
  for (size_t i = 0; i < c.names.size(); ++i) {
    bool shadowed = false;
    for (int j = 0; j < own && !shadowed; ++j) shadowed = strcmp(site->coord_names[j], c.names[i]) == 0;
    if (!shadowed) add(c.names[i], c.values[i]);
  }
  for (int j = 0; j < own; ++j) add(site->coord_names[j], s.coords[j]);
  if (c.replica >= 0) add("replica", c.replica);
  for (size_t i = 0; i < names.size(); ++i) s.coords[i] = values[i];
  s.site = host::merged_site(static_cast<KernelId>(s.pod.kernel), names);
  if (c.replica >= 0 && c.keys != nullptr)
    place(s, *c.keys, Coords{names.data(), values, static_cast<int>(names.size())});
}

// A message's task, placed by the schedule's keys at receipt (runtime/csp.py's rules: as
// lowering/cpu's PlacementKeys), where the sender left the values unset.
void Builder::Impl::place(Slot& s, const ReceiptKeys& k, const Coords& c) {
  TaskNodePod& p = s.pod;
  int64_t v = 0;
  ExecPool pool = p.pool;
  if (k.threshold_key != nullptr && k.threshold_key(c, v))
    pool = static_cast<uint64_t>(v) < static_cast<uint64_t>(k.threshold) ? k.below : k.above;
  int64_t target = s.target;
  if (target < 0 && k.dispatch == ReceiptDispatch::Affinity) {
    if (!c.get(k.affinity_axis, target)) target = -1;
  } else if (target < 0 && k.dispatch_key != nullptr && k.dispatch_key(c, v)) {
    target = k.dispatch == ReceiptDispatch::Hash
                 ? static_cast<int64_t>(static_cast<uint64_t>(v) * 2654435761ull % (1ull << 32))
                 : v;
  }
  if (s.stream == 0 && k.stream_key != nullptr && k.stream_key(c, v)) {
    s.stream = v;
    p.stream = static_cast<StreamId>(v);
    streams.insert(v);
  }
  if (p.priority == 0 && k.priority_key != nullptr && k.priority_key(c, v)) p.priority = v;
  --pool_tasks[rules::pool_index(static_cast<uint8_t>(p.pool))];
  p.pool = pool;
  const int pi = rules::pool_index(static_cast<uint8_t>(pool));
  ++pool_tasks[pi];
  s.target = target;
  if (target >= 0) {
    const std::vector<int>& ws = pool_workers[pi];
    const int w = rules::target_worker(target, ws.empty() ? pool_workers[2] : ws);
    s.queue = w;
    p.affinity = static_cast<TargetId>(w);
  } else {
    s.queue = nworkers + pi;
    p.affinity = kAnyTarget;
  }
}

[[noreturn]] void fail(const char* what, int64_t a, int64_t b) {
  char buf[320];
  snprintf(buf, sizeof buf, "%s (%lld, %lld)", what, static_cast<long long>(a),
           static_cast<long long>(b));
  throw RunError(buf, 1);
}

// ------------------------------------------------------------------------- worker pool

namespace host {

// Worker threads kept from one run to the next. Starting a thread and joining it cost a run
// ~0.05 ms on the 2-vCPU VM of docs/PERFORMANCE.md (clone, the first switch into the new
// thread, its exit; a 110-task run took ~0.1 ms in all), a tenth of a 1k-task run: a kept
// thread is woken instead (one futex wake) and reports back on a condition variable. Thread
// i runs worker i of each run that has more than i workers; a run finds the pool busy (another
// thread's run) or needing more than kPoolThreads threads and starts its own threads, as
// before. An idle thread exits after kPoolIdle (the highest first), so a process that loaded
// many programs does not keep their threads. The pool belongs to one process: after a fork,
// the child makes a new one (the parent's threads do not exist there). One pool per loaded
// library (g_pool has internal linkage: as a static local of the inline acquire(), it was a
// GNU unique symbol, one object for every host library of the process, even libraries built
// from another version of this file, whose WorkerPool may differ).
class WorkerPool;
namespace {
std::mutex g_pool_m;
WorkerPool* g_pool = nullptr;  // never freed: detached threads may wait on it
}  // namespace

class WorkerPool {
 public:
  static constexpr int kPoolThreads = 16;
  static constexpr std::chrono::milliseconds kPoolIdle{1000};

  // The pool of this process, held by the caller until wait(); null when another run holds it.
  static WorkerPool* acquire() {
    std::lock_guard<std::mutex> g(g_pool_m);
    if (g_pool == nullptr || g_pool->pid_ != getpid()) g_pool = new WorkerPool();
    if (!g_pool->busy_.try_lock()) return nullptr;
    return g_pool;
  }

  // Runs fn(ctx, w) for w in [0, n) on the kept threads; false (and the pool released) when
  // they cannot run it: too many workers, or a thread could not be started.
  // notify_now: wake the kept threads now; otherwise the run is reserved to the caller: no
  // kept thread takes it (not even one woken by chance) until notify(), and run_untaken runs
  // all of it if notify() never came.
  bool start(int n, void (*fn)(void*, int), void* ctx, bool notify_now = true) {
    if (n > kPoolThreads) {
      busy_.unlock();
      return false;
    }
    std::unique_lock<std::mutex> lk(m_);
    try {
      while (threads_ < n) {
        const int i = threads_;
        if (static_cast<int>(cvs_.size()) <= i) {
          cvs_.emplace_back(new std::condition_variable());
          taken_.push_back(0);
        }
        std::thread(&WorkerPool::loop, this, i, gen_).detach();
        ++threads_;
      }
    } catch (const std::exception&) {
      lk.unlock();
      busy_.unlock();
      return false;
    }
    ++gen_;
    n_ = n;
    left_ = n;
    fn_ = fn;
    ctx_ = ctx;
    reserved_ = !notify_now;
    lk.unlock();
    if (notify_now) wake_threads();
    return true;
  }

  // A reserved run (start with notify_now false) released to the kept threads, woken.
  void notify() {
    {
      std::lock_guard<std::mutex> g(m_);
      reserved_ = false;
    }
    wake_threads();
  }
  static void notify_cb(void* pool) { static_cast<WorkerPool*>(pool)->notify(); }

  // Runs on the calling thread each fn of the started run that no kept thread has taken
  // yet: on one CPU, a woken thread runs only when the caller blocks, so the caller that is
  // done building runs worker i itself instead of switching to the thread and back (~10 us
  // each way on the benchmark's VM); the thread, when it wakes, finds its turn taken.
  // here: the fn to call on this thread instead (the same work, the caller's state kept).
  void run_untaken(void (*here)(void*, int)) {
    std::unique_lock<std::mutex> lk(m_);
    reserved_ = false;  // a thread that wakes now finds its turn taken
    for (int i = 0; i < n_; ++i) {
      if (taken_[static_cast<size_t>(i)] == gen_) continue;
      taken_[static_cast<size_t>(i)] = gen_;
      lk.unlock();
      here(ctx_, i);
      lk.lock();
      --left_;
    }
  }

  // Until every fn of the started run has returned; then the pool is free.
  void wait() {
    {
      std::unique_lock<std::mutex> lk(m_);
      done_cv_.wait(lk, [this] { return left_ == 0; });
    }
    busy_.unlock();
  }

 private:
  WorkerPool() : pid_(getpid()) {}

 public:
  static void name_thread(int w) {
    char name[16];
    snprintf(name, sizeof name, "pto-wsp-w%d", w);
    pthread_setname_np(pthread_self(), name);
  }

 private:
  void wake_threads() {
    for (int i = 0; i < n_; ++i) cvs_[static_cast<size_t>(i)]->notify_one();
  }

  void loop(int i, uint64_t seen) {
    name_thread(i);
    std::unique_lock<std::mutex> lk(m_);
    std::condition_variable& cv = *cvs_[static_cast<size_t>(i)];
    while (true) {
      if (gen_ == seen || i >= n_ || reserved_) {
        if (i >= n_) seen = gen_;  // a run without worker i: skipped (a reserved one waited for)
        if (!cv.wait_for(lk, kPoolIdle,
                         [&] { return gen_ != seen && i < n_ && !reserved_; })) {
          // Idle: the highest thread leaves (a run holding m_ in start sees the count).
          if (i == threads_ - 1 && gen_ == seen) {
            --threads_;
            return;
          }
          continue;
        }
      }
      seen = gen_;
      if (taken_[static_cast<size_t>(i)] == gen_) continue;  // run_untaken ran it
      taken_[static_cast<size_t>(i)] = gen_;
      void (*fn)(void*, int) = fn_;
      void* ctx = ctx_;
      lk.unlock();
      fn(ctx, i);
      lk.lock();
      if (--left_ == 0) done_cv_.notify_one();
    }
  }

  std::mutex busy_;  // held by the run using the pool, from acquire to wait
  std::mutex m_;
  std::vector<std::unique_ptr<std::condition_variable>> cvs_;  // per thread
  std::condition_variable done_cv_;
  std::vector<uint64_t> taken_;  // per thread: the last run whose fn i was taken
  uint64_t gen_ = 0;  // runs started
  bool reserved_ = false;  // the run started is the caller's until notify() (see start)
  int n_ = 0, left_ = 0, threads_ = 0;
  void (*fn_)(void*, int) = nullptr;
  void* ctx_ = nullptr;
  const pid_t pid_;
};

}  // namespace host

}  // namespace wsp
}  // namespace pto

// ---------------------------------------------------------------------------------- C API

using pto::wsp::Builder;

extern "C" {

// One program argument from the launcher (Python ctypes): a tensor or a scalar.
struct PtoWspHostArg {
  int32_t kind;  // 0 tensor, 1 scalar
  int32_t rank;
  int32_t elem_bytes;
  int32_t reserved;
  int64_t scalar;
  void* data;
  int64_t shape[16];
};

struct PtoWspHostOptions {
  int32_t workers;  // 0: the config's workers, else 2
  int32_t record;   // 1: record the graph (arrays below)
  int64_t ring_capacity;  // 0: 4096 (or the task window)
};

struct PtoWspHostStats {
  int64_t num_nodes, num_tasks, num_barriers, num_edges, num_wired_edges;
  int64_t num_workers, num_streams, window_stalls, ring_stalls, max_live;
  int64_t build_ns, total_ns;
  int64_t pool_tasks[3];
  int64_t edge_kinds[4];  // structural, raw, waw, war
  int64_t build_cpu_ns;   // CPU time of the orchestrating thread
  int64_t worker_cpu_ns;  // CPU time of the workers, summed
};

struct PtoWspRun {
  PtoWspHostStats stats;
  pto::wsp::Records rec;
  std::vector<int64_t> worker_tasks;
  std::vector<const pto::wsp::TaskSite*> sites;
};

void* pto_wsp_run_create() { return new PtoWspRun(); }

void pto_wsp_run_destroy(void* run) { delete static_cast<PtoWspRun*>(run); }

int32_t pto_wsp_abi_max_rank() { return pto::wsp::kMaxRank; }

static int64_t thread_cpu_ns() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

static void copy_error(char* err, int64_t errlen, const std::string& what) {
  if (err == nullptr || errlen <= 0) return;
  const size_t n = std::min<size_t>(what.size(), static_cast<size_t>(errlen - 1));
  memcpy(err, what.data(), n);
  err[n] = 0;
}

int32_t pto_wsp_run(void* run_handle, const char* program, const PtoWspHostArg* args,
                    int32_t nargs, const PtoWspHostOptions* opt, char* err, int64_t errlen) {
  using namespace pto::wsp;
  PtoWspRun& run = *static_cast<PtoWspRun*>(run_handle);
  const ProgramInfo* info = nullptr;
  for (int i = 0; i < pto_wsp_num_programs; ++i)
    if (strcmp(pto_wsp_programs[i].name, program) == 0) info = &pto_wsp_programs[i];
  if (info == nullptr) {
    copy_error(err, errlen, std::string("no program @") + program);
    return 3;
  }
  if (nargs != info->num_args) {
    copy_error(err, errlen, "@" + std::string(program) + " takes " +
                                std::to_string(info->num_args) + " arguments, got " +
                                std::to_string(nargs));
    return 3;
  }
  std::vector<TensorArg> tensors(static_cast<size_t>(nargs));
  std::vector<ArgValue> values(static_cast<size_t>(nargs));
  for (int i = 0; i < nargs; ++i) {
    const ArgInfo& ai = info->args[i];
    const PtoWspHostArg& a = args[i];
    const std::string what = "@" + std::string(program) + " argument '" + ai.name + "'";
    if (ai.kind == kArgScalar) {
      if (a.kind != 1) {
        copy_error(err, errlen, what + " is a scalar");
        return 3;
      }
      values[i].scalar = a.scalar;
      continue;
    }
    if (a.kind != 0 || a.rank != ai.rank || a.elem_bytes != ai.elem_bytes ||
        a.rank > kMaxRank) {
      copy_error(err, errlen, what + " needs a tensor of rank " + std::to_string(ai.rank) +
                                  " with " + std::to_string(ai.elem_bytes) + "-byte elements");
      return 3;
    }
    TensorArg& t = tensors[i];
    t.data = static_cast<uint8_t*>(a.data);
    t.rank = a.rank;
    t.elem_bytes = a.elem_bytes;
    t.index = i;
    int64_t stride = 1;
    for (int d = kMaxRank - 1; d >= 0; --d) {
      t.shape[d] = d < a.rank ? a.shape[d] : 1;
      if (d < a.rank && ai.static_shape[d] >= 0 && ai.static_shape[d] != a.shape[d]) {
        copy_error(err, errlen, what + ": dimension " + std::to_string(d) + " is " +
                                    std::to_string(a.shape[d]) + ", the program says " +
                                    std::to_string(ai.static_shape[d]));
        return 3;
      }
      t.mem_strides[d] = d < a.rank ? stride : 0;
      if (d < a.rank) stride *= a.shape[d];
    }
    values[i].view = View::root(t);
  }
  const RuntimeConfig cfg = info->config();
  int workers = opt != nullptr && opt->workers > 0
                    ? opt->workers
                    : (cfg.workers > 0 ? static_cast<int>(std::min<int64_t>(cfg.workers, 64)) : 2);
  std::unique_ptr<Builder::Impl> impl;
  try {
    impl.reset(new Builder::Impl(cfg, workers, opt != nullptr && opt->record != 0,
                                 opt != nullptr ? static_cast<uint64_t>(opt->ring_capacity) : 0));
  } catch (const RunError& e) {
    copy_error(err, errlen, e.what());
    return e.code;
  } catch (const std::exception& e) {
    copy_error(err, errlen, e.what());
    return 2;
  }
  Builder::Impl& m = *impl;
  Builder builder(&m);
  for (int i = 0; i < nargs; ++i)
    if (info->args[i].kind == kArgTensor)
      m.tmap.declare(reinterpret_cast<uint64_t>(tensors[i].data), tensors[i].rank,
                     tensors[i].shape);
  m.start = std::chrono::steady_clock::now();
  const int64_t cpu0 = thread_cpu_ns();
  std::vector<int64_t> worker_cpu(static_cast<size_t>(workers), 0);
  struct WorkerJob {
    Builder::Impl* m;
    int64_t* cpu;
    static void run(void* ctx, int w) {
      const WorkerJob& job = *static_cast<const WorkerJob*>(ctx);
      const int64_t t0 = thread_cpu_ns();
      job.m->worker(w);
      job.cpu[w] = thread_cpu_ns() - t0;
    }
    // Worker w on the orchestrating thread (WorkerPool::run_untaken): its thread-locals as a
    // worker's, restored after.
    static void run_here(void* ctx, int w) {
      const int64_t idx = host::block_idx, num = host::block_num;
      const bool on = host::on_worker;
      run(ctx, w);
      host::block_idx = idx;
      host::block_num = num;
      host::on_worker = on;
    }
  } job{&m, worker_cpu.data()};
  // Kept threads (host::WorkerPool), or threads of this run when the pool is busy.
  host::WorkerPool* pool = host::WorkerPool::acquire();
  // A one-worker run wakes its kept thread only once the build has Impl::kWakeAt tasks, or
  // before the orchestrator waits for a completion: a smaller run has its worker run here
  // after the build (run_untaken) — as a pinned run did anyway (the woken thread runs only
  // once the orchestrator blocks), without the wake-up's system call (~1-2 us).
  const bool defer = workers == 1;
  if (pool != nullptr && !pool->start(workers, &WorkerJob::run, &job, !defer)) pool = nullptr;
  if (pool != nullptr && defer) {
    m.wake_fn = &host::WorkerPool::notify_cb;
    m.wake_ctx = pool;
    m.solo = true;
  }
  std::vector<std::thread> threads;
  if (pool == nullptr)
    for (int w = 0; w < workers; ++w)
      threads.emplace_back([&job, w] {
        host::WorkerPool::name_thread(w);
        WorkerJob::run(&job, w);
      });
  try {
    info->entry(builder, values.data());
  } catch (const RunError& e) {
    if (e.what()[0] != 0) m.set_error(e.what(), e.code);
  } catch (const std::exception& e) {
    m.set_error(std::string("@") + program + ": " + e.what(), 1);
  }
  // Drain: release a task left half-built by an error, and any held batch.
  if (m.building >= 0) {
    m.release(static_cast<uint32_t>(m.building));
    m.building = -1;
  }
  m.flush();
  m.build_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                   std::chrono::steady_clock::now() - m.start)
                   .count();
  const int64_t build_cpu = thread_cpu_ns() - cpu0;
  m.total_nodes.store(m.allocated, std::memory_order_release);
  m.build_done.store(true, std::memory_order_release);
  if (m.sleepers.load(std::memory_order_seq_cst) > 0 ||
      m.holders.load(std::memory_order_seq_cst) > 0) {
    // Whatever is queued now runs without the orchestrator: no sleeper may miss it.
    std::lock_guard<std::mutex> g(m.wait_m);
    m.wait_cv.notify_all();
  }
  if (pool != nullptr) {
    // The workers no kept thread has taken yet run here (run_untaken). A worker returns only
    // when the run is finished (the last completion also wakes the sleepers): waiting for the
    // pool's report is waiting for the end, with one wake-up (waiting for finished() first,
    // then for the report, took a second pair of switches: ~10 us each on one vCPU of the
    // benchmark's VM).
    pool->run_untaken(&WorkerJob::run_here);
    pool->wait();
  } else {
    {
      std::unique_lock<std::mutex> lk(m.done_m);
      while (!m.finished()) m.done_cv.wait_for(lk, std::chrono::milliseconds(1));
    }
    {
      std::lock_guard<std::mutex> g(m.wait_m);
      m.wait_cv.notify_all();
    }
    for (std::thread& th : threads) th.join();
  }
  const int64_t total_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                               std::chrono::steady_clock::now() - m.start)
                               .count();
  PtoWspHostStats& st = run.stats;
  st.num_nodes = static_cast<int64_t>(m.allocated);
  st.num_tasks = m.ntasks;
  st.num_barriers = static_cast<int64_t>(m.allocated) - m.ntasks;
  st.num_edges = m.edges;
  st.num_wired_edges = m.wired;
  st.num_workers = workers;
  st.num_streams = static_cast<int64_t>(m.streams.size());
  st.window_stalls = m.window_stalls;
  st.ring_stalls = m.ring_stalls;
  st.max_live = m.max_live;
  st.build_ns = m.build_ns;
  st.total_ns = total_ns;
  for (int i = 0; i < 3; ++i) st.pool_tasks[i] = m.pool_tasks[i];
  for (int i = 0; i < 4; ++i) st.edge_kinds[i] = m.edge_kinds[i];
  st.build_cpu_ns = build_cpu;
  st.worker_cpu_ns = 0;
  for (int64_t c : worker_cpu) st.worker_cpu_ns += c;
  run.worker_tasks.clear();
  for (int w = 0; w < workers; ++w) run.worker_tasks.push_back(m.worker_tasks[static_cast<size_t>(w) * 8]);
  if (m.record) {
    m.rec.start.assign(m.allocated, -1);
    m.rec.worker.assign(m.allocated, -1);
    for (size_t w = 0; w < m.starts.size(); ++w)
      for (const auto& e : m.starts[w]) {
        m.rec.start[e.first] = static_cast<int64_t>(e.second);
        m.rec.worker[e.first] = static_cast<int64_t>(w);
      }
  }
  run.rec = std::move(m.rec);
  run.sites = m.sites;
  if (!m.error.empty()) {
    copy_error(err, errlen, m.error);
    return m.error_code;
  }
  return 0;
}

void pto_wsp_run_stats(void* run, PtoWspHostStats* out) {
  *out = static_cast<PtoWspRun*>(run)->stats;
}

// The recorded arrays, by number: 0 kind u8, 1 kernel i32, 2 pool u8, 3 domain u8,
// 4 target i64, 5 stream i64, 6 priority i64, 7 edge_src i64, 8 edge_dst i64, 9 edge_kind u8,
// 10 args_begin i64, 11 args i64, 12 coords_begin i64, 13 coords i64, 14 regions_begin i64,
// 15 regions i64, 16 site i32, 17 worker_tasks i64, 18 issue i64, 19 stream_key i64, 20 lane
// i64, 21 start i64, 22 worker i64 (per node; -1 for barriers and where not set). Copies at most `capacity` elements into
// `out` (if not null) and returns the array's length.
int64_t pto_wsp_run_array(void* run_handle, int32_t which, void* out, int64_t capacity) {
  PtoWspRun& run = *static_cast<PtoWspRun*>(run_handle);
  pto::wsp::Records& r = run.rec;
  const void* data = nullptr;
  size_t n = 0, size = 0;
  auto pick = [&](const auto& v) {
    data = v.data();
    n = v.size();
    size = sizeof(v[0]);
  };
  switch (which) {
    case 0: pick(r.kind); break;
    case 1: pick(r.kernel); break;
    case 2: pick(r.pool); break;
    case 3: pick(r.domain); break;
    case 4: pick(r.target); break;
    case 5: pick(r.stream); break;
    case 6: pick(r.priority); break;
    case 7: pick(r.edge_src); break;
    case 8: pick(r.edge_dst); break;
    case 9: pick(r.edge_kind); break;
    case 10: pick(r.args_begin); break;
    case 11: pick(r.args); break;
    case 12: pick(r.coords_begin); break;
    case 13: pick(r.coords); break;
    case 14: pick(r.regions_begin); break;
    case 15: pick(r.regions); break;
    case 16: pick(r.site); break;
    case 17: pick(run.worker_tasks); break;
    case 18: pick(r.issue); break;
    case 19: pick(r.stream_key); break;
    case 20: pick(r.lane); break;
    case 21: pick(r.start); break;
    case 22: pick(r.worker); break;
    default: return -1;
  }
  if (out != nullptr && n > 0)
    memcpy(out, data, std::min<size_t>(n, static_cast<size_t>(capacity)) * size);
  return static_cast<int64_t>(n);
}

// A recorded site: its kernel id (coord < 0) or the name of its coord-th coordinate.
const char* pto_wsp_run_site_coord(void* run_handle, int32_t site, int32_t coord) {
  PtoWspRun& run = *static_cast<PtoWspRun*>(run_handle);
  if (site < 0 || static_cast<size_t>(site) >= run.sites.size()) return nullptr;
  const pto::wsp::TaskSite* s = run.sites[static_cast<size_t>(site)];
  if (coord < 0 || coord >= s->num_coords) return nullptr;
  return s->coord_names[coord];
}

int32_t pto_wsp_num_programs_get() { return pto_wsp_num_programs; }
const char* pto_wsp_program_name(int32_t i) {
  return i >= 0 && i < pto_wsp_num_programs ? pto_wsp_programs[i].name : nullptr;
}

}  // extern "C"
