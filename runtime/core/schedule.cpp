// pto-wsp native runtime core: the virtual-time scheduler's setup and its run of a whole built
// graph (pto_wsp_core.h, pto_core_schedule*; docs/native.md "Scheduling a graph in virtual
// time"). The rules are scheduler.h's.
//
// A whole graph replays runtime/engine.py's Simulator.run_main: nodes are created in order at
// the generator's time (k * gen_cost, later when a task window stalls it), each task with the
// barriers created just before it; events due by then are handled first.
#include <stdint.h>

#include <algorithm>
#include <string>
#include <vector>

#include "scheduler.h"

using namespace sched;  // NOLINT(build/namespaces): the scheduler's row and counter names

const PtoSchedGraph* PtoScheduler::ascending(const PtoSchedGraph* graph) {
  const int32_t* begin = graph->fanout_begin;
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

// Workers, pools and the state of an empty run.
void PtoScheduler::configure(const PtoSchedConfig& config) {
  c = config;
  W = std::max<int64_t>(c.workers, 1);
  pools_.assign(c.worker_pool, c.worker_pool + std::max<int64_t>(c.workers, 0));
  c.worker_pool = pools_.data();
  // Workers' pools and who serves which pool (a vector worker takes vector and any tasks, a
  // cube worker cube and any, an `any` worker all); a pool nobody serves goes to everyone.
  std::vector<int> wpool(static_cast<size_t>(W), 2);
  for (int64_t w = 0; w < std::min<int64_t>(W, c.workers); ++w)
    wpool[w] = rules::pool_index(c.worker_pool[w]);
  serves.assign(static_cast<size_t>(W) * 3, 0);
  for (int64_t w = 0; w < W; ++w)
    for (int q = 0; q < 3; ++q) serves[w * 3 + q] = rules::serves(wpool[w], q);
  incand.assign(static_cast<size_t>(W) * 3, 0);
  for (int q = 0; q < 3; ++q) {
    cand[q] = rules::pool_candidates(wpool, q);
    for (int w : cand[q]) incand[q * W + w] = 1;
  }
  std::fill(S, S + kNS + W, 0);
  std::fill(T, T + kNR + W, 0.0);
  S[kLastC] = -1;
  S[kNIdle] = W;
  const int64_t nlanes = c.streams ? c.streams * (W + 1) : 1;
  // per stream without streams: a scope per stream_by key, numbered as they come
  const bool by_key = c.depth_scope == rules::kDepthPerStream && c.streams == 0;
  const int64_t nscopes = c.depth_scope == rules::kDepthPerStream
                              ? (c.streams ? nlanes : 0)
                              : (c.depth_scope == rules::kDepthPerPool ? 3 : 1);
  keyed_scopes = by_key && c.depth != 0;
  stream_scope.clear();
  queues.resize(W + 3);
  for (Queue& q : queues) q.clear();
  lhead.assign(nlanes, -1);
  ltail.assign(nlanes, -1);
  infl.assign(nscopes, 0);
  ghead.assign(nscopes, -1);
  gtail.assign(nscopes, -1);
  idle.assign(W, 1);
  queued = 0;
  events.clear();
  bd.clear();
  tb.clear();
  edst.clear();
  enext.clear();
  span_cause.clear();
  span_tid.clear();
  span_t0.clear();
  span_t1.clear();
  gc_at.clear();
  gc_old.clear();
  error.clear();
  halted = false;
}

bool PtoScheduler::kernel_costs_valid() {
  const int64_t nk = g.num_kernel_costs;
  if (g.kernel_cost == nullptr || g.kernel == nullptr || nk < 1) {
    error = "a graph without costs needs its kernels and their costs";
    return false;
  }
  for (int64_t k = 0; k < nk; ++k)
    if (g.kernel_cost[k] < 0 || g.kernel_cost[k] >= (int64_t(1) << 53)) {
      error = "kernel " + std::to_string(k - 1) + ": a cost not in [0, 2^53)";
      return false;
    }
  int32_t lo = 0, hi = -1;  // (no branch a node: the pass vectorizes)
  for (int64_t i = 0; i < g.num_nodes; ++i) {
    lo = std::min(lo, g.kernel[i]);
    hi = std::max(hi, g.kernel[i]);
  }
  if (lo < -1 || hi + 1 >= nk) {
    error = "kernel " + std::to_string(lo < -1 ? lo : hi) + " of a node has no cost (" +
            std::to_string(nk - 1) + " kernel costs)";
    return false;
  }
  return true;
}

bool PtoScheduler::prepare(const PtoSchedGraph* graph, const PtoSchedConfig* config,
                           PtoSchedOut* out) {
  // (the plain loop sorts the fanout rows only if it finds one out of order: run_plain)
  g = *graph;
  csr = true;
  hooks = nullptr;
  const int64_t n = g.num_nodes;
  one_priority = true;
  for (int64_t i = 0; i < n; ++i) {
    const uint8_t p = g.pool[i];
    if (p != 0 && p != 1 && p != 255) {
      error = "node " + std::to_string(i) + ": pool " + std::to_string(p) +
              " is not vector, cube or any";
      return false;
    }
    if (g.cost != nullptr && (g.cost[i] < 0 || g.cost[i] >= (int64_t(1) << 53))) {
      error = "node " + std::to_string(i) + ": a cost not in [0, 2^53)";
      return false;
    }
  }
  if (g.cost == nullptr && !kernel_costs_valid()) return false;
  // (tasks of one priority are ready in issue order, as with none)
  const int64_t* first = nullptr;
  for (int64_t i = 0; config->ready_priority && g.priority && one_priority && i < n; ++i)
    if (g.kind[i] == 0) {
      if (first == nullptr) first = &g.priority[i];
      one_priority = g.priority[i] == *first;
    }
  outputs(out, n);
  W = std::max<int64_t>(config->workers, 1);
  configure(*config);
  cap = n;
  if (plain()) return true;
  g = *ascending(graph);
  rows(n);
  task_ids.clear();
  for (int64_t i = 0; i < n; ++i)
    if (g.kind[i] == 0) task_ids.push_back(i);
  sdense.assign(keyed_scopes ? n : 0, 0);
  predone.assign(n, 0);
  return true;
}

// The caller's output arrays, each row `stride` nodes long.
void PtoScheduler::outputs(PtoSchedOut* out, int64_t stride) {
  for (int r = 0; r < kNI; ++r) NI[r] = out->ni + r * stride;
  for (int r = 0; r < kNF; ++r) NF[r] = out->nf + r * stride;
  S = out->s;
  trun = out->s + kNS;
  order = out->order;
  T = out->r;
  stalls = out->r + 3;
  busy = out->r + kNR;
}

bool PtoScheduler::prepare_stream(const PtoSchedConfig* config, const int64_t* kernel_cost,
                                  int64_t num_kernel_costs, PtoSchedOut* out, int64_t capacity) {
  // (run_streamed's conditions: a plain schedule creating every task at 0, one priority
  // without asking the graph, costs of at least 1 whose sums stay below 2^53)
  if (capacity < 1 || num_kernel_costs < 1 || kernel_cost[0] != 0 || config->general ||
      config->gen_cost != 0 || config->ready_priority || config->stop_at >= 0)
    return false;
  int64_t most = 0;
  for (int64_t k = 1; k < num_kernel_costs; ++k) {
    if (kernel_cost[k] < 1) return false;
    most = std::max(most, kernel_cost[k]);
  }
  if (most >= ((int64_t(1) << 53) / capacity)) return false;
  g = PtoSchedGraph{};
  g.kernel_cost = kernel_cost;
  g.num_kernel_costs = num_kernel_costs;
  csr = true;
  hooks = nullptr;
  one_priority = true;
  outputs(out, capacity);
  W = std::max<int64_t>(config->workers, 1);
  configure(*config);
  cap = capacity;
  return plain();
}

void PtoScheduler::start(const PtoSchedConfig& config, PtoSchedHooks* h) {
  csr = false;
  hooks = h;
  g = PtoSchedGraph{};
  const int64_t w = std::max<int64_t>(config.workers, 1);
  own_s.assign(kNS + w, 0);
  own_r.assign(kNR + w, 0.0);
  S = own_s.data();
  trun = S + kNS;
  T = own_r.data();
  stalls = T + 3;
  busy = T + kNR;
  W = w;
  configure(config);
  cap = 0;
  grow(1024);
}

// Room for n nodes in the scheduler's own rows (doubling: adding a node must not cost a
// reallocation each).
void PtoScheduler::grow(int64_t n) {
  n = std::max(n, 2 * cap);
  for (int r = 0; r < kNI; ++r) {
    own_ni[r].resize(n);
    NI[r] = own_ni[r].data();
  }
  for (int r = 0; r < kNF; ++r) {
    own_nf[r].resize(n);
    NF[r] = own_nf[r].data();
  }
  own_order.resize(n);
  order = own_order.data();
  rows(n);
  ehead.resize(n);
  etail.resize(n);
  if (keyed_scopes) sdense.resize(n);
  cap = n;
}

// The general loop's per-node state for n nodes.
void PtoScheduler::rows(int64_t n) {
  blk.resize(n);
  deps.resize(n);
  gnext.resize(n);
  snext.resize(n);
  gsince.resize(n);
  pidx.resize(n);
}

// The task window is full: the buffers flushed, then the generator waits for completions.
// False: the window is full with nothing running.
bool PtoScheduler::wait_window(double& gt) {
  ++S[kWFull];
  flush();
  while (S[kLive] >= c.task_window)
    if (!advance()) return false;
  if (T[kNow] > gt) {
    stalls[kStWindow] += T[kNow] - gt;
    span(kStWindow, -1, gt, T[kNow]);
  }
  gt = T[kNow];
  T[kGen] = gt;
  return true;
}

void PtoScheduler::run() {
  const int64_t ntasks = static_cast<int64_t>(task_ids.size());
  const int64_t n = g.num_nodes, window = c.task_window;
  int64_t prev = 0;
  for (int64_t k = 0; k < ntasks; ++k) {
    double gt = T[kGen];
    while (!events.empty() && events.top().t <= gt) advance();
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
    const int64_t tid = task_ids[k];
    create(prev, tid, gt);
    prev = tid + 1;
    T[kGen] = gt + static_cast<double>(c.gen_cost);
    if (c.order_after && c.order_after[k + 1]) order_point();
  }
  if (prev < n) register_nodes(prev, n - 1, T[kNow]);
  // end of generation: flush, then drain
  flush();
  if (T[kNow] < T[kGen]) T[kNow] = T[kGen];
  while (advance()) {
  }
  check_drained();
}

void PtoScheduler::check_drained() {
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
    if (s->plain())
      s->run_plain();
    else
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
