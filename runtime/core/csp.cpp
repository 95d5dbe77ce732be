// pto-wsp native runtime core: pipelines (pto_wsp_core.h "running a pipeline", csp.h).
//
// Each process replica runs its compiled function as a coroutine: a ucontext with a stack of
// its own, entered and left with swapcontext by the scheduler on the calling thread, so the
// run is deterministic and a process blocks in the middle of native code (a send on a full
// queue, a receive on an empty one, a wait for the tasks it issued). The process rules are
// runtime/csp.py's: processes run until they block, in the order they became runnable; then
// the core's scheduler (scheduler.h, the one main programs use) advances one instant, and the
// processes its completions woke run. A task joins that scheduler at the current virtual time
// as its process creates it. Tasks a process receives are created by it (its replica
// coordinate, the message's coordinates first) and the tasks it creates while handling a
// message inherit them.
#include "csp_pipe.h"
#include "csp.h"

// ------------------------------------------------------------------ the builder's hooks

namespace csp {

bool task_begin(PtoPipe* p, int64_t kernel, int64_t site, int64_t pool, int64_t domain,
                int64_t target, int64_t stream, int64_t priority) {
  if (!p->sending) {
    if (!p->replaying && p->current >= 0) p->wait_window();
    return false;
  }
  p->capture.tasks.push_back(Captured{kernel, site, pool, domain, target, stream, priority, {}, {}, {}});
  return true;
}

bool capturing(const PtoPipe* p) { return p->sending; }

void capture_value(PtoPipe* p, int which, int64_t value) {
  if (p->capture.tasks.empty()) return;
  Captured& t = p->capture.tasks.back();
  (which == 0 ? t.scalars : t.coords).push_back(value);
}

void capture_region(PtoPipe* p, int64_t tensor, int64_t access, int64_t rank, const int64_t* d) {
  if (p->capture.tasks.empty()) return;
  auto& r = p->capture.tasks.back().regions;
  r.insert(r.end(), {tensor, access, rank});
  r.insert(r.end(), d, d + 3 * rank);
}

void before_submit(PtoPipe* p) {
  if (p->current < 0) return;
  const std::vector<Coord>& outer = p->procs[p->current].coords;
  if (outer.empty()) return;
  PtoCore& c = *p->core;
  const uint32_t id = c.num_nodes() - 1;
  const size_t first = static_cast<size_t>(c.coords_begin[c.coords_begin.size() - 1]);
  const std::vector<int32_t>& names = p->sites[static_cast<size_t>(c.site[id])];
  std::vector<Coord> inner;
  for (size_t i = 0; i < names.size() && first + i < c.coords.size(); ++i)
    inner.push_back(Coord{names[i], c.coords[first + i]});
  const std::vector<Coord> merged = PtoPipe::merge(outer, inner);
  std::vector<int32_t> out;
  c.coords.resize(first);
  for (const Coord& m : merged) {
    out.push_back(m.name);
    c.coords.push_back(m.value);
  }
  c.site[id] = static_cast<int32_t>(p->intern(p->site_origin[static_cast<size_t>(c.site[id])], out));
}

void after_submit(PtoPipe* p) { p->register_new(); }

void check(PtoPipe* p) {
  if (p->core->error.empty() || p->current < 0) return;
  p->fail(kBuild, p->core->error, p->current, kNoOp, -1);
  p->abandon();
}

void order_point(PtoPipe* p) {
  check(p);
  p->sch().order_point();
}

int64_t captured(const PtoPipe* p) {
  return p->sending ? static_cast<int64_t>(p->capture.tasks.size()) : 0;
}

}  // namespace csp

// ------------------------------------------------------------------ the process's calls

static PtoPipe* P(intptr_t core) { return reinterpret_cast<PtoCore*>(core)->pipe; }

extern "C" {

void pto_tg_send_begin(intptr_t core) {
  PtoPipe* p = P(core);
  p->sending = true;
  p->capture = Message{};
}

void pto_tg_send_coord(intptr_t core, int64_t value) {
  P(core)->capture.coords.push_back(Coord{-1, value});
}

void pto_tg_send_end(intptr_t core, int64_t queue, int64_t site, int64_t nonblocking) {
  PtoPipe* p = P(core);
  p->sending = false;
  Message m = std::move(p->capture);
  const std::vector<int32_t>& names = p->sites[static_cast<size_t>(site)];
  for (size_t i = 0; i < m.coords.size() && i < names.size(); ++i) m.coords[i].name = names[i];
  // inside a consume iteration, the message being handled's coordinates come first
  m.coords = PtoPipe::merge(p->procs[p->current].coords, m.coords);
  p->messages.push_back(std::move(m));
  p->send(queue, static_cast<int64_t>(p->messages.size()) - 1, nonblocking != 0);
}

int64_t pto_tg_recv(intptr_t core, int64_t queue) { return P(core)->recv(queue); }

void pto_tg_issue(intptr_t core, int64_t message, int64_t replica) {
  P(core)->issue_message(message, replica);
}

int64_t pto_tg_message_coord(intptr_t core, int64_t message, int64_t k) {
  PtoPipe* p = P(core);
  const std::vector<Coord>& coords = p->messages[static_cast<size_t>(message)].coords;
  if (k < 0 || k >= static_cast<int64_t>(coords.size())) {
    p->fail(kOther,
            "tg.coord " + std::to_string(k) + " of a message with " +
                std::to_string(coords.size()) + " coordinate(s)",
            p->current, kNoOp, -1);
    p->abandon();
  }
  return coords[static_cast<size_t>(k)].value;
}

void pto_tg_wait(intptr_t core) { P(core)->wait(); }

void pto_tg_record(intptr_t core, int64_t queue) {
  PtoPipe* p = P(core);
  p->wait();
  p->send(queue, kSignal, false);
}

void pto_tg_synchronize(intptr_t core, int64_t queue) { P(core)->recv(queue); }

PtoPipe* pto_core_pipe_new(PtoCore* core, int64_t workers, const uint8_t* worker_pool,
                      int64_t ready_priority, int64_t work_steal, int64_t num_kernels,
                      const int64_t* kernel_cost) {
  PtoPipe* p = new PtoPipe();
  p->core = core;
  core->pipe = p;
  p->pools.assign(worker_pool, worker_pool + std::max<int64_t>(workers, 0));
  p->config.workers = workers;
  p->config.ready_priority = ready_priority != 0;
  p->config.work_steal = work_steal != 0;
  p->kernel_cost.assign(kernel_cost, kernel_cost + num_kernels);
  p->restart();
  return p;
}

void pto_core_pipe_free(PtoPipe* pipe) {
  if (pipe->core != nullptr && pipe->core->pipe == pipe) pipe->core->pipe = nullptr;
  delete pipe;
}

void pto_core_pipe_sites(PtoPipe* pipe, int64_t num_sites, const int64_t* site_begin,
                    const int32_t* site_names, int32_t replica_name) {
  for (int64_t s = 0; s < num_sites; ++s) {
    std::vector<int32_t> names(site_names + site_begin[s], site_names + site_begin[s + 1]);
    pipe->intern(s, names);
  }
  pipe->replica_name = replica_name;
}

void pto_core_pipe_queue(PtoPipe* pipe, int64_t capacity, int32_t is_event) {
  Channel q;
  q.capacity = capacity;
  q.event = is_event != 0;
  pipe->queues.push_back(q);
}

void pto_core_pipe_process(PtoPipe* pipe, PtoProcessFn fn, void** args, int64_t num_sends,
                      const int64_t* sends, int64_t num_receives, const int64_t* receives) {
  Process p;
  p.fn = fn;
  p.args = args;
  p.sends.assign(sends, sends + num_sends);
  p.receives.assign(receives, receives + num_receives);
  for (int64_t q : p.sends) ++pipe->queues[q].live_senders;
  for (int64_t q : p.receives) ++pipe->queues[q].live_receivers;
  pipe->procs.push_back(std::move(p));
}

void pto_core_pipe_schedule(PtoPipe* pipe, const PtoPipeSchedule* s) {
  PtoSchedConfig& c = pipe->config;
  c.streams = s->streams;
  c.stream_keyed = s->stream_keyed != 0;
  c.timing = s->timing;
  c.timing_n = s->timing_n;
  c.interval = s->interval;
  c.depth = s->depth;
  c.depth_scope = s->depth_scope;
  c.batch_deps = s->batch_deps;
  c.task_window = s->task_window;
  c.window_abort = s->window_abort != 0;
  pipe->restart();
}

void pto_core_pipe_cost_function(PtoPipe* pipe, PtoCostFn fn) { pipe->cost_fn = fn; }

void pto_core_pipe_place_function(PtoPipe* pipe, PtoPlaceFn fn) { pipe->place_fn = fn; }

void pto_core_pipe_body_function(PtoPipe* pipe, PtoCostFn fn) { pipe->body_fn = fn; }

void pto_core_pipe_close(PtoPipe* pipe, int64_t queue) {
  std::lock_guard<std::mutex> hold(pipe->closing_lock);
  pipe->closing.push_back(queue);
}

void pto_core_pipe_channel(const PtoPipe* pipe, int64_t queue, int64_t* open, int64_t* size) {
  const Channel& q = pipe->queues[static_cast<size_t>(queue)];
  *open = q.closed ? 0 : 1;
  *size = static_cast<int64_t>(q.buffer.size());
}

int32_t pto_core_pipe_run(PtoPipe* pipe) {
  try {
    pipe->run();
  } catch (const std::exception& e) {
    pipe->fail(kOther, std::string("the pipeline ran out of memory: ") + e.what(), -1, kNoOp, -1);
  }
  pipe->site_begin.assign(1, 0);
  pipe->site_names.clear();
  for (const auto& names : pipe->sites) {
    pipe->site_names.insert(pipe->site_names.end(), names.begin(), names.end());
    pipe->site_begin.push_back(static_cast<int64_t>(pipe->site_names.size()));
  }
  // the scheduler's stall causes, then the processes'; a span names its process, or
  // (pipeline_depth) -1 - its task
  const PtoScheduler& s = pipe->sched;
  std::copy(s.stalls, s.stalls + sched::kStWindow, pipe->stalls);
  pipe->span_proc = s.span_tid;
  for (size_t i = 0; i < s.span_cause.size(); ++i)
    if (s.span_cause[i] == sched::kStDepth) pipe->span_proc[i] = -1 - s.span_tid[i];
  return pipe->failure;
}

const char* pto_core_pipe_message(const PtoPipe* pipe) { return pipe->message.c_str(); }

void pto_core_pipe_result(const PtoPipe* pipe, PtoPipeResult* out) {
  using namespace sched;  // NOLINT(build/namespaces): the scheduler's row names
  const PtoPipe& p = *pipe;
  const PtoScheduler& s = p.sched;
  out->num_nodes = static_cast<int64_t>(p.seen_nodes);
  out->num_order = s.S[kOrdN];
  out->workers = s.W;
  out->num_spans = static_cast<int64_t>(p.span_proc.size());
  out->num_sites = static_cast<int64_t>(p.sites.size());
  out->num_blocked = static_cast<int64_t>(p.blocked_proc.size());
  out->worker = s.NI[kWorker];
  out->issue = s.NI[kIseq];
  out->order = s.order;
  out->tasks_run = s.trun;
  out->start = s.NF[kStart];
  out->end = s.NF[kEnd];
  out->busy = s.busy;
  out->stalls = p.stalls;
  out->span_cause = s.span_cause.data();
  out->span_process = p.span_proc.data();
  out->span_from = s.span_t0.data();
  out->span_to = s.span_t1.data();
  out->site_begin = p.site_begin.data();
  out->site_names = p.site_names.data();
  out->blocked_process = p.blocked_proc.data();
  out->blocked_op = p.blocked_op.data();
  out->blocked_queue = p.blocked_queue.data();
  out->num_collections = static_cast<int64_t>(s.gc_at.size());
  out->gc_at = s.gc_at.data();
  out->gc_old = s.gc_old.data();
  out->stream = s.NI[kSof];
  out->site_origin = p.site_origin.data();
  out->created = s.NF[kCreatedT];
  out->issued = s.NF[kIssuedT];
  out->deps_met = s.NF[kDepsT];
  out->cost = p.cost.data();
  out->steals = s.S[kSteals];
  out->lane = s.NI[kLane];
}

}  // extern "C"
