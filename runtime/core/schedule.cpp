// pto-wsp native runtime core: the virtual-time scheduler (cycles mode) of a built task graph
// (pto_wsp_core.h, pto_core_schedule*; docs/native.md "Scheduling a graph in virtual time").
//
// It replays runtime/engine.py's Simulator.run_main over the graph's arrays: nodes are
// registered in creation order at the generator's time (k * gen_cost, later when a task
// window stalls it), each task with the barriers created just before it; events due by then
// are handled first, idle workers dispatch after each registration. Release goes through
// batch_deps (flushed when full and at ordering points) and timing (immediate, batched,
// interleaved, rate_limit); issue links a task into its lane (streams); ready tasks wait in
// their target worker's, their pool's or (work_steal) a worker's queue, ordered by
// (priority, issue number); pipeline_depth gates tasks per scope. Stalls are summed in the
// engine's order, so the results are the engine's to the bit. The queue, stream and lane
// rules are schedule_rules.h's, shared with the Ascend host runtime.
#include <stdint.h>

#include <algorithm>
#include <string>
#include <vector>

#include "pto_wsp_core.h"
#include "schedule_rules.h"

namespace rules = pto::wsp::rules;

namespace {

// Rows of the per-node outputs (runtime/fastsched.py's NI and NF).
enum { kBlk, kDeps, kWorker, kIseq, kSof, kLane, kGnext, kSnext, kNI };
enum { kStart, kEnd, kIssuedT, kDepsT, kGsince, kCreatedT, kNF };
// Int scalars (fastsched's S, its layout kept: the host reads some by index); not all are used.
enum {
  kIssued, kRR, kLastC, kSteals, kLive, kCreated, kCompleted, kNCreated, kEseq, kEvn, kBdn,
  kTbn, kSpanN, kOrdN, kNIdle, kOldest, kSinceGc, kGcN, kGrown, kGrownWait, kWFull, kNS
};
enum { kNow, kNextIssue, kGen, kNR = 8 };
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
  bool operator()(const Ready& a, const Ready& b) const { return b < a; }
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

}  // namespace

struct PtoScheduler {
  // Inputs.
  const PtoSchedGraph* g = nullptr;
  PtoSchedGraph sorted{};  // g with its fanout rows sorted, when they were not
  std::vector<int32_t> sorted_edges;
  PtoSchedConfig c{};
  int64_t n = 0, W = 0;
  std::vector<int> pidx;  // per node: pool index
  std::vector<int64_t> sdense;  // per node: dense stream index (per_stream depth, no streams)
  std::vector<int64_t> task_ids;
  std::vector<std::vector<int>> cand{3};
  std::vector<uint8_t> incand;  // [3][W]
  std::vector<uint8_t> serves;  // [W][3]
  // Outputs (the caller's memory).
  int64_t* NI[kNI];
  double* NF[kNF];
  int64_t *S, *trun, *order;
  double *T, *stalls, *busy;
  // State.
  std::vector<Queue> queues;  // per worker, then vector, cube, any
  std::vector<int64_t> lhead, ltail, infl, ghead, gtail, predone, stack, bd, tb;
  std::vector<uint32_t> tkeys;
  std::vector<int64_t> tgrouped;
  std::vector<size_t> tcount;
  std::vector<uint8_t> idle;
  std::vector<Event> events;
  std::vector<int64_t> span_tid, gc_at, gc_old;
  std::vector<double> span_t0, span_t1;
  std::string error;

  bool prepare(const PtoSchedGraph* graph, const PtoSchedConfig* config, PtoSchedOut* out);
  const PtoSchedGraph* ascending(const PtoSchedGraph* graph);
  void run();

  int64_t stream_key(int64_t tid) const {
    return rules::stream_key(c.stream_keyed != 0, g->stream[tid],
                             static_cast<uint64_t>(S[kIssued]), std::max<int64_t>(c.streams, 1));
  }
  int64_t scope_of(int64_t tid) const {
    // (streams densely numbered: an index of infl)
    const int64_t stream = sdense.empty() ? 0 : sdense[tid];
    return rules::depth_key(static_cast<int>(c.depth_scope), c.streams != 0, NI[kLane][tid],
                            stream, pidx[tid]);
  }
  void epush(double t, int32_t kind, int32_t w, int64_t tid) {
    events.push_back(Event{t, ++S[kEseq], kind, w, tid});
    std::push_heap(events.begin(), events.end(), EventLater());
  }
  Event epop() {
    std::pop_heap(events.begin(), events.end(), EventLater());
    Event e = events.back();
    events.pop_back();
    return e;
  }
  void span(int64_t tid, double t0, double t1) {
    span_tid.push_back(tid);
    span_t0.push_back(t0);
    span_t1.push_back(t1);
    S[kSpanN] = static_cast<int64_t>(span_tid.size());
  }

  void enqueue(int64_t tid) {
    const int p = pidx[tid];
    const int64_t target = g->target[tid];
    const Ready r{c.ready_priority ? g->priority[tid] : 0, NI[kIseq][tid], tid};
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
    queues[h].push(r);
  }
  void ready(int64_t tid) {
    const double now = T[kNow], deps_t = NF[kDepsT][tid], issued_t = NF[kIssuedT][tid];
    if (deps_t > issued_t) stalls[kStDeps] += deps_t - issued_t;
    const double base = deps_t > issued_t ? deps_t : issued_t;
    if (now > base) stalls[kStStream] += now - base;
    enqueue(tid);
  }
  void dec(int64_t tid) {
    if (--NI[kBlk][tid] == 0) ready(tid);
  }
  void issue(int64_t tid) {
    const double now = T[kNow];
    NI[kIseq][tid] = S[kIssued];
    NF[kIssuedT][tid] = now;
    if (now > NF[kCreatedT][tid]) stalls[kStIssue] += now - NF[kCreatedT][tid];
    if (c.streams) {
      const int64_t s = stream_key(tid);
      NI[kSof][tid] = s;
      const int64_t target = g->target[tid];
      const int64_t placed = target < 0 ? -1 : rules::target_worker(target, cand[pidx[tid]]);
      const int64_t lane = rules::lane_of(s, c.streams, placed);
      NI[kLane][tid] = lane;
      NI[kSnext][tid] = -1;
      if (lhead[lane] >= 0) {
        ++NI[kBlk][tid];
        NI[kSnext][ltail[lane]] = tid;
      } else {
        lhead[lane] = tid;
      }
      ltail[lane] = tid;
    } else {
      NI[kSof][tid] = g->stream[tid];
    }
    ++S[kIssued];
    dec(tid);
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
    if (best >= 0) return queues[best].pop().tid;
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
    ++S[kSteals];
    return queues[victim].pop().tid;
  }
  bool dispatch(int64_t w) {
    for (;;) {
      const int64_t tid = pick(w);
      if (tid < 0) return false;
      if (c.depth) {
        const int64_t sc = scope_of(tid);
        if (infl[sc] >= c.depth) {  // gated until a task of its scope completes
          NI[kGnext][tid] = -1;
          if (ghead[sc] >= 0)
            NI[kGnext][gtail[sc]] = tid;
          else
            ghead[sc] = tid;
          gtail[sc] = tid;
          NF[kGsince][tid] = T[kNow];
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
        const int64_t nxt = NI[kSnext][lhead[lane]];
        lhead[lane] = nxt;
        if (nxt < 0)
          ltail[lane] = -1;
        else
          dec(nxt);
      }
      order[S[kOrdN]++] = tid;
      const int64_t cost = g->cost[tid];
      busy[w] += static_cast<double>(cost);
      ++trun[w];
      epush(now + static_cast<double>(cost), kEvComplete, static_cast<int32_t>(w), tid);
      return true;
    }
  }
  void dispatch_idle() {
    bool progress = true;
    while (progress && S[kNIdle] > 0) {
      progress = false;
      for (int64_t w = 0; w < W; ++w)
        if (idle[w] && dispatch(w)) progress = true;
    }
  }
  void complete_node(int64_t nid) {
    const double now = T[kNow];
    const int64_t ncreated = S[kNCreated];
    stack.clear();
    stack.push_back(nid);
    while (!stack.empty()) {
      const int64_t v = stack.back();
      stack.pop_back();
      if (NF[kEnd][v] < 0) NF[kEnd][v] = now;
      for (int64_t e = g->fanout_begin[v]; e < g->fanout_begin[v + 1]; ++e) {
        const int64_t s = g->fanout_edges[e];
        if (s >= ncreated) {  // created later: this edge will not count
          ++predone[s];
          continue;
        }
        if (--NI[kDeps][s] == 0) NF[kDepsT][s] = now;
        if (g->kind[s] == 1) {
          if (--NI[kBlk][s] == 0) stack.push_back(s);
        } else {
          dec(s);
        }
      }
    }
  }
  void complete_task(int64_t w, int64_t tid) {
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
        for (int64_t q = first; q >= 0; q = NI[kGnext][q]) {
          stalls[kStDepth] += now - NF[kGsince][q];
          span(q, NF[kGsince][q], now);
        }
        for (int64_t q = first; q >= 0;) {
          const int64_t nxt = NI[kGnext][q];
          enqueue(q);
          q = nxt;
        }
      }
    }
    S[kLastC] = w;
    complete_node(tid);
    S[kLastC] = -1;
  }
  void flush_timing() {
    S[kTbn] = 0;
    if (c.timing == kInterleaved && tb.size() > 1) {
      const int64_t nk = std::max<int64_t>(c.streams, 1);
      tkeys.resize(tb.size());
      for (size_t i = 0; i < tb.size(); ++i) tkeys[i] = static_cast<uint32_t>(stream_key(tb[i]));
      rules::interleave(tb, tkeys, static_cast<size_t>(nk), tgrouped, tcount);
    }
    for (int64_t tid : tb) issue(tid);  // (issue never releases into tb)
    tb.clear();
  }
  void time_release(int64_t tid) {
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
  void flush_batch() {
    std::vector<int64_t> ids;
    ids.swap(bd);
    S[kBdn] = 0;
    for (int64_t tid : ids) time_release(tid);
    ids.clear();
    if (bd.empty()) bd.swap(ids);  // keep the capacity
  }
  void handle_events_at_top() {
    const double t = events.front().t;
    T[kNow] = t;
    while (!events.empty() && events.front().t == t) {
      const Event e = epop();
      if (e.kind == kEvComplete)
        complete_task(e.worker, e.tid);
      else
        issue(e.tid);
    }
  }
  void step() {
    handle_events_at_top();
    if (S[kNIdle] > 0) dispatch_idle();
  }
  bool wait_window(double& gt);
  void register_nodes(int64_t first, int64_t last, double gt);
};

// `graph`, or a copy whose fanout rows are ascending: the engine releases successors in
// creation order.
const PtoSchedGraph* PtoScheduler::ascending(const PtoSchedGraph* graph) {
  const int64_t* begin = graph->fanout_begin;
  const int32_t* edges = graph->fanout_edges;
  bool ok = true;
  for (int64_t v = 0; ok && v < graph->num_nodes; ++v)
    for (int64_t e = begin[v] + 1; e < begin[v + 1]; ++e)
      if (edges[e] <= edges[e - 1]) {
        ok = false;
        break;
      }
  if (ok) return graph;
  sorted = *graph;
  sorted_edges.assign(edges, edges + begin[graph->num_nodes]);
  for (int64_t v = 0; v < graph->num_nodes; ++v)
    std::sort(sorted_edges.begin() + begin[v], sorted_edges.begin() + begin[v + 1]);
  sorted.fanout_edges = sorted_edges.data();
  return &sorted;
}

bool PtoScheduler::prepare(const PtoSchedGraph* graph, const PtoSchedConfig* config,
                          PtoSchedOut* out) {
  graph = ascending(graph);
  g = graph;
  c = *config;
  n = graph->num_nodes;
  W = std::max<int64_t>(c.workers, 1);
  // Workers' pools and who serves which pool (a vector worker takes vector and any tasks, a
  // cube worker cube and any, an `any` worker all); a pool nobody serves goes to everyone.
  serves.assign(static_cast<size_t>(W) * 3, 0);
  for (int64_t w = 0; w < W; ++w) {
    const int p = w < c.workers ? rules::pool_index(c.worker_pool[w]) : 2;
    serves[w * 3 + 2] = 1;
    if (p != 1) serves[w * 3 + 0] = 1;
    if (p != 0) serves[w * 3 + 1] = 1;
  }
  incand.assign(static_cast<size_t>(W) * 3, 0);
  for (int q = 0; q < 3; ++q) {
    cand[q].clear();
    for (int64_t w = 0; w < W; ++w)
      if (serves[w * 3 + q]) cand[q].push_back(static_cast<int>(w));
    if (cand[q].empty())
      for (int64_t w = 0; w < W; ++w) cand[q].push_back(static_cast<int>(w));
    for (int w : cand[q]) incand[q * W + w] = 1;
  }
  pidx.resize(n);
  task_ids.clear();
  for (int64_t i = 0; i < n; ++i) {
    const uint8_t p = graph->pool[i];
    if (p != 0 && p != 1 && p != 255) {
      error = "node " + std::to_string(i) + ": pool " + std::to_string(p) +
              " is not vector, cube or any";
      return false;
    }
    pidx[i] = rules::pool_index(p);
    if (graph->cost[i] < 0 || graph->cost[i] >= (int64_t(1) << 53)) {
      error = "node " + std::to_string(i) + ": a cost not in [0, 2^53)";
      return false;
    }
    if (graph->kind[i] == 0) task_ids.push_back(i);
  }
  for (int r = 0; r < kNI; ++r) NI[r] = out->ni + r * n;
  for (int r = 0; r < kNF; ++r) NF[r] = out->nf + r * n;
  S = out->s;
  trun = out->s + kNS;
  order = out->order;
  T = out->r;
  stalls = out->r + 3;
  busy = out->r + kNR;
  std::fill(S, S + kNS + W, 0);
  std::fill(T, T + kNR + W, 0.0);
  S[kLastC] = -1;
  S[kNIdle] = W;
  const int64_t streams = c.streams;
  const int64_t nlanes = streams ? streams * (W + 1) : 1;
  int64_t nscopes = 1;
  sdense.clear();
  if (c.depth_scope == rules::kDepthPerStream) {
    if (streams) {
      nscopes = nlanes;
    } else {  // per stream_by key, densely numbered
      std::vector<int64_t> keys(graph->stream, graph->stream + n);
      std::sort(keys.begin(), keys.end());
      keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
      sdense.resize(n);
      for (int64_t i = 0; i < n; ++i)
        sdense[i] = std::lower_bound(keys.begin(), keys.end(), graph->stream[i]) - keys.begin();
      nscopes = std::max<int64_t>(static_cast<int64_t>(keys.size()), 1);
    }
  } else if (c.depth_scope == rules::kDepthPerPool) {
    nscopes = 3;
  }
  queues.resize(W + 3);
  for (Queue& q : queues) q.clear();
  lhead.assign(nlanes, -1);
  ltail.assign(nlanes, -1);
  infl.assign(nscopes, 0);
  ghead.assign(nscopes, -1);
  gtail.assign(nscopes, -1);
  predone.assign(n, 0);
  idle.assign(W, 1);
  events.clear();
  bd.clear();
  tb.clear();
  span_tid.clear();
  span_t0.clear();
  span_t1.clear();
  gc_at.clear();
  gc_old.clear();
  error.clear();
  return true;
}

// The task window is full: the buffers flushed, then the generator waits for completions.
// False: the window is full with nothing running.
bool PtoScheduler::wait_window(double& gt) {
  ++S[kWFull];
  if (!bd.empty()) flush_batch();
  if (!tb.empty()) flush_timing();
  if (S[kNIdle] > 0) dispatch_idle();
  while (S[kLive] >= c.task_window) {
    if (events.empty()) return false;
    step();
  }
  if (T[kNow] > gt) {
    stalls[kStWindow] += T[kNow] - gt;
    span(-1, gt, T[kNow]);
  }
  gt = T[kNow];
  T[kGen] = gt;
  return true;
}

// Nodes first..last at time gt: barriers, and a task if `last` is one (the barriers were
// created just before it; barriers after the last task, by a trailing event record, alone).
void PtoScheduler::register_nodes(int64_t first, int64_t last, double gt) {
  const int64_t tid = g->kind[last] == 0 ? last : -1;
  S[kNCreated] = last + 1;
  for (int64_t d = first; d <= last; ++d) {
    // predecessors already done when d is created do not count
    NI[kDeps][d] = g->fanin[d] - predone[d];
    NI[kWorker][d] = -1;
    NI[kIseq][d] = -1;
    NI[kSof][d] = 0;
    NI[kLane][d] = 0;
    NI[kGnext][d] = -1;
    NI[kSnext][d] = -1;
    NF[kStart][d] = -1.0;
    NF[kEnd][d] = -1.0;
    NF[kIssuedT][d] = -1.0;
    NF[kDepsT][d] = gt;
    NF[kGsince][d] = 0.0;
    NF[kCreatedT][d] = gt;
    NI[kBlk][d] = NI[kDeps][d] + (d == tid ? 1 : 0);
  }
  if (tid >= 0) {
    ++S[kLive];
    ++S[kCreated];
  }
  for (int64_t d = first; d <= last; ++d)
    if (d != tid && NI[kDeps][d] == 0) complete_node(d);
}

void PtoScheduler::run() {
  const int64_t ntasks = static_cast<int64_t>(task_ids.size());
  const int64_t window = c.task_window;
  int64_t prev = 0;
  for (int64_t k = 0; k < ntasks; ++k) {
    double gt = T[kGen];
    while (!events.empty() && events.front().t <= gt) step();
    if (T[kNow] < gt) T[kNow] = gt;
    if (window && S[kLive] >= window) {
      if (c.window_abort) {
        ++S[kWFull];
        return;  // the host raises the task window's error (nothing drained)
      }
      if (!wait_window(gt)) {
        error = "internal: task window full with nothing running";
        return;
      }
    }
    if (k == c.stop_at) return;  // the host raises the error of this task's cost
    const int64_t tid = task_ids[k], first = prev;
    register_nodes(first, tid, gt);
    prev = tid + 1;
    if (c.batch_deps) {
      bd.push_back(tid);
      S[kBdn] = static_cast<int64_t>(bd.size());
      if (static_cast<int64_t>(bd.size()) >= c.batch_deps) flush_batch();
    } else {
      time_release(tid);
    }
    if (S[kNIdle] > 0) dispatch_idle();
    T[kGen] = gt + static_cast<double>(c.gen_cost);
    if (window) {  // the engine's TensorMap forgets the tasks before the oldest live one
      S[kSinceGc] += tid + 1 - first;
      if (S[kSinceGc] >= std::max<int64_t>(window, 1024)) {
        S[kSinceGc] = 0;
        int64_t i = S[kOldest];
        while (i <= tid && NF[kEnd][i] >= 0.0) ++i;
        S[kOldest] = i;
        gc_at.push_back(tid + 1);
        gc_old.push_back(i);
        S[kGcN] = static_cast<int64_t>(gc_at.size());
      }
    }
    if (c.order_after && c.order_after[k + 1] && !bd.empty()) {
      flush_batch();
      if (S[kNIdle] > 0) dispatch_idle();
    }
  }
  if (prev < n) register_nodes(prev, n - 1, T[kNow]);
  // end of generation: flush, then drain
  if (!bd.empty()) flush_batch();
  if (!tb.empty()) flush_timing();
  if (S[kNIdle] > 0) dispatch_idle();
  if (T[kNow] < T[kGen]) T[kNow] = T[kGen];
  while (!events.empty()) step();
  if (S[kCompleted] != S[kCreated])
    error = "internal: " + std::to_string(S[kCreated] - S[kCompleted]) +
            " task(s) never ran (a dependency cycle or a lost release)";
}

PtoScheduler* pto_core_scheduler_new(void) { return new PtoScheduler(); }

void pto_core_scheduler_free(PtoScheduler* s) { delete s; }

int32_t pto_core_schedule(PtoScheduler* s, const PtoSchedGraph* graph, const PtoSchedConfig* config,
                         PtoSchedOut* out) {
  try {
    if (!s->prepare(graph, config, out)) return 1;
    s->run();
  } catch (const std::exception& e) {
    s->error = std::string("the scheduler ran out of memory: ") + e.what();
  }
  return s->error.empty() ? 0 : 1;
}

const char* pto_core_schedule_error(const PtoScheduler* s) { return s->error.c_str(); }

int64_t pto_core_schedule_spans(const PtoScheduler* s, const int64_t** tid, const double** t0,
                           const double** t1) {
  *tid = s->span_tid.data();
  *t0 = s->span_t0.data();
  *t1 = s->span_t1.data();
  return static_cast<int64_t>(s->span_tid.size());
}

int64_t pto_core_schedule_collections(const PtoScheduler* s, const int64_t** at,
                                      const int64_t** oldest) {
  *at = s->gc_at.data();
  *oldest = s->gc_old.data();
  return static_cast<int64_t>(s->gc_at.size());
}
