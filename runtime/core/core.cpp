// pto-wsp native runtime core: task generation into a task graph (pto_wsp_core.h).
//
// The lowered program calls pto_tg_* in creation order; each task is built with the rules
// shared with the Ascend host runtime (order.h: its scope's frontier, through a barrier node
// when several nodes precede it, and each predecessor once with its first reason; tensormap.h:
// data edges from overlapping regions) and recorded as runtime/graph.py's TaskGraph arrays.
// An error (a region outside its tensor, an unbalanced scope, a failed check of the program)
// stops recording: later calls do nothing, and the host reads the message.
#include <stdio.h>

#include <algorithm>
#include <mutex>
#include <string>
#include <vector>

#include "core_state.h"
#include "csp.h"

static inline PtoCore& C(intptr_t core) { return *reinterpret_cast<PtoCore*>(core); }

// A call of the compiled program: an exception must not reach its frames (they have no unwind
// tables); running out of memory is the build's error.
template <typename F>
static inline __attribute__((always_inline)) void guarded(intptr_t core, F&& body) {
  bool oom = false;
  try {
    body(C(core));
  } catch (const std::bad_alloc&) {
    oom = true;
  }
  if (oom) C(core).fail("out of memory while building the task graph");
}

void PtoCore::submit() {
  const uint32_t id = num_nodes() - 1;
  open = false;
  scopes.created(id);
  if (events.on) events.created(id, task_stream);
  const order::Candidates c{scopes.current(), events.on ? &event_preds : nullptr, raw, waw, war};
  const size_t most = c.size();
  // (written straight into the edge arrays, room for every candidate made first: no packed
  // copy, and no capacity test an edge)
  uint32_t* __restrict src = edge_src.extend(most);
  uint8_t* __restrict kinds = edge_kind.extend(most);
  size_t n = 0;
  first_reason.keep(c, id, edges_by_kind, [&](uint32_t p, order::EdgeKind k) {
    src[n] = p;
    kinds[n++] = k;
  });
  edges(n, most, id);
  seal(id);
}

// Whether memo m answers region d, which it does when d has the values it holds (Box false)
// or lies in the cell it holds with unit strides (Box true; unsigned: an offset before the
// cell, a size < 1 or past the cell's end wraps to a large value); its writers then go to
// raw. Out of line, one function a kind: inlined into pto_tg_task, or both kinds in one
// function, their loads were hoisted above the branch and spilled.
template <int R, bool Box>
__attribute__((noinline)) bool PtoCore::repeated(Repeat& m, const int64_t* d) {
  if (Box) {
#pragma GCC unroll 8
    for (int i = 0; i < R; ++i) {
      // (first and last index from the cell's start: last >= first means a size >= 1)
      const uint64_t first = static_cast<uint64_t>(d[3 * i]) - static_cast<uint64_t>(m.d[i]);
      const uint64_t last = first + static_cast<uint64_t>(d[3 * i + 1]) - 1;
      if (last >= static_cast<uint64_t>(m.d[R + i]) || first > last || d[3 * i + 2] != 1)
        return false;
    }
  } else {
#pragma GCC unroll 24
    for (int i = 0; i < 3 * R; ++i)
      if (m.d[i] != d[i]) return false;
  }
  m.misses = 0;
  for (uint32_t i = 0; i < m.n; ++i) raw.push_back(m.writers[i]);  // (insert: a call)
  return true;
}

// Checked, recorded and given to the TensorMap as it comes: nothing of it is kept for submit.
// Not vectorized: the caller has just stored d[] value by value, and wider loads of it stall
// (a store cannot be forwarded to a load that spans two stores). Inlined into pto_tg_task:
// a repeated read (a K/V slice each tile's task reads) ends here without a call.
template <int R>
__attribute__((always_inline, optimize("no-tree-vectorize", "no-tree-slp-vectorize"))) inline void PtoCore::region(int64_t tensor, int64_t access, const int64_t* d, const int64_t* key) {
  if (!open) return;
  Repeat* rep = nullptr;
  bool mine = false;
  if (access >= PTO_ACCESS_LOOKUP && key != nullptr && !record) {
    rep = &repeats[(reinterpret_cast<uintptr_t>(key) >> 3) & (kRepeats - 1)];
    mine = rep->key == key;
    if (mine && rep->misses >= kVarying && (++rep->misses & 63) != 0) {
      rep = nullptr;  // (a region that changes task by task: its values are not compared)
    } else if (mine && (rep->box ? repeated<R, true>(*rep, d) : repeated<R, false>(*rep, d))) {
      return;
    }
  }
  // (split by kind: each part is smaller, so is what its call saves and restores)
  if (access >= PTO_ACCESS_LOOKUP) return map<R, true>(tensor, access, d, key, rep, mine);
  map<R, false>(tensor, access, d, key, rep, mine);
}

// The rest of region<R>: rep (else null) the region's memo, `mine` whether it holds this region;
// Marked: access is a read the site table marks (else an access the map records).
template <int R, bool Marked>
__attribute__((noinline, optimize("no-tree-vectorize", "no-tree-slp-vectorize"))) void PtoCore::map(int64_t tensor, int64_t access, const int64_t* d, const int64_t* key, Repeat* rep, bool mine) {
  const uint32_t id = num_nodes() - 1;
  if (tensor < 0 || tensor >= static_cast<int64_t>(ranks.size()) || access < 0 ||
      access > PTO_ACCESS_UNWRITTEN ||
      R != ranks[static_cast<size_t>(tensor)]) {
    open = false;
    return fail("a malformed region (tensor " + std::to_string(tensor) + ", access " +
                    std::to_string(access) + ", rank " + std::to_string(R) + ")",
                id);
  }
  // Checked here, or by the map when it uses the region (before it changes anything): a tile
  // of a tiling whose every tile lies inside the tensor needs no check.
  const bool mapped = infer_data_deps && !record && access != PTO_ACCESS_UNWRITTEN;
  if (!mapped && !inside<R>(tensor, d, id)) return;
  const auto check = [&] { return !mapped || inside<R>(tensor, d, id); };
  // (a read the site table marks: recorded as a read, looked up or left out of the map)
  const uint8_t mode = static_cast<uint8_t>(access > PTO_ACCESS_INOUT ? 0 : access);
  if (record) put_region<R>(tensor, mode, d);
  // (read in place: the map's common paths copy nothing)
  const host::RegionRef<3> r{d, d + 1, d + 2, static_cast<uint64_t>(tensor) + 1,
                             static_cast<uint16_t>(tensor), static_cast<uint8_t>(R)};
  host::TensorState& st = *states[static_cast<size_t>(tensor)];
  if (!Marked) {
    if (infer_data_deps) tmap->access<R>(st, r, mode, id, raw, waw, war, check);
    return;
  }
  const size_t before = raw.size();
  host::CellBox box;
  const bool boxed = infer_data_deps && access == PTO_ACCESS_LOOKUP &&
                     tmap->lookup<R>(st, r, raw, check, rep != nullptr ? &box : nullptr);
  const size_t n = raw.size() - before;
  if (rep == nullptr || n > 4 || !open) return;
  // (a miss in a row; a region compared again after skipping starts counting anew, so one
  // that has become a repeated read gets its memo back)
  rep->misses = mine && rep->misses < kVarying ? rep->misses + 1 : 0;
  rep->key = key;
  rep->n = static_cast<uint32_t>(n);
  rep->box = boxed;
  for (size_t i = 0; i < n; ++i) rep->writers[i] = raw[before + i];
  if (!boxed) {
    for (int i = 0; i < 3 * R; ++i) rep->d[i] = d[i];
    return;
  }
  for (int i = 0; i < R; ++i) rep->d[i] = box.lo[i], rep->d[R + i] = box.width[i];
}

// Whether region d of `tensor` lies inside it (else the task's error).
template <int R>
bool PtoCore::inside(int64_t tensor, const int64_t* d, uint32_t id) {
  const int64_t* shape = &shapes[static_cast<size_t>(tensor) * kMaxRank];
  bool out = false;
#pragma GCC unroll 8
  for (int i = 0; i < R; ++i) out |= outside(d[3 * i], d[3 * i + 1], d[3 * i + 2], shape[i]);
  if (!out) return true;
  outside_error(tensor, id);
  return false;
}

void PtoCore::outside_error(int64_t tensor, uint32_t id) {
  open = false;
  fail("its region of tensor " + std::to_string(tensor) +
           " lies outside the tensor (or has a negative size or offset, or a stride < 1)",
       id);
}

template <int R>
void PtoCore::put_region(int64_t tensor, uint8_t access, const int64_t* d) {
  constexpr size_t n = 3 + 3 * R;
  if (!wide) {
    // Written narrowed, then taken back if a value did not fit: the test is on the values
    // (x fits in int32 when x + 2^31 < 2^32), not on what was stored.
    int32_t* v = regions32.extend(n);
    v[0] = static_cast<int32_t>(tensor);
    v[1] = access;
    v[2] = R;
    uint64_t out = 0;
#pragma GCC unroll 8
    for (int i = 0; i < R; ++i) {
      const int64_t o = d[3 * i], z = d[3 * i + 1], s = d[3 * i + 2];
      v[3 + i] = static_cast<int32_t>(o);
      v[3 + R + i] = static_cast<int32_t>(z);
      v[3 + 2 * R + i] = static_cast<int32_t>(s);
      const uint64_t bias = uint64_t(1) << 31;
      out |= (static_cast<uint64_t>(o) + bias) | (static_cast<uint64_t>(z) + bias) |
             (static_cast<uint64_t>(s) + bias);
    }
    if ((out >> 32) == 0) return;
    regions32.resize(regions32.size() - n);
    widen();
  }
  int64_t* v = regions.extend(n);
  v[0] = tensor;
  v[1] = access;
  v[2] = R;
#pragma GCC unroll 8
  for (int i = 0; i < R; ++i) {
    v[3 + i] = d[3 * i];
    v[3 + R + i] = d[3 * i + 1];
    v[3 + 2 * R + i] = d[3 * i + 2];
  }
}

void PtoCore::widen() {
  const size_t n = regions32.size();
  int64_t* v = regions.extend(n);
  for (size_t i = 0; i < n; ++i) v[i] = regions32[i];
  regions32.clear();
  wide = true;
}

void PtoCore::graph(PtoGraph* out, bool fanout) {
  tmap.reset();
  if (fanout && !graphed) csr();
  graphed = graphed || fanout;
  fill(out);
}

void PtoCore::csr() {
  const size_t n = kind.size(), e = edge_src.size();
  // Edges come grouped by increasing destination: a counting sort by source keeps each
  // fanout row ascending. Row r's count goes to begin[r + 2]: after the prefix sums,
  // begin[r + 1] is where row r starts, and placing its edges moves it to where row r ends,
  // leaving begin[0 .. n] the rows' starts (no cursor array). Through local restrict
  // pointers: a store through the members' made the compiler load every member again. (Not
  // counted as the build makes the edges: a schedule made beside the build reads no CSR.)
  fanout_edges.resize(e);
  fanout_kind.resize(e);
  fanout_begin.assign(n + 2, 0);
  int32_t* __restrict begin = fanout_begin.data();
  const uint32_t* __restrict src = edge_src.data();
  const uint8_t* __restrict kinds = edge_kind.data();
  const int32_t* __restrict in = fanin.data();
  int32_t* __restrict dst_of = fanout_edges.data();
  uint8_t* __restrict kind_of = fanout_kind.data();
  for (size_t j = 0; j < e; ++j) ++begin[src[j] + 2];
  for (size_t i = 2; i <= n + 1; ++i) begin[i] += begin[i - 1];
  size_t i = 0;
  for (size_t dst = 0; dst < n; ++dst) {
    for (const size_t end = i + static_cast<size_t>(in[dst]); i < end; ++i) {
      const int32_t k = begin[src[i] + 1]++;
      dst_of[k] = static_cast<int32_t>(dst);
      kind_of[k] = kinds[i];
    }
  }
  fanout_begin.resize(n + 1);
}

void PtoCore::fill(PtoGraph* out) const {
  const size_t n = kind.size(), e = edge_src.size();
  out->num_nodes = static_cast<int64_t>(n);
  out->num_edges = static_cast<int64_t>(e);
  out->num_tasks = ntasks;
  out->kind = kind.data();
  out->pool = pool.data();
  out->domain = domain.data();
  out->kernel = kernel.data();
  out->site = site.data();
  out->fanin = fanin.data();
  out->fanout_edges = graphed ? fanout_edges.data() : nullptr;
  out->target = target.data();
  out->stream = stream.data();
  out->priority = priority.data();
  out->fanout_begin = graphed ? fanout_begin.data() : nullptr;
  out->edge_kind = graphed ? fanout_kind.data() : nullptr;
  out->args_begin = args_begin.data();
  out->args = args.data();
  out->coords_begin = coords_begin.data();
  out->coords = coords.data();
  out->regions_begin = regions_begin.data();
  out->regions = wide ? regions.data() : nullptr;
  out->regions32 = wide ? nullptr : regions32.data();
}

// The parts of a task (pto_tg_task, a pipeline's replay): each captured into the message
// being sent, or described on the task being built. Inlined: pto_tg_task is one call a task.
namespace {

// The failures of a task's call, out of line: their messages' strings kept out of
// pto_tg_task's frame and registers.
[[gnu::cold, gnu::noinline]] void too_many_nodes(PtoCore& c) {
  c.fail("out of memory: the program creates more than " + std::to_string(c.max_nodes) +
         " nodes (what this machine's memory holds)");
}

[[gnu::cold, gnu::noinline]] void bad_rank(PtoCore& c, int64_t tensor, int64_t access,
                                           int64_t rank) {
  if (!c.open) return;
  c.open = false;
  c.fail("a malformed region (tensor " + std::to_string(tensor) + ", access " +
             std::to_string(access) + ", rank " + std::to_string(rank) + ")",
         c.num_nodes() - 1);
}

[[gnu::always_inline]] inline void begin(PtoCore& c, int64_t kernel, int64_t site, int64_t pool,
                                         int64_t domain, int64_t target, int64_t stream,
                                         int64_t priority) {
  if (!c.error.empty()) return;
  if (c.pipe != nullptr &&
      csp::task_begin(c.pipe, kernel, site, pool, domain, target, stream, priority))
    return;
  if (c.num_nodes() >= c.max_nodes) return too_many_nodes(c);
  c.scopes.frontier([&c](const std::vector<uint32_t>& nodes) { return c.barrier(nodes); });
  if (c.events.on)
    c.events.waits(stream, [&c](const std::vector<uint32_t>& nodes) { return c.barrier(nodes); },
                   c.event_preds);
  c.task_stream = stream;
  c.node(order::kTask, static_cast<int32_t>(kernel), static_cast<int32_t>(site),
         static_cast<uint8_t>(pool), static_cast<uint8_t>(domain), target, stream, priority);
  ++c.ntasks;
  c.raw.clear();
  c.waw.clear();
  c.war.clear();
  c.open = true;
}

[[gnu::always_inline]] inline void values(PtoCore& c, int which, const int64_t* v, int64_t n) {
  if (c.pipe != nullptr && csp::capturing(c.pipe)) {
    for (int64_t i = 0; i < n; ++i) csp::capture_value(c.pipe, which, v[i]);
    return;
  }
  if (!c.open || !c.record || n == 0) return;
  int64_t* to = (which == 0 ? c.args : c.coords).extend(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) to[i] = v[i];
}

// (the rank is the site's: a task's regions take the same branches each time)
[[gnu::always_inline]] inline void region(PtoCore& c, int64_t tensor, int64_t access,
                                          int64_t rank, const int64_t* d,
                                          const int64_t* key = nullptr) {
  if (c.pipe != nullptr && csp::capturing(c.pipe))
    return csp::capture_region(c.pipe, tensor, access, rank, d);
  switch (rank) {
#define PTO_RANK_CASE(R) \
  case R:                \
    return c.region<R>(tensor, access, d, key);
    PTO_RANK_CASE(0) PTO_RANK_CASE(1) PTO_RANK_CASE(2) PTO_RANK_CASE(3) PTO_RANK_CASE(4)
    PTO_RANK_CASE(5) PTO_RANK_CASE(6) PTO_RANK_CASE(7) PTO_RANK_CASE(8)
#undef PTO_RANK_CASE
    default:
      return bad_rank(c, tensor, access, rank);
  }
}

[[gnu::always_inline]] inline void submit(PtoCore& c) {
  if (c.pipe == nullptr) {
    if (c.open) c.submit();
    return;
  }
  if (csp::capturing(c.pipe) || !c.open) return csp::check(c.pipe);
  csp::before_submit(c.pipe);
  c.submit();
  csp::check(c.pipe);
  csp::after_submit(c.pipe);
}

}  // namespace

void pto_core_task_begin(intptr_t core, int64_t kernel, int64_t site, int64_t pool,
                         int64_t domain, int64_t target, int64_t stream, int64_t priority) {
  guarded(core,
          [&](PtoCore& c) { begin(c, kernel, site, pool, domain, target, stream, priority); });
}

void pto_core_task_values(intptr_t core, int which, const int64_t* v, int64_t n) {
  guarded(core, [&](PtoCore& c) { values(c, which, v, n); });
}

void pto_core_region(intptr_t core, int64_t tensor, int64_t access, int64_t rank,
                     const int64_t* d) {
  guarded(core, [&](PtoCore& c) { region(c, tensor, access, rank, d); });
}

void pto_core_task_submit(intptr_t core) {
  guarded(core, [&](PtoCore& c) { submit(c); });
}

extern "C" {

void pto_tg_task(intptr_t core, const int64_t* site, const int64_t* v) {
  guarded(core, [&](PtoCore& c) {
    int64_t place[4];
    const int64_t varying = site[PTO_SITE_VARYING];
    if (varying == 0) {  // (the common case: no branch per field)
      for (int k = 0; k < 4; ++k) place[k] = site[PTO_SITE_PLACE + k];
    } else {
      for (int k = 0; k < 4; ++k)
        place[k] = (varying >> k) & 1 ? *v++ : site[PTO_SITE_PLACE + k];
    }
    begin(c, site[PTO_SITE_KERNEL], site[PTO_SITE_SITE], place[0], site[PTO_SITE_DOMAIN],
          place[1], place[2], place[3]);
    const int64_t scalars = site[PTO_SITE_SCALARS], coords = site[PTO_SITE_COORDS];
    values(c, 0, v, scalars);
    values(c, 1, v + scalars, coords);
    v += scalars + coords;
    const int64_t* r = site + PTO_SITE_HEAD;
    for (int64_t i = site[PTO_SITE_REGIONS]; i > 0; --i, r += 3) {
      region(c, r[0], r[1], r[2], v, r);
      v += 3 * r[2];
    }
    submit(c);
  });
}

void pto_tg_ordered_enter(intptr_t core) {
  guarded(core, [&](PtoCore& c) {
    if (c.error.empty()) c.scopes.enter();
  });
}

void pto_tg_order_point(intptr_t core) {
  guarded(core, [&](PtoCore& c) {
    if (!c.error.empty()) return;
    if (!c.scopes.point()) c.fail("tg.order_point outside a tg.ordered");
    if (c.pipe != nullptr) return csp::order_point(c.pipe);
    if (c.error.empty()) c.order_points.push_back(c.ntasks);
  });
}

void pto_tg_ordered_exit(intptr_t core) {
  guarded(core, [&](PtoCore& c) {
    if (c.error.empty() && !c.scopes.exit()) c.fail("tg.ordered exited more than entered");
    if (c.pipe != nullptr) csp::check(c.pipe);
  });
}

int64_t pto_tg_seq(intptr_t core) {
  const PtoCore& c = C(core);
  return c.ntasks + (c.pipe != nullptr ? csp::captured(c.pipe) : 0);
}

void pto_tg_loop_tasks(intptr_t core, int64_t lb, int64_t ub, int64_t step) {
  PtoCore& c = C(core);
  if (!c.error.empty() || ub <= lb || step <= 0) return;
  const __int128 trips = (static_cast<__int128>(ub) - lb - 1) / step + 1;
  if (trips + c.num_nodes() > c.max_nodes)
    c.fail("out of memory: a loop of " + std::to_string(static_cast<long long>(trips)) +
           " tasks, more than the " + std::to_string(c.max_nodes) +
           " nodes this machine's memory holds");
}

void pto_tg_use_events(intptr_t core) {
  PtoCore& c = C(core);
  if (c.error.empty() && c.num_nodes() != 0) return c.fail("use_events after the first task");
  c.events.on = true;
}

void pto_tg_event_record(intptr_t core, int64_t event, int64_t all, int64_t stream) {
  guarded(core, [&](PtoCore& c) {
    if (!c.error.empty()) return;
    if (!c.events.on) return c.fail("tg.event_record without pto_tg_use_events");
    c.events.record(std::to_string(event), all != 0, stream,
                    [&c](const std::vector<uint32_t>& nodes) { return c.barrier(nodes); });
  });
}

void pto_tg_event_wait(intptr_t core, int64_t event, int64_t all, int64_t stream) {
  guarded(core, [&](PtoCore& c) {
    if (!c.error.empty()) return;
    if (!c.events.on) return c.fail("tg.event_wait without pto_tg_use_events");
    c.events.wait(std::to_string(event), all != 0, stream);
  });
}

int64_t pto_tg_event_query(intptr_t core, int64_t event) {
  const PtoCore& c = C(core);
  return c.events.on && c.events.query(std::to_string(event)) ? 1 : 0;
}

void pto_tg_check_failed(intptr_t core, int64_t check) {
  PtoCore& c = C(core);
  if (!c.error.empty()) return;
  c.error_check = check;
  c.fail("a check of the program failed");
  if (c.pipe != nullptr) csp::check(c.pipe);
}

// A core freed is kept (at most kKeep) with its arrays' memory for the next build: fresh
// pages cost a fault each, a third of a large build's time. One: a kept core holds the
// memory of its last build (~0.7 kB per task).
static std::mutex g_kept_lock;
static std::vector<PtoCore*> g_kept;
static constexpr size_t kKeep = 1;

// The tensors of c->ranks and c->shapes to a new TensorMap.
static void declare(PtoCore* c) {
  c->tmap.reset(host::TensorMap::take());
  const int32_t num_tensors = static_cast<int32_t>(c->ranks.size());
  const int32_t* ranks = c->ranks.data();
  for (int32_t t = 0; t < num_tensors; ++t) {
    const int64_t* shape = &c->shapes[static_cast<size_t>(t) * kMaxRank];
    bool known = ranks[t] <= kMaxRank;
    for (int d = 0; d < ranks[t] && known; ++d) known = shape[d] >= 0;
    // A known shape lets the TensorMap keep dense grids of the tensor's tiles.
    const uint64_t base = static_cast<uint64_t>(t) + 1;
    if (known) c->tmap->declare(base, ranks[t], shape);
    // (kept: a region reaches its tensor's state without the map's lookup by argument)
    c->states.push_back(c->tmap->state_for(base, static_cast<uint16_t>(t)));
  }
}

static void start(PtoCore* c, int32_t num_tensors, const int32_t* ranks, const int64_t* shapes) {
  c->ranks.assign(ranks, ranks + num_tensors);
  c->shapes.assign(shapes, shapes + static_cast<size_t>(num_tensors) * kMaxRank);
  declare(c);
}

PtoCore* pto_core_new(int32_t num_tensors, const int32_t* ranks, const int64_t* shapes) {
  PtoCore* c = nullptr;
  {
    std::lock_guard<std::mutex> hold(g_kept_lock);
    if (!g_kept.empty()) {
      c = g_kept.back();
      g_kept.pop_back();
    }
  }
  if (c == nullptr) c = new PtoCore();
  start(c, num_tensors, ranks, shapes);
  return c;
}

void pto_core_restart(PtoCore* core, int32_t num_tensors, const int32_t* ranks,
                      const int64_t* shapes) {
  core->reset();
  start(core, num_tensors, ranks, shapes);
}

void pto_core_again(PtoCore* core) {
  const bool deps = core->infer_data_deps, record = core->record;
  const int64_t nodes = core->max_nodes, edges = core->max_edges;
  std::vector<int32_t> ranks;
  std::vector<int64_t> shapes;
  ranks.swap(core->ranks);  // (kept out of reset(): no copy, no allocation)
  shapes.swap(core->shapes);
  core->reset();
  core->ranks.swap(ranks);
  core->shapes.swap(shapes);
  core->infer_data_deps = deps;
  core->record = record;
  core->max_nodes = nodes;
  core->max_edges = edges;
  declare(core);
}

void pto_core_free(PtoCore* core) {
  core->reset();
  std::lock_guard<std::mutex> hold(g_kept_lock);
  if (g_kept.size() < kKeep)
    g_kept.push_back(core);
  else
    delete core;
}

const char* pto_core_error(const PtoCore* core) { return core->error.c_str(); }

int64_t pto_core_error_node(const PtoCore* core) { return core->error_node; }

int64_t pto_core_error_check(const PtoCore* core) { return core->error_check; }

void pto_core_no_data_deps(PtoCore* core) { core->infer_data_deps = false; }

void pto_core_no_records(PtoCore* core) { core->record = false; }

void pto_core_max_nodes(PtoCore* core, int64_t n) {
  core->max_nodes = std::min(n, kMaxNodes);
}

void pto_core_max_edges(PtoCore* core, int64_t n) { core->max_edges = std::min(n, kMaxEdges); }

int32_t pto_core_run(PtoCore* core, void (*entry)(void**), void** args) {
  if (setjmp(core->stop) == 0) {
    core->running = true;
    entry(args);
  }
  core->running = false;
  return core->error.empty() ? 0 : 1;
}

int64_t pto_core_order_points(const PtoCore* core, const int64_t** points) {
  *points = core->order_points.data();
  return static_cast<int64_t>(core->order_points.size());
}

int32_t pto_core_graph(PtoCore* core, PtoGraph* out, int32_t fanout) {
  if (core->error.empty() && core->scopes.open() != 0) core->fail("a tg.ordered is not closed");
  if (!core->error.empty()) return 1;
  core->graph(out, fanout != 0);
  return 0;
}

}  // extern "C"
