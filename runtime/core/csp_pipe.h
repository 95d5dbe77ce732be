// pto-wsp native runtime core: a pipeline run's state (csp.cpp's PtoPipe; docs/native.md
// "Pipelines"): its processes as coroutines, its queues (channel.h), and the core's one
// scheduler (scheduler.h) for the tasks the processes create.
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

#include "channel.h"
#include "core_state.h"
#include "scheduler.h"

namespace csp_detail {

enum Op : int64_t { kSend, kRecv, kRecord, kSync, kWait, kWindow, kNoOp };
// Stall causes after the scheduler's (a process waiting on the task window is sched::kStWindow).
enum Cause { kStFull = sched::kStWindow + 1, kStEmpty, kStEvent, kCauses };
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


using Channel = pto::wsp::csp::Channel<int64_t, int64_t>;
inline thread_local PtoPipe* g_running = nullptr;

}  // namespace csp_detail

using namespace csp_detail;  // NOLINT(build/namespaces): one includer, csp.cpp

// A pipeline run: its processes and queues; every task is scheduled by `sched`, which tells
// the run when a task starts (the functional mode's body) and completes (its process may go on).
struct PtoPipe final : PtoSchedHooks {
  PtoCore* core;
  PtoScheduler sched;
  // Configuration.
  PtoSchedConfig config{};
  std::vector<uint8_t> pools;
  std::vector<int64_t> kernel_cost;  // -1: ask cost_fn
  PtoCostFn cost_fn = nullptr;
  PtoPlaceFn place_fn = nullptr;
  PtoCostFn body_fn = nullptr;  // (0: the body ran)
  std::mutex closing_lock;
  std::vector<int64_t> closing;  // queues the host closed (applied at the next step)
  std::vector<Coord> scratch;
  std::vector<int32_t> scratch_names;
  std::vector<int64_t> scratch_values, wide_regions;
  // Sites: coordinate names per site and the program's site it was made from (whose task
  // it describes: its scalars and views), and the site of each (origin, names...).
  std::vector<std::vector<int32_t>> sites;
  std::vector<int64_t> site_origin;
  std::map<std::vector<int32_t>, int64_t> site_of;
  int32_t replica_name = -1;
  std::vector<int64_t> replica_site;  // per site: the site of its names and `replica`
  // Processes and queues.
  std::vector<Process> procs;
  std::vector<Channel> queues;
  std::vector<Message> messages;
  std::deque<std::pair<int64_t, int64_t>> runnable;  // (process, value)
  int64_t current = -1;
  bool sending = false, replaying = false;
  Message capture;
  ucontext_t main_uc;
  // Nodes the scheduler has (its arrays' own), per node its cost and creating process.
  uint32_t seen_nodes = 0;
  size_t seen_edges = 0;
  std::vector<int64_t> cost, owner, window_waiters;
  double stalls[kCauses] = {};  // the processes' own causes (window, channels, events)
  // Results.
  std::vector<int64_t> span_proc, site_begin;
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
    p.since = sched.now();
    swapcontext(&p.uc, &main_uc);
    if (failure != kOk) abandon();  // (never resumed after a failure; kept for safety)
  }
  void resume(int64_t pid, int64_t value) {
    Process& p = procs[pid];
    const double now = sched.now(), waited = now - p.since;
    int cause = -1;
    if (p.op == kSend) cause = kStFull;
    if (p.op == kRecv) cause = kStEmpty;
    if (p.op == kRecord || p.op == kSync) cause = kStEvent;
    if (p.op == kWindow) cause = sched::kStWindow;
    if (waited > 0 && cause >= 0) {
      stalls[cause] += waited;
      sched.span(cause, pid, p.since, now);
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
      Channel& q = queues[qi];
      if (!q.sender_done()) continue;
      for (int64_t r; q.ended_receiver(&r);) {
        if (q.event)
          return closed(r, qi, "synchronize after every process that records it finished");
        resume(r, kClosedQueue);
      }
    }
    for (int64_t qi : p.receives)
      if (queues[qi].receiver_done())
        return closed(queues[qi].senders.front().first, qi,
                      "send after every process that receives it has finished");
  }

  // The process's calls (each in its coroutine; nothing with a destructor lives across an
  // abandon).
  void send(int64_t qi, int64_t msg, bool nonblocking) {
    Channel& q = queues[qi];
    const char* op = q.event ? "record" : "send";
    int64_t woken = -1;
    switch (q.send(current, msg, nonblocking, &woken)) {
      case Channel::kTaken:
        return resume(woken, msg);
      case Channel::kWaits:
        return block(q.event ? kRecord : kSend, qi);
      case Channel::kSentAfterClose:
        closed(current, qi, (std::string(op) + " after Channel.close()").c_str());
        abandon();
      case Channel::kNoReceiver:
        closed(current, qi,
               (std::string(op) + " after every process that receives it has finished").c_str());
        abandon();
      default:  // buffered, or dropped by try_send
        return;
    }
  }
  int64_t recv(int64_t qi) {
    Channel& q = queues[qi];
    if (!q.event) procs[current].coords.clear();  // the previous message is handled
    int64_t msg = 0, woken = -1;
    bool woke = false;
    switch (q.recv(current, &msg, &woken, &woke)) {
      case Channel::kGot:
        if (woke) resume(woken, 0);
        return msg;
      case Channel::kEnded:
        return kClosedQueue;
      case Channel::kEventClosed:
        closed(current, qi, "synchronize after every process that records it finished");
        abandon();
      case Channel::kEmpty:
        break;
    }
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
      pto_core_task_begin(c, t.kernel, with_replica(t.site), place[0], t.domain, place[1],
                          place[2], place[3]);
      pto_core_task_values(c, 0, t.scalars.data(), static_cast<int64_t>(t.scalars.size()));
      pto_core_task_values(c, 1, t.coords.data(), static_cast<int64_t>(t.coords.size()));
      pto_core_task_values(c, 1, &replica, 1);
      for (size_t at = 0; at < t.regions.size();) {
        const int64_t rank = t.regions[at + 2];
        pto_core_region(c, t.regions[at], t.regions[at + 1], rank, &t.regions[at + 3]);
        at += 3 + 3 * static_cast<size_t>(rank);
      }
      pto_core_task_submit(c);
    }
    replaying = false;
    std::vector<Captured>().swap(messages[msg].tasks);  // issued: only its coordinates are read
  }

  // ---------------------------------------------------------------- the task side
  // The scheduler, looking at the node arrays where they are now (the builder's grow, and move,
  // while processes run).
  PtoScheduler& sch() {
    PtoSchedGraph& g = sched.g;
    g.kind = core->kind.data();
    g.pool = core->pool.data();
    g.cost = cost.data();
    g.priority = core->priority.data();
    g.target = core->target.data();
    g.stream = core->stream.data();
    return sched;
  }
  // The schedule as configured so far (pto_core_pipe_new, then pto_core_pipe_schedule).
  void restart() {
    config.worker_pool = pools.data();
    config.order_after = nullptr;
    config.stop_at = -1;
    sched.start(config, this);
  }
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
  // scalars and regions (int64: widened here while the build stores them as int32).
  int64_t ask(PtoCostFn fn, int64_t id) {
    const PtoCore& c = *core;
    const size_t site = static_cast<size_t>(c.site[id]);
    const std::vector<int32_t>& names = sites[site];
    const int64_t a = c.args_begin[id], o = c.coords_begin[id], r = c.regions_begin[id];
    const int64_t nr = c.regions_begin[id + 1] - r;
    const int64_t* regions = c.regions.data() + r;
    if (!c.wide) {
      wide_regions.assign(c.regions32.data() + r, c.regions32.data() + r + nr);
      regions = wide_regions.data();
    }
    return fn(id, c.kernel[id], site_origin[site], names.data(),
              static_cast<int64_t>(names.size()), c.args.data() + a, c.args_begin[id + 1] - a,
              c.coords.data() + o, regions, nr);
  }
  // The nodes the builder made since the last call join the schedule now, each task with the
  // barriers made just before it (engine._register).
  void register_new() {
    const uint32_t n0 = seen_nodes, n1 = core->num_nodes();
    const size_t e1 = core->edge_src.size();
    if (cost.size() < n1) {
      cost.resize(std::max<size_t>(n1, 2 * cost.size()));
      owner.resize(cost.size());
    }
    for (uint32_t id = n0; id < n1; ++id) cost[id] = 0, owner[id] = -1;
    PtoScheduler& s = sch();
    s.add_nodes(n0, n1);
    size_t e = seen_edges;  // (the builder's edges are grouped by destination, in node order)
    for (uint32_t id = n0; id < n1; ++id)
      for (int32_t k = 0; k < core->fanin[id]; ++k) s.add_edge(core->edge_src[e++], id);
    seen_nodes = n1;
    seen_edges = e1;
    for (uint32_t id = n0; id < n1; ++id) {
      if (core->kind[id] == order::kBarrier) continue;
      cost[id] = cost_of(id);
      owner[id] = current;
      if (current >= 0) ++procs[current].outstanding;
    }
    int64_t first = n0;
    for (uint32_t id = n0; id < n1; ++id) {
      if (core->kind[id] == order::kBarrier) continue;
      s.create(first, id, s.now());
      first = id + 1;
    }
    if (first < n1) s.register_nodes(first, n1 - 1, s.now());
  }
  // PtoSchedHooks: the functional mode runs a task's body as it starts (engine._start); a
  // completed task may let its process go on, and processes waiting on the task window.
  bool started(int64_t tid) override {
    if (body_fn == nullptr || ask(body_fn, tid) == 0) return true;
    fail(kCost, "", -1, kNoOp, -1);
    return false;
  }
  void completed(int64_t tid) override {
    const int64_t o = owner[tid];
    if (o >= 0 && --procs[o].outstanding == 0 && procs[o].op == kWait) resume(o, 0);
    if (!window_waiters.empty() && sched.S[sched::kLive] < config.task_window) {
      std::vector<int64_t> waiters;
      waiters.swap(window_waiters);
      for (int64_t p : waiters) resume(p, 0);
    }
  }
  // Before a process creates a task or issues a message: wait while the task window is full
  // (overflow=abort: the run fails there, as the engine's ResourceError).
  void wait_window() {
    const int64_t window = config.task_window;
    while (window && sched.S[sched::kLive] >= window) {
      const int64_t live = sched.S[sched::kLive], created = sched.S[sched::kCreated];
      if (config.window_abort) {
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
      Channel& q = queues[static_cast<size_t>(qi)];
      q.closed = true;
      if (!q.senders.empty())
        return closed(q.senders.front().first, qi,
                      q.event ? "record after Channel.close()" : "send after Channel.close()");
      for (int64_t r; q.ended_receiver(&r);) {
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
      if (sch().advance()) continue;
      sch().flush();
      if (!runnable.empty() || !sched.events.empty()) continue;
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
    while (sch().advance()) {
    }
  }
};

