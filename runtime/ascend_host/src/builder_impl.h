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
//
// This header holds the builder's state (Builder::Impl) that its translation units share:
// builder.cpp (node creation, wiring, records, issue), executor.cpp (workers: take, run,
// complete) and runtime.cpp (the kept worker threads and the launcher's C API).
#pragma once

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
#include "ready_queue.h"
#include "tensormap.h"

extern "C" __global__ __aicore__ void pto_wsp_aicore_dispatch(GM_ADDR task);

namespace pto {
namespace wsp {

namespace host {
extern thread_local bool on_worker;  // the calling thread is a worker (executor.cpp)

// Node and edge kinds, and the rules of structural order: order.h, shared with the native core.
using order::kBarrier;
using order::kRaw;
using order::kStructural;
using order::kTask;
using order::kWar;
using order::kWaw;
using order::pack;

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

}  // namespace host

using namespace host;

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
  std::vector<int> pool_workers[3];  // who takes vector, cube, any tasks (rules::pool_candidates)
  // Where a ready task waits: its target worker's queue, else its pool's.
  int32_t queue_of(int64_t target, int pool) const {
    return target >= 0 ? rules::target_worker(target, pool_workers[pool]) : nworkers + pool;
  }

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

  // A run's kept threads, not woken yet (see pto_wsp_run): woken by wake_workers once the
  // build has kWakeAt tasks or before the orchestrator waits for a completion. Until then no
  // thread may take the run (WorkerPool::start): the run has one thread, the orchestrator's,
  // which also runs every worker's tasks after the build (run_solo) if nothing woke the
  // threads. solo says so: the wiring, completions, pending counts and ready queues then do
  // without locks and read-modify-writes (plain loads and stores of the same fields; the
  // pool's mutex orders them before a thread's first look, if woken).
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
  bool run_solo(int w);
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

}  // namespace wsp
}  // namespace pto
