// pto-wsp native runtime core: the virtual-time scheduler (cycles mode), the one statement of
// the dispatch rules for main programs and pipelines (docs/native.md "Scheduling a graph in
// virtual time").
//
// The rules are runtime/engine.py's: a node joins at its creation time with the barriers
// created just before it; release goes through batch_deps and timing (immediate, batched,
// interleaved, rate_limit); issue links a task into its lane (streams); ready tasks wait in
// their target worker's, their pool's or (work_steal) a worker's queue, ordered by (priority,
// issue number); pipeline_depth gates tasks per scope; completions of one instant are handled
// together, then idle workers pick, lowest first. Stalls are summed in the engine's order, so
// the results are the engine's to the bit. The queue, stream and lane rules are
// schedule_rules.h's, shared with the Ascend host runtime.
//
// Two callers drive it. schedule.cpp feeds a whole built graph (its fanout in CSR) at the
// generator's pace; a pipeline run (csp_pipe.h) adds nodes and edges as its processes create
// them, advances the clock one instant at a time and hears of starts and completions through
// PtoSchedHooks.
#pragma once

#include <stdint.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "pto_wsp_core.h"
#include "schedule_rules.h"

namespace rules = pto::wsp::rules;

namespace sched {

// Rows of the per-node outputs (PtoSchedOut's ni and nf).
enum { kWorker, kIseq, kSof, kLane, kNI };
enum { kStart, kEnd, kIssuedT, kDepsT, kCreatedT, kNF };
// Int counters (PtoSchedOut's s, its layout kept: the host reads some by index). kPlain: the
// plain loop ran (schedule_plain.cpp).
enum {
  kIssued, kRR, kLastC, kSteals, kLive, kCreated, kCompleted, kNCreated, kEseq, kPlain, kBdn,
  kTbn, kSpanN, kOrdN, kNIdle, kOldest, kSinceGc, kGcN, kGrown, kGrownWait, kWFull, kNS
};
enum { kNow, kNextIssue, kGen, kNR = 8 };
// Stall causes (the engine's STALL_CAUSES order; a pipeline adds its channels' and events').
enum { kStDeps, kStStream, kStDepth, kStIssue, kStWindow };
enum { kImmediate, kRate, kBatched, kInterleaved };
enum { kEvComplete, kEvIssue };

// A ready task's place in its queue: lower priority first, then issue order.
struct Ready {
  int64_t prio, seq, tid;
  bool operator<(const Ready& o) const { return prio < o.prio || (prio == o.prio && seq < o.seq); }
};
// (comparators as types: std's heap functions inline them)
struct Later {
  template <class T>
  bool operator()(const T& a, const T& b) const { return b < a; }
};

// A ready queue: a FIFO of the tasks pushed in ascending order (most of them) and a heap of
// the others; its head is the smaller of the two heads.
class Queue {
 public:
  void clear() {
    ring_.clear();
    head_ = 0;
    heap_.clear();
  }
  size_t size() const { return ring_.size() - head_ + heap_.size(); }
  void push(const Ready& r) {
    if (head_ == ring_.size() || ring_.back() < r) {
      ring_.push_back(r);
    } else {
      heap_.push_back(r);
      std::push_heap(heap_.begin(), heap_.end(), Later());
    }
  }
  const Ready& top() const {
    if (head_ < ring_.size() && (heap_.empty() || ring_[head_] < heap_.front()))
      return ring_[head_];
    return heap_.front();
  }
  Ready pop() {
    if (head_ < ring_.size() && (heap_.empty() || ring_[head_] < heap_.front())) {
      Ready r = ring_[head_++];
      if (head_ == ring_.size()) {
        ring_.clear();
        head_ = 0;
      }
      return r;
    }
    std::pop_heap(heap_.begin(), heap_.end(), Later());
    Ready r = heap_.back();
    heap_.pop_back();
    return r;
  }

 private:
  std::vector<Ready> ring_, heap_;
  size_t head_ = 0;
};

// The plain loop's ready queue (schedule_plain.cpp): task ids, lowest first (ids pushed
// ascending in a FIFO from `head` on, the others in a min-heap).
struct PlainQueue {
  std::vector<int32_t> fifo, heap;
  size_t head = 0;
};

struct Event {
  double t;
  int64_t seq;
  int32_t kind;
  int32_t worker;
  int64_t tid;
};
struct EventLater {
  bool operator()(const Event& a, const Event& b) const {
    return a.t > b.t || (a.t == b.t && a.seq > b.seq);
  }
};

// The pending events, taken in (time, sequence) order. Completions, one a busy worker (a few),
// sit in a small array sorted latest first: a heap's sifting cost more than the insertion.
// rate_limit's issues are due in the order they were made (each due no sooner than the last),
// so they wait in a FIFO.
class Timeline {
 public:
  void clear() {
    done_.clear();
    issues_.clear();
    head_ = 0;
  }
  bool empty() const { return done_.empty() && head_ == issues_.size(); }
  // (an event written field by field in its place: one built and copied at once stalls on
  // store forwarding)
  void push(double t, int64_t seq, int32_t kind, int32_t worker, int64_t tid) {
    if (kind == kEvIssue) {
      set(issues_.emplace_back(), t, seq, kind, worker, tid);
      return;
    }
    done_.emplace_back();
    size_t i = done_.size() - 1;
    // (seq is the newest: the events due at t or sooner come after it)
    for (; i > 0 && done_[i - 1].t <= t; --i) done_[i] = done_[i - 1];
    set(done_[i], t, seq, kind, worker, tid);
  }
  const Event& top() const { return issue_first() ? issues_[head_] : done_.back(); }
  // Drop the head (read it with top() first: a copy read at once stalls on store forwarding).
  void pop() {
    if (!issue_first()) {
      done_.pop_back();
      return;
    }
    if (++head_ == issues_.size()) {
      issues_.clear();
      head_ = 0;
    }
  }

 private:
  bool issue_first() const {
    return head_ < issues_.size() && (done_.empty() || EventLater()(done_.back(), issues_[head_]));
  }
  static void set(Event& e, double t, int64_t seq, int32_t kind, int32_t worker, int64_t tid) {
    e.t = t;
    e.seq = seq;
    e.kind = kind;
    e.worker = worker;
    e.tid = tid;
  }
  std::vector<Event> done_, issues_;
  size_t head_ = 0;
};

}  // namespace sched

// The lock the graph's arrays move under while a scheduler reads them (stream.cpp): the
// scheduler holds `m` while it reads; lock() and unlock() are the builder's, around a move,
// and say so in `moving`, which the scheduler looks at every few dozen nodes to let go at
// once. (A scheduler behind the build let go only when it had caught up: a first build at
// 13k, whose arrays move while the scheduler runs on fresh memory, waited 0.05-0.4 ms.)
struct PtoMoveLock {
  std::mutex m;
  std::atomic<bool> moving{false};
  void lock();  // (schedule_plain.cpp)
  void unlock() {
    m.unlock();
    moving.store(false, std::memory_order_release);
  }
};

// A graph read by the plain loop while it is built (stream.cpp, schedule_plain.cpp): the
// builder publishes how many nodes it has made, each with its edges in (grouped by
// destination, in node order) written, and the end of the build; the scheduler reads the
// arrays holding `lock.m`, and the builder takes `lock` to move one.
struct PtoSchedFeed {
  std::atomic<int64_t> published{0};  // nodes made, edges in included
  std::atomic<bool> ended{false};     // the build is over: `published` is every node
  std::atomic<bool> failed{false};    // ... and it failed: the schedule is not wanted
  PtoMoveLock lock;
  // The scheduler waiting for nodes sleeps on `bell` (a futex) once it has spun a while,
  // saying so in `sleeping`: a thread that spins holds its CPU, and one that shares it with
  // another process is then left out for a whole time slice.
  std::atomic<uint32_t> sleeping{0}, bell{0};
  // The builder's: `n` nodes are made (and the scheduler woken if it sleeps).
  void publish(int64_t n) {
    published.store(n, std::memory_order_seq_cst);
    if (sleeping.load(std::memory_order_seq_cst) != 0) ring();
  }
  // The build is over with `n` nodes: `published` final before `ended` says so.
  void end(int64_t n) {
    published.store(n, std::memory_order_seq_cst);
    ended.store(true, std::memory_order_seq_cst);
    if (sleeping.load(std::memory_order_seq_cst) != 0) ring();
  }
  void ring();  // (stream.cpp)
  // The node arrays' addresses in g (kind, pool, kernel, target; the others left) and the
  // sources of the edges in (read holding `lock.m`).
  virtual void arrays(PtoSchedGraph& g, const uint32_t*& edge_src) = 0;

 protected:
  ~PtoSchedFeed() = default;
};

// What a caller adding nodes while the scheduler runs (a pipeline) hears from it.
struct PtoSchedHooks {
  // Task `tid` starts (the functional mode runs its body here): false halts the run, and
  // nothing more starts.
  virtual bool started(int64_t tid) = 0;
  // Task `tid` completed and its successors were released.
  virtual void completed(int64_t tid) = 0;

 protected:
  ~PtoSchedHooks() = default;
};

struct PtoScheduler {
  // The graph: a whole one (schedule.cpp: fanout in CSR, fanin given) or one that grows
  // (add_nodes, add_edge: the node arrays' pointers refreshed by the caller, fanout kept here).
  PtoSchedGraph g{};
  PtoSchedGraph sorted{};  // a whole graph with its fanout rows sorted, when they were not
  std::vector<int32_t> sorted_edges;
  bool csr = true;
  PtoSchedConfig c{};
  std::vector<uint8_t> pools_;  // c.worker_pool's copy (a growing graph's caller may free it)
  int64_t W = 0;
  std::vector<std::vector<int>> cand{3};
  std::vector<uint8_t> incand;  // [3][W]
  std::vector<uint8_t> serves;  // [W][3]
  PtoSchedHooks* hooks = nullptr;
  bool halted = false;
  // Per node: what blocks it (predecessors, its issue, its lane's earlier task), predecessors
  // not done, the next task gated in its depth scope and in its lane, gated since (the
  // general loop's, not outputs); pool index, depth scope (per stream without streams: its
  // stream, densely numbered as first seen), predecessors done before it was created (CSR);
  // a growing graph's fanout as linked edge lists in creation order.
  std::vector<int32_t> blk, deps;
  std::vector<int64_t> gnext, snext;
  std::vector<double> gsince;
  std::vector<uint8_t> pidx;
  std::vector<int64_t> sdense, predone;
  std::unordered_map<int64_t, int64_t> stream_scope;
  bool keyed_scopes = false;  // pipeline_depth per stream without streams
  std::vector<int64_t> ehead, etail, enext, edst;
  std::vector<int64_t> task_ids;
  // Outputs: the caller's memory (a whole graph) or this scheduler's, grown with the graph.
  int64_t* NI[sched::kNI];
  double* NF[sched::kNF];
  int64_t *S, *trun, *order;
  double *T, *stalls, *busy;
  int64_t cap = 0;
  std::vector<int64_t> own_ni[sched::kNI], own_order, own_s;
  std::vector<double> own_nf[sched::kNF], own_r;
  // State.
  std::vector<sched::Queue> queues;  // per worker, then vector, cube, any
  std::vector<int64_t> lhead, ltail, infl, ghead, gtail, stack, bd, tb;
  std::vector<uint32_t> tkeys;
  std::vector<int64_t> tgrouped;
  std::vector<size_t> tcount;
  std::vector<uint8_t> idle;
  int64_t queued = 0;  // ready tasks in all queues (none: idle workers have nothing to pick)
  sched::Timeline events;
  std::vector<int64_t> span_cause, span_tid, gc_at, gc_old;
  std::vector<double> span_t0, span_t1;
  std::string error;
  // The plain loop's state (schedule_plain.cpp): predecessors not done per node, the queues
  // of task ids; one_priority: every task has the same priority.
  std::vector<int32_t> left;
  std::vector<sched::PlainQueue> plain_queues;
  // A streamed run's successor lists: per node its first link, per link its successor and
  // the next link (-1: none).
  std::vector<int32_t> succ_head, succ_dst, succ_next;
  bool one_priority = true;

  // A node's target, stream and priority: a NULL column is every node's default.
  int64_t target_of(int64_t v) const { return g.target != nullptr ? g.target[v] : -1; }
  int64_t stream_of(int64_t v) const { return g.stream != nullptr ? g.stream[v] : 0; }
  int64_t priority_of(int64_t v) const { return g.priority != nullptr ? g.priority[v] : 0; }
  // (without a per-node cost: its kernel's, the barriers' first)
  int64_t cost_of(int64_t v) const {
    return g.cost != nullptr ? g.cost[v] : g.kernel_cost[g.kernel[v] + 1];
  }

  // ---------------------------------------------------------------- setting up (schedule.cpp)
  bool prepare(const PtoSchedGraph* graph, const PtoSchedConfig* config, PtoSchedOut* out);
  void outputs(PtoSchedOut* out, int64_t stride);
  // A run of a graph not built yet, at most `capacity` nodes, every node costing its
  // kernel's (run_streamed): false if the loop does not take it.
  bool prepare_stream(const PtoSchedConfig* config, const int64_t* kernel_cost,
                      int64_t num_kernel_costs, PtoSchedOut* out, int64_t capacity);
  bool kernel_costs_valid();  // (prepare's, for a graph without per-node costs)
  // A graph that grows from nothing, the results kept here.
  void start(const PtoSchedConfig& config, PtoSchedHooks* h);
  void configure(const PtoSchedConfig& config);
  const PtoSchedGraph* ascending(const PtoSchedGraph* graph);
  void grow(int64_t n);
  void rows(int64_t n);
  void run();
  bool wait_window(double& gt);
  void check_drained();  // after a whole run: every task created ran
  // Whether the plain loop applies (schedule_plain.cpp), and that loop.
  bool plain() const;
  void run_plain();
  void reset_plain();
  // The plain loop over a graph read as it is built (schedule_plain.cpp): false when it
  // stopped (the caller schedules the whole graph, prepared again).
  bool run_streamed(PtoSchedFeed& f, int64_t capacity);

  // ---------------------------------------------------------------- a growing graph
  // Nodes [first, n) exist, created now (g's node arrays, set by the caller, hold them).
  void add_nodes(int64_t first, int64_t n) {
    if (n > cap) grow(n);
    init_rows(first, n - 1, T[sched::kNow]);
    for (int64_t d = first; d < n; ++d) deps[d] = 0, ehead[d] = etail[d] = -1;
  }
  // Edge s -> d (d added last, s before it): it counts while s is not done.
  void add_edge(int64_t s, int64_t d) {
    if (NF[sched::kEnd][s] >= 0) return;
    ++deps[d];
    const int64_t e = static_cast<int64_t>(edst.size());
    edst.push_back(d);
    enext.push_back(-1);
    if (etail[s] >= 0)
      enext[etail[s]] = e;
    else
      ehead[s] = e;
    etail[s] = e;
  }

  // ---------------------------------------------------------------- creating nodes
  // Nodes first..last join at time t: barriers, and a task if `last` is one (the barriers were
  // created just before it; barriers after the last task alone). The task is released, idle
  // workers dispatch, and the task window's TensorMap collection point is passed.
  void create(int64_t first, int64_t last, double t) {
    const int64_t tid = register_nodes(first, last, t);
    if (tid >= 0) release(tid);
    if (S[sched::kNIdle] > 0) dispatch_idle();
    if (tid >= 0) collect(tid + 1 - first, last + 1);
  }
  void init_rows(int64_t first, int64_t last, double t) {
    using namespace sched;  // NOLINT(build/namespaces): the row names
    for (int64_t d = first; d <= last; ++d) {
      NI[kWorker][d] = NI[kIseq][d] = -1;
      NI[kSof][d] = NI[kLane][d] = 0;
      NF[kStart][d] = NF[kEnd][d] = NF[kIssuedT][d] = -1.0;
      NF[kDepsT][d] = NF[kCreatedT][d] = t;
    }
  }
  int64_t register_nodes(int64_t first, int64_t last, double t) {
    using namespace sched;  // NOLINT(build/namespaces)
    const int64_t tid = g.kind[last] == 0 ? last : -1;
    S[kNCreated] = last + 1;
    if (csr) init_rows(first, last, t);
    for (int64_t d = first; d <= last; ++d) {
      // predecessors already done when d is created do not count
      if (csr) deps[d] = g.fanin[d] - predone[d];
      blk[d] = deps[d] + (d == tid ? 1 : 0);
      pidx[d] = static_cast<uint8_t>(rules::pool_index(g.pool[d]));
      if (keyed_scopes) sdense[d] = dense_stream(stream_of(d));
    }
    if (tid >= 0) {
      ++S[kLive];
      ++S[kCreated];
    }
    // (the barriers ready when created: one done meanwhile by another's completion is done)
    for (int64_t d = first; d <= last; ++d)
      if (d != tid && deps[d] == 0 && NF[kEnd][d] < 0) complete_node(d);
    return tid;
  }
  // The engine's TensorMap forgets the tasks before the oldest live one (a task window only).
  void collect(int64_t added, int64_t nodes) {
    using namespace sched;  // NOLINT(build/namespaces)
    if (!c.task_window) return;
    S[kSinceGc] += added;
    if (S[kSinceGc] < std::max<int64_t>(c.task_window, 1024)) return;
    S[kSinceGc] = 0;
    int64_t i = S[kOldest];
    while (i < nodes && NF[kEnd][i] >= 0.0) ++i;
    S[kOldest] = i;
    gc_at.push_back(nodes);
    gc_old.push_back(i);
    S[kGcN] = static_cast<int64_t>(gc_at.size());
  }
  int64_t dense_stream(int64_t key) {
    auto [it, fresh] = stream_scope.emplace(key, static_cast<int64_t>(infl.size()));
    if (fresh) {
      infl.push_back(0);
      ghead.push_back(-1);
      gtail.push_back(-1);
    }
    return it->second;
  }

  // ---------------------------------------------------------------- release and issue
  void release(int64_t tid) {
    if (!c.batch_deps) return time_release(tid);
    bd.push_back(tid);
    S[sched::kBdn] = static_cast<int64_t>(bd.size());
    if (static_cast<int64_t>(bd.size()) >= c.batch_deps) flush_batch();
  }
  // An ordering point: batch_deps flushes its batch there.
  void order_point() {
    if (bd.empty()) return;
    flush_batch();
    if (S[sched::kNIdle] > 0) dispatch_idle();
  }
  // The end of generation (or a generator out of work): every buffered release issues.
  void flush() {
    if (!bd.empty()) flush_batch();
    if (!tb.empty()) flush_timing();
    if (S[sched::kNIdle] > 0) dispatch_idle();
  }
  void flush_batch() {
    std::vector<int64_t> ids;
    ids.swap(bd);
    S[sched::kBdn] = 0;
    for (int64_t tid : ids) time_release(tid);
    ids.clear();
    if (bd.empty()) bd.swap(ids);  // keep the capacity
  }
  void time_release(int64_t tid) {
    using namespace sched;  // NOLINT(build/namespaces)
    if (c.timing == kImmediate || c.timing_n == 0) {
      issue(tid);
    } else if (c.timing == kRate) {
      const double now = T[kNow];
      const double t = now < T[kNextIssue] ? T[kNextIssue] : now;
      T[kNextIssue] = t + c.interval;
      if (t <= now)
        issue(tid);
      else
        epush(t, kEvIssue, -1, tid);
    } else {
      tb.push_back(tid);
      S[kTbn] = static_cast<int64_t>(tb.size());
      if (static_cast<int64_t>(tb.size()) >= c.timing_n) flush_timing();
    }
  }
  void flush_timing() {
    S[sched::kTbn] = 0;
    if (c.timing == sched::kInterleaved && tb.size() > 1) {
      const int64_t nk = std::max<int64_t>(c.streams, 1);
      tkeys.resize(tb.size());
      for (size_t i = 0; i < tb.size(); ++i) tkeys[i] = static_cast<uint32_t>(stream_key(tb[i]));
      rules::interleave(tb, tkeys, static_cast<size_t>(nk), tgrouped, tcount);
    }
    for (int64_t tid : tb) issue(tid);  // (issue never releases into tb)
    tb.clear();
  }
  int64_t stream_key(int64_t tid) const {
    return rules::stream_key(c.stream_keyed != 0, stream_of(tid),
                             static_cast<uint64_t>(S[sched::kIssued]),
                             std::max<int64_t>(c.streams, 1));
  }
  void issue(int64_t tid) {
    using namespace sched;  // NOLINT(build/namespaces)
    const double now = T[kNow];
    NI[kIseq][tid] = S[kIssued];
    NF[kIssuedT][tid] = now;
    if (now > NF[kCreatedT][tid]) stalls[kStIssue] += now - NF[kCreatedT][tid];
    if (c.streams) {  // a task starts after the earlier-issued tasks of its lane have started
      const int64_t s = stream_key(tid);
      NI[kSof][tid] = s;
      const int64_t target = target_of(tid);
      const int64_t placed = target < 0 ? -1 : rules::target_worker(target, cand[pidx[tid]]);
      const int64_t lane = rules::lane_of(s, c.streams, placed);
      NI[kLane][tid] = lane;
      snext[tid] = -1;
      if (lhead[lane] >= 0) {
        ++blk[tid];
        snext[ltail[lane]] = tid;
      } else {
        lhead[lane] = tid;
      }
      ltail[lane] = tid;
    } else {
      NI[kSof][tid] = stream_of(tid);
    }
    ++S[kIssued];
    dec(tid);
  }

  // ---------------------------------------------------------------- ready queues
  void dec(int64_t tid) {
    if (--blk[tid] == 0) ready(tid);
  }
  void ready(int64_t tid) {
    using namespace sched;  // NOLINT(build/namespaces)
    const double now = T[kNow], deps_t = NF[kDepsT][tid], issued_t = NF[kIssuedT][tid];
    if (deps_t > issued_t) stalls[kStDeps] += deps_t - issued_t;
    const double base = deps_t > issued_t ? deps_t : issued_t;
    if (now > base) stalls[kStStream] += now - base;
    enqueue(tid);
  }
  void enqueue(int64_t tid) {
    using namespace sched;  // NOLINT(build/namespaces)
    const int p = pidx[tid];
    const int64_t target = target_of(tid);
    const Ready r{c.ready_priority ? priority_of(tid) : 0, NI[kIseq][tid], tid};
    int64_t h;
    if (target >= 0) {
      h = rules::target_worker(target, cand[p]);
    } else if (c.work_steal) {
      int64_t w = S[kLastC];
      if (w < 0 || !incand[p * W + w]) {
        w = cand[p][static_cast<size_t>(S[kRR] % static_cast<int64_t>(cand[p].size()))];
        ++S[kRR];
      }
      h = w;
    } else {
      h = W + p;
    }
    ++queued;
    queues[h].push(r);
  }
  int64_t pick(int64_t w) {
    int64_t best = -1;
    if (queues[w].size()) best = w;
    for (int p = 0; p < 3; ++p) {
      const int64_t h = W + p;
      if (serves[w * 3 + p] && queues[h].size() &&
          (best < 0 || queues[h].top() < queues[best].top()))
        best = h;
    }
    if (best >= 0) {
      --queued;
      return queues[best].pop().tid;
    }
    if (!c.work_steal) return -1;
    int64_t victim = -1;
    size_t size = 0;
    for (int64_t v = 0; v < W; ++v) {
      if (v != w && queues[v].size() > size && serves[w * 3 + pidx[queues[v].top().tid]]) {
        victim = v;
        size = queues[v].size();
      }
    }
    if (victim < 0) return -1;
    ++S[sched::kSteals];
    --queued;
    return queues[victim].pop().tid;
  }
  int64_t scope_of(int64_t tid) const {
    const int64_t stream = sdense.empty() ? 0 : sdense[tid];
    return rules::depth_key(static_cast<int>(c.depth_scope), c.streams != 0,
                            NI[sched::kLane][tid], stream, pidx[tid]);
  }

  // ---------------------------------------------------------------- dispatch and completion
  // Idle worker w starts the best task it may: false if none.
  bool dispatch(int64_t w) {
    using namespace sched;  // NOLINT(build/namespaces)
    for (;;) {
      if (halted) return false;
      const int64_t tid = pick(w);
      if (tid < 0) return false;
      if (c.depth) {
        const int64_t sc = scope_of(tid);
        if (infl[sc] >= c.depth) {  // gated until a task of its scope completes
          gnext[tid] = -1;
          if (ghead[sc] >= 0)
            gnext[gtail[sc]] = tid;
          else
            ghead[sc] = tid;
          gtail[sc] = tid;
          gsince[tid] = T[kNow];
          continue;
        }
        ++infl[sc];
      }
      const double now = T[kNow];
      idle[w] = 0;
      --S[kNIdle];
      NI[kWorker][tid] = w;
      NF[kStart][tid] = now;
      if (c.streams) {  // the next task of its lane may start too
        const int64_t lane = NI[kLane][tid];
        const int64_t nxt = snext[lhead[lane]];
        lhead[lane] = nxt;
        if (nxt < 0)
          ltail[lane] = -1;
        else
          dec(nxt);
      }
      order[S[kOrdN]++] = tid;
      if (hooks != nullptr && !hooks->started(tid)) halted = true;
      const int64_t cost = cost_of(tid);
      busy[w] += static_cast<double>(cost);
      ++trun[w];
      epush(now + static_cast<double>(cost), kEvComplete, static_cast<int32_t>(w), tid);
      return true;
    }
  }
  void dispatch_idle() {
    bool progress = true;
    while (progress && S[sched::kNIdle] > 0 && queued > 0) {
      progress = false;
      for (int64_t w = 0; w < W; ++w)
        if (idle[w] && dispatch(w)) progress = true;
    }
  }
  // A successor s of a node done now.
  void succeed(int64_t s, double now) {
    if (--deps[s] == 0) NF[sched::kDepsT][s] = now;
    if (g.kind[s] == 1) {
      if (--blk[s] == 0) stack.push_back(s);
    } else {
      dec(s);
    }
  }
  void complete_node(int64_t nid) {
    const double now = T[sched::kNow];
    const int64_t ncreated = S[sched::kNCreated];
    stack.clear();
    stack.push_back(nid);
    while (!stack.empty()) {
      const int64_t v = stack.back();
      stack.pop_back();
      if (NF[sched::kEnd][v] < 0) NF[sched::kEnd][v] = now;
      if (!csr) {
        for (int64_t e = ehead[v]; e >= 0; e = enext[e]) succeed(edst[e], now);
        continue;
      }
      for (int64_t e = g.fanout_begin[v]; e < g.fanout_begin[v + 1]; ++e) {
        const int64_t s = g.fanout_edges[e];
        if (s >= ncreated)  // created later: this edge will not count
          ++predone[s];
        else
          succeed(s, now);
      }
    }
  }
  void complete_task(int64_t w, int64_t tid) {
    using namespace sched;  // NOLINT(build/namespaces)
    const double now = T[kNow];
    NF[kEnd][tid] = now;
    idle[w] = 1;
    ++S[kNIdle];
    --S[kLive];
    ++S[kCompleted];
    if (c.depth) {
      const int64_t sc = scope_of(tid);
      --infl[sc];
      int64_t first = ghead[sc];
      if (first >= 0) {  // the gated tasks of the scope queue again, in the order they came
        ghead[sc] = gtail[sc] = -1;
        for (int64_t q = first; q >= 0; q = gnext[q]) {
          stalls[kStDepth] += now - gsince[q];
          span(kStDepth, q, gsince[q], now);
        }
        for (int64_t q = first; q >= 0;) {
          const int64_t nxt = gnext[q];
          enqueue(q);
          q = nxt;
        }
      }
    }
    S[kLastC] = w;
    complete_node(tid);
    S[kLastC] = -1;
    if (hooks != nullptr) hooks->completed(tid);
  }

  // ---------------------------------------------------------------- time
  void epush(double t, int32_t kind, int32_t w, int64_t tid) {
    events.push(t, ++S[sched::kEseq], kind, w, tid);
  }
  double now() const { return T[sched::kNow]; }
  // The next instant: its events handled together (completions, rate_limit issues), then idle
  // workers dispatch. False: nothing is pending (no progress without new nodes).
  bool advance() {
    if (events.empty()) return false;
    const double t = events.top().t;
    T[sched::kNow] = t;
    while (!events.empty() && events.top().t == t) {
      const sched::Event& e = events.top();
      const int32_t kind = e.kind, w = e.worker;
      const int64_t tid = e.tid;
      events.pop();
      if (kind == sched::kEvComplete)
        complete_task(w, tid);
      else
        issue(tid);
    }
    if (S[sched::kNIdle] > 0) dispatch_idle();
    return true;
  }
  // A stall span: its cause, the task (or -1: the generator, or a pipeline's process), times.
  void span(int64_t cause, int64_t tid, double t0, double t1) {
    span_cause.push_back(cause);
    span_tid.push_back(tid);
    span_t0.push_back(t0);
    span_t1.push_back(t1);
    S[sched::kSpanN] = static_cast<int64_t>(span_tid.size());
  }
};
