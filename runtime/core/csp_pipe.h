// pto-wsp native runtime core: a pipeline run's state and its virtual-time scheduler
// (csp.cpp's PtoPipe; the rules are described there and in docs/native.md "Pipelines").
#pragma once

#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>

#include <algorithm>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "core_state.h"
#include "schedule_rules.h"

namespace rules = pto::wsp::rules;

namespace csp_detail {

enum Op : int64_t { kSend, kRecv, kRecord, kSync, kWait, kWindow, kNoOp };
enum Cause { kStDeps, kStStream, kStDepth, kStIssue, kStWindow, kStFull, kStEmpty, kStEvent, kCauses };
enum Timing { kImmediate, kRate, kBatched, kInterleaved };
enum Failure { kOk, kDeadlock, kClosed, kBuild, kOther, kCost, kWindowFull };
constexpr size_t kStack = 256 << 10;  // per process replica (and a guard page below it)
constexpr int64_t kClosedQueue = -1, kSignal = -2;

struct Coord {
  int32_t name;
  int64_t value;
};

// A task of a message, as the program described it.
struct Captured {
  int64_t kernel, site, pool, domain, target, stream, priority;
  std::vector<int64_t> scalars, coords, regions;  // regions: tensor, access, rank, dims
};

struct Message {
  std::vector<Coord> coords;
  std::vector<Captured> tasks;
};

struct Process {
  PtoProcessFn fn;
  void** args;
  std::vector<int64_t> sends, receives;
  char* stack = nullptr;
  ucontext_t uc;
  order::Scopes scopes;  // structural order holds among the tasks of one process
  std::vector<Coord> coords;  // of the message being handled
  int64_t op = kNoOp, queue = -1, value = 0, outstanding = 0;
  double since = 0;
  bool started = false, exited = false, done = false;
};

struct Queue {
  int64_t capacity;
  bool event;
  std::deque<int64_t> buffer, receivers;
  std::deque<std::pair<int64_t, int64_t>> senders;  // (process, message)
  int64_t live_senders = 0, live_receivers = 0;
  bool closed = false;
};

struct Ready {
  int64_t prio, seq, tid;
  bool operator<(const Ready& o) const {
    return prio < o.prio || (prio == o.prio && (seq < o.seq || (seq == o.seq && tid < o.tid)));
  }
};
struct Later {
  bool operator()(const Ready& a, const Ready& b) const { return b < a; }
};
struct Event {
  double t;
  int64_t seq, worker, tid;  // worker -1: the task's issue (rate_limit)
};
struct EventLater {
  bool operator()(const Event& a, const Event& b) const {
    return a.t > b.t || (a.t == b.t && a.seq > b.seq);
  }
};

inline thread_local PtoPipe* g_running = nullptr;

}  // namespace csp_detail

using namespace csp_detail;  // NOLINT(build/namespaces): one includer, csp.cpp

struct PtoPipe {
  PtoCore* core;
  // Configuration.
  int64_t W;
  bool priority, steal;
  std::vector<int64_t> kernel_cost;  // -1: ask cost_fn
  PtoCostFn cost_fn = nullptr;
  PtoPlaceFn place_fn = nullptr;
  PtoCostFn body_fn = nullptr;  // (0: the body ran)
  std::mutex closing_lock;
  std::vector<int64_t> closing;  // queues the host closed (applied at the next step)
  std::vector<Coord> scratch;
  std::vector<int32_t> scratch_names;
  std::vector<int64_t> scratch_values;
  std::vector<std::vector<int>> cand{3};
  std::vector<uint8_t> serves;  // [W][3]
  // Sites: coordinate names per site and the program's site it was made from (whose task
  // it describes: its scalars and views), and the site of each (origin, names...).
  std::vector<std::vector<int32_t>> sites;
  std::vector<int64_t> site_origin;
  std::map<std::vector<int32_t>, int64_t> site_of;
  int32_t replica_name = -1;
  std::vector<int64_t> replica_site;  // per site: the site of its names and `replica`
  // Processes and queues.
  std::vector<Process> procs;
  std::vector<Queue> queues;
  std::vector<Message> messages;
  std::deque<std::pair<int64_t, int64_t>> runnable;  // (process, value)
  int64_t current = -1;
  bool sending = false;
  Message capture;
  ucontext_t main_uc;
  // Nodes (indexed by node id) and the scheduler's state.
  uint32_t seen_nodes = 0;
  size_t seen_edges = 0;
  std::vector<int64_t> blockers, deps_left, cost, worker, issue, owner;
  std::vector<std::vector<uint32_t>> fanout;
  std::vector<uint8_t> done;
  std::vector<double> start, end, created_t, issued_t, deps_t;
  std::vector<std::vector<Ready>> heaps;  // per worker, then per pool (vector, cube, any)
  std::vector<uint8_t> idle;
  std::vector<Event> events;
  std::vector<int64_t> order, tasks_run, work;
  std::vector<double> busy;
  double now = 0, stalls[kCauses] = {};
  int64_t steals = 0, issued = 0, rr = 0, last_completer = -1, eseq = 0, queued = 0, nidle = 0;
  // The schedule's directives (pto_core_pipe_schedule) and their state.
  int64_t streams = 0, timing = kImmediate, timing_n = 0, depth = 0, depth_scope = 0,
          batch_deps = 0, window = 0;
  bool keyed = false, window_abort = false, replaying = false;
  double interval = 0, next_issue = 0;
  std::vector<int64_t> stream_of, lane, bd, tb, window_waiters, gc_at, gc_old;
  std::vector<double> gated_since;
  std::map<int64_t, std::deque<int64_t>> lanes;
  std::map<int64_t, int64_t> inflight;
  std::map<int64_t, std::vector<int64_t>> gated;
  std::vector<uint32_t> tkeys;
  std::vector<int64_t> tgrouped;
  std::vector<size_t> tcount;
  int64_t live = 0, created = 0, since_gc = 0, oldest = 0;
  // Results.
  std::vector<int64_t> span_cause, span_proc, site_begin;
  std::vector<double> span_from, span_to;
  std::vector<int32_t> site_names;
  std::vector<int64_t> blocked_proc, blocked_op, blocked_queue;
  std::string message;
  int32_t failure = kOk;

  ~PtoPipe() {
    for (Process& p : procs)
      if (p.stack != nullptr) munmap(p.stack, kStack + 4096);
  }

  // ---------------------------------------------------------------- sites
  int64_t intern(int64_t origin, const std::vector<int32_t>& names) {
    std::vector<int32_t> key(1, static_cast<int32_t>(origin));
    key.insert(key.end(), names.begin(), names.end());
    auto it = site_of.find(key);
    if (it != site_of.end()) return it->second;
    sites.push_back(names);
    site_origin.push_back(origin);
    return site_of[key] = static_cast<int64_t>(sites.size()) - 1;
  }
  // `outer`, then `inner`; a name in both keeps inner's value (runtime/csp.py _merge_coords).
  static std::vector<Coord> merge(const std::vector<Coord>& outer, const std::vector<Coord>& inner) {
    std::vector<Coord> out;
    for (const Coord& o : outer) {
      bool shadowed = false;
      for (const Coord& i : inner) shadowed = shadowed || i.name == o.name;
      if (!shadowed) out.push_back(o);
    }
    out.insert(out.end(), inner.begin(), inner.end());
    return out;
  }

  // ---------------------------------------------------------------- failing
  void fail(int32_t kind, const std::string& why, int64_t proc, int64_t op, int64_t queue) {
    if (failure != kOk) return;
    failure = kind;
    message = why;
    blocked_proc.assign(1, proc);
    blocked_op.assign(1, op);
    blocked_queue.assign(1, queue);
  }
  // In a process: it stops here for good (its stack is freed with the run).
  [[noreturn]] void abandon() {
    Process& p = procs[current];
    swapcontext(&p.uc, &main_uc);
    __builtin_unreachable();
  }
  void closed(int64_t proc, int64_t q, const char* why) { fail(kClosed, why, proc, kNoOp, q); }

  // ---------------------------------------------------------------- processes
  void block(int64_t op, int64_t q) {
    Process& p = procs[current];
    p.op = op;
    p.queue = q;
    p.since = now;
    swapcontext(&p.uc, &main_uc);
    if (failure != kOk) abandon();  // (never resumed after a failure; kept for safety)
  }
  void resume(int64_t pid, int64_t value) {
    Process& p = procs[pid];
    const double waited = now - p.since;
    int cause = -1;
    if (p.op == kSend) cause = kStFull;
    if (p.op == kRecv) cause = kStEmpty;
    if (p.op == kRecord || p.op == kSync) cause = kStEvent;
    if (p.op == kWindow) cause = kStWindow;
    if (waited > 0 && cause >= 0) {
      stalls[cause] += waited;
      span(cause, pid, p.since, now);
    }
    p.op = kNoOp;
    p.queue = -1;
    runnable.emplace_back(pid, value);
  }
  static void entry() {
    PtoPipe* pipe = g_running;
    Process& p = pipe->procs[pipe->current];
    p.fn(p.args);
    pipe->wait();
    pipe->procs[pipe->current].exited = true;  // (back to main_uc through uc_link)
  }
  void enter(int64_t pid, int64_t value) {
    Process& p = procs[pid];
    p.value = value;
    if (!p.started) {
      p.started = true;
      void* mem = mmap(nullptr, kStack + 4096, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
      if (mem == MAP_FAILED) return fail(kOther, "no memory for a process stack", pid, kNoOp, -1);
      p.stack = static_cast<char*>(mem);
      mprotect(p.stack, 4096, PROT_NONE);  // an overflow faults instead of corrupting
      getcontext(&p.uc);
      p.uc.uc_stack.ss_sp = p.stack + 4096;
      p.uc.uc_stack.ss_size = kStack;
      p.uc.uc_link = &main_uc;
      makecontext(&p.uc, &PtoPipe::entry, 0);
    }
    current = pid;
    std::swap(core->scopes, p.scopes);
    g_running = this;
    swapcontext(&main_uc, &p.uc);
    std::swap(core->scopes, p.scopes);
    current = -1;
    if (p.exited && !p.done && failure == kOk) finish(pid);
  }
  void finish(int64_t pid) {
    Process& p = procs[pid];
    p.done = true;
    for (int64_t qi : p.sends) {
      Queue& q = queues[qi];
      if (--q.live_senders != 0) continue;
      q.closed = true;
      while (!q.receivers.empty()) {
        const int64_t r = q.receivers.front();
        q.receivers.pop_front();
        if (q.event)
          return closed(r, qi, "synchronize after every process that records it finished");
        resume(r, kClosedQueue);
      }
    }
    for (int64_t qi : p.receives) {
      Queue& q = queues[qi];
      if (--q.live_receivers == 0 && !q.senders.empty())
        return closed(q.senders.front().first, qi,
                      "send after every process that receives it has finished");
    }
  }

  // The process's calls (each in its coroutine).
  void send(int64_t qi, int64_t msg, bool nonblocking) {
    Queue& q = queues[qi];
    const bool room = !q.receivers.empty() || static_cast<int64_t>(q.buffer.size()) < q.capacity;
    if (nonblocking && !q.closed && q.live_receivers != 0 && !room) return;  // dropped
    const char* op = q.event ? "record" : "send";
    if (q.closed) {
      closed(current, qi, (std::string(op) + " after Channel.close()").c_str());
      abandon();
    }
    if (q.live_receivers == 0) {
      closed(current, qi, (std::string(op) + " after every process that receives it has finished").c_str());
      abandon();
    }
    if (!q.receivers.empty()) {
      const int64_t r = q.receivers.front();
      q.receivers.pop_front();
      return resume(r, msg);
    }
    if (static_cast<int64_t>(q.buffer.size()) < q.capacity) return q.buffer.push_back(msg);
    q.senders.emplace_back(current, msg);
    block(q.event ? kRecord : kSend, qi);
  }
  int64_t recv(int64_t qi) {
    Queue& q = queues[qi];
    if (!q.event) procs[current].coords.clear();  // the previous message is handled
    if (!q.buffer.empty()) {
      const int64_t msg = q.buffer.front();
      q.buffer.pop_front();
      if (!q.senders.empty()) {
        auto [s, pending] = q.senders.front();
        q.senders.pop_front();
        q.buffer.push_back(pending);
        resume(s, 0);
      }
      return msg;
    }
    if (!q.senders.empty()) {
      auto [s, msg] = q.senders.front();
      q.senders.pop_front();
      resume(s, 0);
      return msg;
    }
    if (q.closed) {
      if (!q.event) return kClosedQueue;
      closed(current, qi, "synchronize after every process that records it finished");
      abandon();
    }
    q.receivers.push_back(current);
    block(q.event ? kSync : kRecv, qi);
    return procs[current].value;
  }
  void wait() {
    if (procs[current].outstanding) block(kWait, -1);
  }
  int64_t with_replica(int64_t site) {
    if (replica_site.size() <= static_cast<size_t>(site)) replica_site.resize(site + 1, -1);
    if (replica_site[site] < 0) {
      std::vector<int32_t> names = sites[static_cast<size_t>(site)];
      names.push_back(replica_name);
      replica_site[site] = intern(site_origin[static_cast<size_t>(site)], names);
    }
    return replica_site[site];
  }
  // The host's placement of a received task (the schedule's keys over its coordinates, the
  // message's first and `replica` last): pool, target, stream and priority, in place.
  void placed(const Captured& t, int64_t replica, int64_t* place) {
    const std::vector<int32_t>& names = sites[static_cast<size_t>(t.site)];
    scratch.clear();
    for (size_t i = 0; i < names.size() && i < t.coords.size(); ++i)
      scratch.push_back(Coord{names[i], t.coords[i]});
    scratch = merge(procs[current].coords, scratch);
    scratch.push_back(Coord{replica_name, replica});
    scratch_names.clear();
    scratch_values.clear();
    for (const Coord& k : scratch) {
      scratch_names.push_back(k.name);
      scratch_values.push_back(k.value);
    }
    if (place_fn(scratch_names.data(), scratch_values.data(),
                 static_cast<int64_t>(scratch.size()), place) != 0) {
      fail(kCost, "", current, kNoOp, -1);
      abandon();
    }
  }
  void issue_message(int64_t msg, int64_t replica) {
    wait_window();
    procs[current].coords = messages[msg].coords;
    replaying = true;
    const intptr_t c = reinterpret_cast<intptr_t>(core);
    // (nothing with a destructor lives here: a failing task abandons this stack)
    for (const Captured& t : messages[msg].tasks) {
      int64_t place[4] = {t.pool, t.target, t.stream, t.priority};
      if (place_fn != nullptr) placed(t, replica, place);
      pto_tg_task_begin(c, t.kernel, with_replica(t.site), place[0], t.domain, place[1], place[2],
                        place[3]);
      for (int64_t v : t.scalars) pto_tg_task_scalar(c, v);
      for (int64_t v : t.coords) pto_tg_task_coord(c, v);
      pto_tg_task_coord(c, replica);
      for (size_t at = 0; at < t.regions.size();) {
        const int64_t rank = t.regions[at + 2];
        pto_tg_task_region(c, t.regions[at], t.regions[at + 1], rank);
        for (int64_t d = 0; d < rank; ++d)
          pto_tg_task_region_dim(c, t.regions[at + 3 + 3 * d], t.regions[at + 4 + 3 * d],
                                 t.regions[at + 5 + 3 * d]);
        at += 3 + 3 * static_cast<size_t>(rank);
      }
      pto_tg_task_submit(c);
    }
    replaying = false;
    std::vector<Captured>().swap(messages[msg].tasks);  // issued: only its coordinates are read
  }

  // ---------------------------------------------------------------- the task side
  // Room for n nodes (doubling: registering a node must not cost a reallocation each).
  void grow(size_t n) {
    if (n <= blockers.size()) return;
    n = std::max(n, 2 * blockers.size());
    for (auto* v : {&blockers, &deps_left, &cost, &worker, &issue, &owner, &stream_of, &lane})
      v->resize(n);
    for (auto* v : {&start, &end, &created_t, &issued_t, &deps_t, &gated_since}) v->resize(n);
    fanout.resize(n);
    done.resize(n);
  }
  void init(uint32_t id) {
    blockers[id] = deps_left[id] = cost[id] = 0;
    worker[id] = issue[id] = owner[id] = -1;
    stream_of[id] = lane[id] = 0;
    start[id] = end[id] = issued_t[id] = -1.0;
    created_t[id] = deps_t[id] = now;
    fanout[id].clear();
    done[id] = 0;
  }
  int pool_index(uint32_t id) const { return rules::pool_index(core->pool[id]); }
  // A task's cycles: its kernel's, or what the host's function says (-1: it failed, and the
  // process stops here).
  int64_t cost_of(uint32_t id) {
    const int32_t k = core->kernel[id];
    const int64_t fixed =
        k >= 0 && k < static_cast<int32_t>(kernel_cost.size()) ? kernel_cost[k] : 0;
    if (fixed >= 0 || cost_fn == nullptr) return fixed;
    const int64_t cycles = ask(cost_fn, id);
    if (cycles < 0) {
      fail(kCost, "", current, kNoOp, -1);
      if (current >= 0) abandon();
    }
    return cycles;
  }
  // The host's function (cost or body) on task `id`: its kernel, program site, coordinates,
  // scalars and regions.
  int64_t ask(PtoCostFn fn, int64_t id) {
    const PtoCore& c = *core;
    const size_t site = static_cast<size_t>(c.site[id]);
    const std::vector<int32_t>& names = sites[site];
    const int64_t a = c.args_begin[id], o = c.coords_begin[id], r = c.regions_begin[id];
    return fn(id, c.kernel[id], site_origin[site], names.data(),
              static_cast<int64_t>(names.size()), c.args.data() + a, c.args_begin[id + 1] - a,
              c.coords.data() + o, c.regions.data() + r, c.regions_begin[id + 1] - r);
  }
  // The nodes the builder made since the last call join the schedule (engine._register).
  void register_new() {
    const uint32_t n0 = seen_nodes, n1 = core->num_nodes();
    const size_t e1 = core->edge_src.size();
    grow(n1);
    for (uint32_t id = n0; id < n1; ++id) init(id);
    for (size_t e = seen_edges; e < e1; ++e) {
      const uint32_t s = core->edge_src[e], d = core->edge_dst[e];
      if (!done[s]) {
        ++deps_left[d];
        fanout[s].push_back(d);
      }
    }
    seen_nodes = n1;
    seen_edges = e1;
    std::vector<uint32_t> barriers;
    for (uint32_t id = n0; id < n1; ++id) {
      if (core->kind[id] == order::kBarrier) {
        blockers[id] = deps_left[id];
        if (deps_left[id] == 0) barriers.push_back(id);
        continue;
      }
      cost[id] = cost_of(id);
      blockers[id] = deps_left[id] + 1;  // + not issued yet
      owner[id] = current;
      ++live;
      ++created;
      if (current >= 0) ++procs[current].outstanding;
    }
    for (uint32_t b : barriers) complete_node(b);
    for (uint32_t id = n0; id < n1; ++id)
      if (core->kind[id] != order::kBarrier) release(id);
    dispatch_idle();
    if (window && (since_gc += n1 - n0) >= std::max<int64_t>(window, 1024)) {
      // the engine's TensorMap forgets the accesses of the nodes before the oldest live one:
      // later nodes get no data edge from them (the host drops those edges from the graph)
      since_gc = 0;
      while (oldest < static_cast<int64_t>(n1) && done[oldest]) ++oldest;
      gc_at.push_back(n1);
      gc_old.push_back(oldest);
    }
  }
  // ---- issue: batch_deps, then timing (engine._release, _time_release, _flush_*)
  void release(int64_t tid) {
    if (!batch_deps) return time_release(tid);
    bd.push_back(tid);
    if (static_cast<int64_t>(bd.size()) >= batch_deps) flush_batch();
  }
  void flush_batch() {
    std::vector<int64_t> buf;
    buf.swap(bd);
    for (int64_t tid : buf) time_release(tid);
  }
  void time_release(int64_t tid) {
    if (timing == kImmediate || timing_n == 0) return do_issue(tid);
    if (timing == kRate) {
      const double t = std::max(now, next_issue);
      next_issue = t + interval;
      if (t <= now) return do_issue(tid);
      events.push_back(Event{t, ++eseq, -1, tid});
      std::push_heap(events.begin(), events.end(), EventLater());
      return;
    }
    tb.push_back(tid);
    if (static_cast<int64_t>(tb.size()) >= timing_n) flush_timing();
  }
  void flush_timing() {
    std::vector<int64_t> buf;
    buf.swap(tb);
    if (timing == kInterleaved && buf.size() > 1) {
      tkeys.resize(buf.size());
      for (size_t i = 0; i < buf.size(); ++i) tkeys[i] = static_cast<uint32_t>(stream_key(buf[i]));
      rules::interleave(buf, tkeys, static_cast<size_t>(std::max<int64_t>(streams, 1)), tgrouped,
                        tcount);
    }
    for (int64_t tid : buf) do_issue(tid);
  }
  void flush_all() {
    if (!bd.empty()) flush_batch();
    if (!tb.empty()) flush_timing();
    dispatch_idle();
  }
  int64_t stream_key(int64_t tid) const {
    return rules::stream_key(keyed, core->stream[tid], static_cast<uint64_t>(issued),
                             std::max<int64_t>(streams, 1));
  }
  int64_t placed_worker(int64_t tid) const {
    const int64_t target = core->target[tid];
    return target < 0 ? -1 : rules::target_worker(target, cand[pool_index(static_cast<uint32_t>(tid))]);
  }
  int64_t scope_of(int64_t tid) const {
    return rules::depth_key(static_cast<int>(depth_scope), streams != 0, lane[tid], stream_of[tid],
                            pool_index(static_cast<uint32_t>(tid)));
  }
  void do_issue(int64_t tid) {
    issue[tid] = issued;
    issued_t[tid] = now;
    if (now > created_t[tid]) stalls[kStIssue] += now - created_t[tid];
    if (streams) {  // a task starts after the earlier-issued tasks of its lane have started
      const int64_t key = stream_key(tid);
      stream_of[tid] = key;
      lane[tid] = rules::lane_of(key, streams, placed_worker(tid));
      std::deque<int64_t>& q = lanes[lane[tid]];
      if (!q.empty()) ++blockers[tid];
      q.push_back(tid);
    } else {
      stream_of[tid] = core->stream[tid];
    }
    ++issued;
    dec(tid);
  }
  void dec(int64_t tid) {
    if (--blockers[tid] != 0) return;
    const double base = std::max(deps_t[tid], issued_t[tid]);
    if (deps_t[tid] > issued_t[tid]) stalls[kStDeps] += deps_t[tid] - issued_t[tid];
    if (now > base) stalls[kStStream] += now - base;
    enqueue(tid);
  }
  void push(std::vector<Ready>& h, const Ready& r) {
    h.push_back(r);
    std::push_heap(h.begin(), h.end(), Later());
  }
  Ready pop(std::vector<Ready>& h) {
    std::pop_heap(h.begin(), h.end(), Later());
    Ready r = h.back();
    h.pop_back();
    return r;
  }
  void enqueue(int64_t tid) {
    const int p = pool_index(static_cast<uint32_t>(tid));
    const int64_t target = core->target[tid];
    const Ready r{priority ? core->priority[tid] : 0, issue[tid], tid};
    ++queued;
    if (target >= 0) return push(heaps[rules::target_worker(target, cand[p])], r);
    if (!steal) return push(heaps[W + p], r);
    int64_t w = last_completer;
    if (w < 0 || std::find(cand[p].begin(), cand[p].end(), w) == cand[p].end())
      w = cand[p][static_cast<size_t>(rr++ % static_cast<int64_t>(cand[p].size()))];
    push(heaps[w], r);
  }
  int64_t pick(int64_t w) {
    int64_t best = heaps[w].empty() ? -1 : w;
    for (int p = 0; p < 3; ++p) {
      const int64_t h = W + p;
      if (serves[w * 3 + p] && !heaps[h].empty() &&
          (best < 0 || heaps[h].front() < heaps[best].front()))
        best = h;
    }
    if (best < 0 && steal) {
      size_t size = 0;
      for (int64_t v = 0; v < W; ++v)
        if (v != w && heaps[v].size() > size &&
            serves[w * 3 + pool_index(static_cast<uint32_t>(heaps[v].front().tid))]) {
          best = v;
          size = heaps[v].size();
        }
    }
    if (best < 0) return -1;
    if (best < W && best != w) ++steals;
    --queued;
    return pop(heaps[best]).tid;
  }
  // Worker w (idle) starts the best task it may (engine._dispatch): false if none.
  bool dispatch(int64_t w) {
    for (;;) {
      if (failure != kOk) return false;  // (a body failed: nothing more starts)
      const int64_t tid = pick(w);
      if (tid < 0) return false;
      if (depth) {
        const int64_t sc = scope_of(tid);
        if (inflight[sc] >= depth) {  // gated until a task of its scope completes
          gated[sc].push_back(tid);
          gated_since[tid] = now;
          continue;
        }
        ++inflight[sc];
      }
      idle[w] = 0;
      --nidle;
      worker[tid] = w;
      start[tid] = now;
      if (streams) {  // the next task of its lane may start too
        std::deque<int64_t>& q = lanes[lane[tid]];
        q.pop_front();
        if (!q.empty()) dec(q.front());
      }
      order.push_back(tid);
      // the functional mode: the body runs as the task starts (engine._start)
      if (body_fn != nullptr && ask(body_fn, tid) != 0) fail(kCost, "", -1, kNoOp, -1);
      busy[w] += static_cast<double>(cost[tid]);
      ++tasks_run[w];
      events.push_back(Event{now + static_cast<double>(cost[tid]), ++eseq, w, tid});
      std::push_heap(events.begin(), events.end(), EventLater());
      return true;
    }
  }
  void dispatch_idle() {
    bool progress = true;
    while (progress && nidle > 0 && queued > 0) {
      progress = false;
      for (int64_t w = 0; w < W; ++w)
        if (idle[w] && dispatch(w)) progress = true;
    }
  }
  void complete_node(int64_t nid) {
    work.assign(1, nid);
    while (!work.empty()) {
      const int64_t v = work.back();
      work.pop_back();
      done[v] = 1;
      if (end[v] < 0) end[v] = now;
      std::vector<uint32_t> succs;
      succs.swap(fanout[v]);
      for (uint32_t s : succs) {
        if (--deps_left[s] == 0) deps_t[s] = now;
        if (core->kind[s] == order::kBarrier) {
          if (--blockers[s] == 0) work.push_back(s);
        } else {
          dec(s);
        }
      }
    }
  }
  void complete_task(int64_t w, int64_t tid) {
    end[tid] = now;
    idle[w] = 1;
    ++nidle;
    --live;
    if (depth) {  // the gated tasks of its scope queue again, in the order they came
      const int64_t sc = scope_of(tid);
      --inflight[sc];
      auto it = gated.find(sc);
      if (it != gated.end() && !it->second.empty()) {
        std::vector<int64_t> g;
        g.swap(it->second);
        for (int64_t q : g) {
          stalls[kStDepth] += now - gated_since[q];
          span(kStDepth, -1 - q, gated_since[q], now);
        }
        for (int64_t q : g) enqueue(q);
      }
    }
    last_completer = w;
    complete_node(tid);
    last_completer = -1;
    const int64_t o = owner[tid];
    if (o >= 0 && --procs[o].outstanding == 0 && procs[o].op == kWait) resume(o, 0);
    if (!window_waiters.empty() && live < window) {
      std::vector<int64_t> waiters;
      waiters.swap(window_waiters);
      for (int64_t p : waiters) resume(p, 0);
    }
  }
  void step() {
    const double t = events.front().t;
    now = t;
    while (!events.empty() && events.front().t == t) {
      std::pop_heap(events.begin(), events.end(), EventLater());
      const Event e = events.back();
      events.pop_back();
      if (e.worker < 0)
        do_issue(e.tid);
      else
        complete_task(e.worker, e.tid);
    }
    dispatch_idle();
  }
  void span(int64_t cause, int64_t who, double from, double to) {
    span_cause.push_back(cause);
    span_proc.push_back(who);
    span_from.push_back(from);
    span_to.push_back(to);
  }
  // Before a process creates a task or issues a message: wait while the task window is full
  // (overflow=abort: the run fails there, as the engine's ResourceError).
  void wait_window() {
    while (window && live >= window) {
      if (window_abort) {
        fail(kWindowFull,
             "task window full: " + std::to_string(live) + " tasks in flight (task_window(" +
                 std::to_string(window) + ", overflow=abort)) when creating task #" +
                 std::to_string(created) + "; use overflow=stall or a larger window",
             current, kNoOp, -1);
        abandon();
      }
      window_waiters.push_back(current);
      block(kWindow, -1);
    }
  }

  // The queues the host closed (Channel.close() while the run is under way): an empty one's
  // blocked receivers end their consume (an event's are ChannelClosed), a blocked sender is
  // ChannelClosed (engine._close_requested).
  void close_requested() {
    std::vector<int64_t> asked;
    {
      std::lock_guard<std::mutex> hold(closing_lock);
      asked.swap(closing);
    }
    for (int64_t qi : asked) {
      Queue& q = queues[static_cast<size_t>(qi)];
      q.closed = true;
      if (!q.senders.empty())
        return closed(q.senders.front().first, qi,
                      q.event ? "record after Channel.close()" : "send after Channel.close()");
      while (!q.receivers.empty() && q.buffer.empty()) {
        const int64_t r = q.receivers.front();
        q.receivers.pop_front();
        if (q.event) return closed(r, qi, "synchronize after Channel.close()");
        resume(r, kClosedQueue);
      }
    }
  }

  // ---------------------------------------------------------------- the run (engine.run_pipeline)
  void run() {
    for (size_t i = 0; i < procs.size(); ++i) runnable.emplace_back(static_cast<int64_t>(i), 0);
    for (;;) {
      close_requested();
      while (!runnable.empty() && failure == kOk) {
        auto [pid, value] = runnable.front();
        runnable.pop_front();
        enter(pid, value);
      }
      if (failure != kOk) return;
      if (!core->error.empty()) return fail(kBuild, core->error, -1, kNoOp, -1);
      if (!events.empty()) {
        step();
        continue;
      }
      flush_all();
      if (!runnable.empty() || !events.empty()) continue;
      blocked_proc.clear();
      blocked_op.clear();
      blocked_queue.clear();
      for (size_t i = 0; i < procs.size(); ++i) {
        if (procs[i].done) continue;
        blocked_proc.push_back(static_cast<int64_t>(i));
        blocked_op.push_back(procs[i].op);
        blocked_queue.push_back(procs[i].queue);
      }
      if (blocked_proc.empty()) break;
      failure = kDeadlock;
      message = "deadlock";
      return;
    }
    while (!events.empty()) step();
  }
};

