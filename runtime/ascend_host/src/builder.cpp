// The builder of the Ascend host runtime: nodes and their edges (order.h, tensormap.h), the
// task ring and window, records, and issue (batch_deps, streams' lanes, interleaved timing).
#include "builder_impl.h"

namespace pto {
namespace wsp {

namespace host {

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
  for (int w = 0; w < nworkers; ++w)
    worker_pool.push_back(nworkers == 1 ? 2 : (w < nworkers - ncube ? 0 : 1));
  for (int q = 0; q < 3; ++q) pool_workers[q] = rules::pool_candidates(worker_pool, q);
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
  s.queue = m.queue_of(target, pi);
  if (target >= 0) p.affinity = static_cast<TargetId>(s.queue);
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
  for (int i = 0; i < s.pod.num_io; ++i) {
    const TaskIO& io = s.pod.io[i];
    if (io.reads == 0)
      m.tmap.access(io.region, io.access, id, m.raw, m.waw, m.war);
    else if (io.reads == 1)
      m.tmap.lookup(io.region, m.raw);
  }
  std::vector<uint64_t>& ps = m.preds;
  ps.clear();
  const order::Candidates c{m.scopes.current(), m.events.on ? &m.event_preds : nullptr, m.raw,
                            m.waw, m.war};
  m.first_reason.keep(c, id, m.edge_kinds,
                      [&ps](uint32_t p, order::EdgeKind k) { ps.push_back(pack(p, k)); });
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
  s.queue = queue_of(target, pi);
  p.affinity = target >= 0 ? static_cast<TargetId>(s.queue) : kAnyTarget;
}

[[noreturn]] void fail(const char* what, int64_t a, int64_t b) {
  char buf[320];
  snprintf(buf, sizeof buf, "%s (%lld, %lld)", what, static_cast<long long>(a),
           static_cast<long long>(b));
  throw RunError(buf, 1);
}

}  // namespace wsp
}  // namespace pto
