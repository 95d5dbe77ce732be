// pto-wsp native runtime core: the graph builder's state (core.cpp builds the graph, csp.cpp
// runs pipeline processes on the same builder).
#pragma once

#include <setjmp.h>
#include <sys/mman.h>

#include <atomic>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <vector>

#include "order.h"
#include "pto_wsp_core.h"
#include "scheduler.h"
#include "task_abi.h"
#include "tensormap.h"

static_assert(pto::wsp::kMaxRank == PTO_CORE_MAX_RANK, "task_abi.h built for another rank");

using pto::wsp::kMaxRank;
namespace order = pto::wsp::order;
namespace host = pto::wsp::host;

struct PtoPipe;

// The graph's arrays: plain growable arrays of trivially copyable values in memory mapped for
// them, grown with mremap (the pages move, nothing is copied or touched again: a vector's
// doubling touches about twice what it holds) and asked for as transparent huge pages (one
// page fault per 2 MB instead of per 4 kB). Fresh pages were most of a large first build.
// An array a scheduler reads while the graph is built (stream.cpp) moves only under its
// guard, which that scheduler holds while it reads.
template <typename T>
class Grow {
 public:
  Grow() = default;
  Grow(std::initializer_list<T> values) {
    for (const T& v : values) push_back(v);
  }
  Grow(const Grow&) = delete;
  Grow& operator=(const Grow&) = delete;
  ~Grow() {
    if (data_ != nullptr) munmap(data_, cap_ * sizeof(T));
  }
  void push_back(T v) {
    if (size_ == cap_) grow(size_ + 1);
    data_[size_++] = v;
  }
  // Room for n more values at the end, returned to be written.
  T* extend(size_t n) {
    if (size_ + n > cap_) grow(size_ + n);
    T* at = data_ + size_;
    size_ += n;
    return at;
  }
  void resize(size_t n) {
    if (n > cap_) grow(n);
    size_ = n;
  }
  void assign(size_t n, T v) {
    resize(n);
    for (size_t i = 0; i < n; ++i) data_[i] = v;
  }
  void clear() { size_ = 0; }
  size_t size() const { return size_; }
  T* data() { return data_; }
  const T* data() const { return data_; }
  T& operator[](size_t i) { return data_[i]; }
  const T& operator[](size_t i) const { return data_[i]; }
  void guard(PtoMoveLock* m) { guard_ = m; }

 private:
  void grow(size_t need) {
    std::unique_lock<PtoMoveLock> hold;
    if (guard_ != nullptr) hold = std::unique_lock<PtoMoveLock>(*guard_);
    size_t cap = cap_ == 0 ? (size_t(64) << 10) / sizeof(T) : cap_;
    while (cap < need) cap *= 2;
    void* p = data_ == nullptr
                  ? mmap(nullptr, cap * sizeof(T), PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
                  : mremap(data_, cap_ * sizeof(T), cap * sizeof(T), MREMAP_MAYMOVE);
    if (p == MAP_FAILED) throw std::bad_alloc();
    madvise(p, cap * sizeof(T), MADV_HUGEPAGE);
    data_ = static_cast<T*>(p);
    cap_ = cap;
  }
  T* data_ = nullptr;
  size_t size_ = 0, cap_ = 0;
  PtoMoveLock* guard_ = nullptr;
};

// A node column whose value is the same default for almost every workload (a task's target,
// stream, priority): nothing is stored while every node has the default (data() is NULL,
// which PtoGraph's readers take for "every node the default"); the first other value
// back-fills the nodes before it (24 B a task that a large first build would touch fresh).
class DefaultColumn {
 public:
  explicit DefaultColumn(int64_t fallback) : fallback_(fallback) {}
  void put(uint32_t node, int64_t v) {
    if (!on_.load(std::memory_order_relaxed)) {
      if (v == fallback_) return;
      values_.assign(node, fallback_);
      on_.store(true, std::memory_order_relaxed);
    }
    values_.push_back(v);
  }
  // (atomic: a scheduler reading the graph as it is built asks, ordered by the build's
  // publication of the nodes, stream.cpp)
  const int64_t* data() const {
    return on_.load(std::memory_order_relaxed) ? values_.data() : nullptr;
  }
  void clear() {
    values_.clear();
    on_.store(false, std::memory_order_relaxed);
  }
  void guard(PtoMoveLock* m) { values_.guard(m); }

 private:
  Grow<int64_t> values_;
  int64_t fallback_;
  std::atomic<bool> on_{false};
};

// The most nodes and edges a graph may have: node ids (fanout_edges) and fanout_begin are
// int32 (half the bytes of int64; 2^31 edges are ~20 GB of the core's edge arrays alone).
static constexpr int64_t kMaxNodes = 0x7FFFFFF0, kMaxEdges = 0x7FFFFFFF;

struct PtoCore {
  order::Scopes scopes;
  order::FirstReason first_reason;
  order::Events events;  // streams and events (pto_tg_use_events)
  std::vector<uint32_t> event_preds;  // the nodes the task being described waits for
  int64_t task_stream = 0;            // its stream
  Grow<int64_t> order_points;         // per tg.order_point, the tasks created before it
  bool infer_data_deps = true;        // false: structural and event edges only
  // false: no args, coords, regions or sites (pto_core_no_records): most of a task's bytes,
  // which a cycles-mode run without cost functions never reads.
  bool record = true;
  int64_t max_nodes = kMaxNodes;      // more is an error (the host sets it from the memory)
  int64_t max_edges = kMaxEdges;      // so is this (and fanout_begin's int32 holds no more)
  // pto_core_run's return point: an error stops the program there (an endless or huge loop
  // of failed calls would still spin).
  jmp_buf stop;
  bool running = false;
  // The data edges' map, while building: given back (kept for the next build, reset) once the
  // graph is made, so a graph the host still holds does not hold the map's memory too.
  std::unique_ptr<host::TensorMap, void (*)(host::TensorMap*)> tmap{nullptr,
                                                                    host::TensorMap::give};
  std::vector<int32_t> ranks;
  std::vector<int64_t> shapes;  // per tensor kMaxRank extents, -1 unknown
  std::vector<host::TensorState*> states;  // per tensor its state in tmap (this build's)
  bool open = false;  // a task is being described
  // The graph.
  Grow<uint8_t> kind, pool, domain;
  Grow<int32_t> kernel, site;
  DefaultColumn target{-1}, stream{0}, priority{0};
  bool placed = false;  // some node has a target, stream or priority of its own
  Grow<int64_t> args_begin{0}, args, coords_begin{0}, coords, regions_begin{0};
  // Per node its regions (tensor, access, rank, then per dimension offset, size, stride): in
  // int32 while every value fits (a large build's largest array, halved), else from the first
  // that does not in int64 (a pipeline's cost and body functions get them widened).
  Grow<int32_t> regions32;
  Grow<int64_t> regions;
  bool wide = false;
  Grow<uint32_t> edge_src;
  Grow<uint8_t> edge_kind;
  int64_t edges_by_kind[4] = {0, 0, 0, 0};
  int64_t ntasks = 0;
  // The task being described: its data predecessors (found region by region).
  std::vector<uint32_t> raw, waw, war;
  // A read the site table marks (PTO_ACCESS_LOOKUP, PTO_ACCESS_UNWRITTEN) that the site's
  // next task repeats: per region of a site (its place in the site table, direct-mapped) the
  // values last checked and the writers they gave. No task writes the tensor while the site
  // makes its tasks (what the marks say), so the same values give the same writers (a loop's
  // invariant region: a K/V slice every tile's task reads). Valid in its build only. A
  // region that missed kVarying times in a row (a tile's own, new each task) is compared
  // only every 64th time: checking and keeping its values would be spent for nothing. A
  // region the map found inside one cell of its tensor's only tiling keeps that cell's span
  // instead (`box`): any region of unit strides inside it has the same writers (the
  // attention's Q tile, new each task, inside its head's Q). (Its first two lines hold a
  // region of rank 4: the key, the writers and 12 values.)
  struct alignas(64) Repeat {
    const int64_t* key = nullptr;  // (null: none; reset() forgets the last build's)
    uint32_t n = 0;
    uint16_t misses = 0;  // in a row, of this key
    bool box = false;     // d: per dimension the cell's first index, then per dimension its width
    uint32_t writers[4];
    int64_t d[3 * kMaxRank];
  };
  static constexpr size_t kRepeats = 64;
  static constexpr uint32_t kVarying = 2;
  Repeat repeats[kRepeats];
  // Errors.
  std::string error;
  int64_t error_node = -1, error_check = -1;
  Grow<int32_t> fanin;  // per node its edges in, written as it is made
  // The CSR, made when the host first asks for it (pto_core_graph).
  Grow<int32_t> fanout_edges;
  Grow<int32_t> fanout_begin;
  Grow<uint8_t> fanout_kind;
  bool graphed = false;  // the CSR is made (once: the host holds views of these arrays)
  // The pipeline run this builder belongs to (csp.cpp), else null: a main program's build.
  PtoPipe* pipe = nullptr;
  // The scheduler reading this build as it is made (stream.cpp), else null: every
  // `chunk` nodes are published to it (one store: the cache line it shares with the reader
  // changes hands once a chunk, not once a node).
  PtoSchedFeed* feed = nullptr;
  uint32_t chunk = 64;

  uint32_t num_nodes() const { return static_cast<uint32_t>(kind.size()); }
  // Empty again, keeping every array's memory (see pto_core_new).
  void reset() {
    for (Repeat& r : repeats) r.key = nullptr;
    scopes.reset();
    first_reason.reset();
    events = order::Events();
    event_preds.clear();
    task_stream = 0;
    order_points.clear();
    infer_data_deps = true;
    record = true;
    max_nodes = kMaxNodes;
    max_edges = kMaxEdges;
    running = false;
    tmap.reset();
    ranks.clear();
    shapes.clear();
    states.clear();
    open = false;
    for (auto* v : {&kind, &pool, &domain, &edge_kind, &fanout_kind}) v->clear();
    for (auto* v : {&kernel, &site, &fanin, &fanout_edges, &fanout_begin, &regions32})
      v->clear();
    for (auto* v : {&args, &coords, &regions}) v->clear();
    for (auto* v : {&target, &stream, &priority}) v->clear();
    placed = false;
    for (auto* v : {&args_begin, &coords_begin, &regions_begin}) v->assign(1, 0);
    edge_src.clear();
    for (int64_t& k : edges_by_kind) k = 0;
    wide = false;
    ntasks = 0;
    error.clear();
    error_node = error_check = -1;
    graphed = false;
    pipe = nullptr;
    feed = nullptr;
  }
  // The first error is kept; `node` is the task it concerns (-1: none).
  // The first error is kept and ends the program's run (see pto_core_run): every caller's
  // state is the core's own members, so nothing is left half done but scratch.
  void fail(const std::string& what, int64_t node = -1) {
    if (error.empty()) {
      error = what;
      error_node = node;
    }
    if (running) {
      running = false;
      longjmp(stop, 1);
    }
  }
  // (inlined into a task's call: its eight values stay in registers)
  [[gnu::always_inline]] uint32_t node(uint8_t k, int32_t kern, int32_t st, uint8_t pl,
                                       uint8_t dom, int64_t tgt, int64_t str, int64_t prio) {
    const uint32_t id = num_nodes();
    kind.push_back(k);
    kernel.push_back(kern);
    if (record) site.push_back(st);  // (read with the records alone)
    pool.push_back(pl);
    domain.push_back(dom);
    // (one test while every node so far and this one have the defaults)
    if (placed || ((tgt + 1) | str | prio) != 0) place(id, tgt, str, prio);
    return id;
  }
  [[gnu::noinline]] void place(uint32_t id, int64_t tgt, int64_t str, int64_t prio) {
    placed = true;
    target.put(id, tgt);
    stream.put(id, str);
    priority.put(id, prio);
  }
  void seal(uint32_t id) {
    (void)id;
    if (!record) return;
    args_begin.push_back(static_cast<int64_t>(args.size()));
    coords_begin.push_back(static_cast<int64_t>(coords.size()));
    regions_begin.push_back(static_cast<int64_t>(wide ? regions.size() : regions32.size()));
  }
  // The edges into the node just made (dst), its n sources written at the end of edge_src
  // and edge_kind in room for `made`: edge_src and edge_kind are grouped by destination in
  // node order, fanin[dst] long each (no destination array).
  void edges(size_t n, size_t made, uint32_t dst) {
    const size_t e = edge_src.size() - made + n;
    edge_src.resize(e);
    edge_kind.resize(e);
    if (e > static_cast<size_t>(max_edges)) return too_many_edges(dst);
    fanin.push_back(static_cast<int32_t>(n));
    if (feed != nullptr && (dst + 1) % chunk == 0)
      feed->publish(dst + 1);
  }
  [[gnu::cold, gnu::noinline]] void too_many_edges(uint32_t dst) {
    fail("out of memory: the program creates more than " + std::to_string(max_edges) +
             " edges (what this machine's memory holds)",
         dst);
  }
  uint32_t barrier(const std::vector<uint32_t>& nodes) {
    const uint32_t b = node(order::kBarrier, -1, -1, 255, 0, -1, 0, 0);
    seal(b);
    const size_t n = nodes.size();
    uint32_t* src = edge_src.extend(n);
    uint8_t* kinds = edge_kind.extend(n);
    for (size_t i = 0; i < n; ++i) src[i] = nodes[i], kinds[i] = order::kStructural;
    edges_by_kind[order::kStructural] += static_cast<int64_t>(n);
    edges(n, n, b);
    return b;
  }
  // Whether dimension extent `shape` (-1: unknown) leaves out the progression o, o + s, ...
  // of n values (or n, o or s is out of range, or its last index past int64's: an error
  // whatever the extent, since the map computes with it). Unsigned, overflow tested: no
  // undefined behaviour where n or s is out of range (and then the sum is not read).
  static bool outside(int64_t o, int64_t n, int64_t s, int64_t shape) {
    uint64_t span, last;
    const bool wraps =
        __builtin_mul_overflow(static_cast<uint64_t>(n) - 1, static_cast<uint64_t>(s), &span) |
        __builtin_add_overflow(static_cast<uint64_t>(o), span, &last) | (last >> 63);
    return (n < 0) | (o < 0) | (s < 1) |
           ((n > 0) & (wraps | ((shape >= 0) & (static_cast<int64_t>(last) >= shape))));
  }
  // A region of the task being described (d: per dimension offset, size, stride). Of rank
  // R, its loops have a constant trip count: a build's regions alternate ranks, and loops of
  // varying length mispredict their exits.
  template <int R>
  void region(int64_t tensor, int64_t access, const int64_t* d, const int64_t* key);
  template <int R, bool Box>
  bool repeated(Repeat& m, const int64_t* d);
  template <int R, bool Marked>
  void map(int64_t tensor, int64_t access, const int64_t* d, const int64_t* key, Repeat* rep,
           bool mine);
  template <int R>
  bool inside(int64_t tensor, const int64_t* d, uint32_t id);
  [[gnu::cold]] void outside_error(int64_t tensor, uint32_t id);
  template <int R>
  void put_region(int64_t tensor, uint8_t access, const int64_t* d);
  void widen();
  void submit();
  void graph(PtoGraph* out, bool fanout);
  void csr();
  void fill(PtoGraph* out) const;
};

// A task's parts, as pto_tg_task reads them from its site's entry: a pipeline's replay of a
// message calls them with the message's values (each on the task being described, or
// captured into the message being sent).
void pto_core_task_begin(intptr_t core, int64_t kernel, int64_t site, int64_t pool,
                         int64_t domain, int64_t target, int64_t stream, int64_t priority);
// which 0: scalars, 1: coordinates.
void pto_core_task_values(intptr_t core, int which, const int64_t* values, int64_t n);
// A region of rank `rank` (d: per dimension offset, size, stride).
void pto_core_region(intptr_t core, int64_t tensor, int64_t access, int64_t rank,
                     const int64_t* d);
void pto_core_task_submit(intptr_t core);
