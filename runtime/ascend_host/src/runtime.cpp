// pto-wsp host runtime: the launcher's C API (pto_wsp_run and its results), its workers run
// on the threads of worker_pool.h. The builder is builder.cpp, the workers executor.cpp, their
// shared state builder_impl.h.
#include "builder_impl.h"
#include "worker_pool.h"

// ---------------------------------------------------------------------------------- C API

using pto::wsp::Builder;

extern "C" {

// One program argument from the launcher (Python ctypes): a tensor or a scalar.
struct PtoWspHostArg {
  int32_t kind;  // 0 tensor, 1 scalar
  int32_t rank;
  int32_t elem_bytes;
  int32_t reserved;
  int64_t scalar;
  void* data;
  int64_t shape[16];
};

struct PtoWspHostOptions {
  int32_t workers;  // 0: the config's workers, else 2
  int32_t record;   // 1: record the graph (arrays below)
  int64_t ring_capacity;  // 0: 4096 (or the task window)
};

struct PtoWspHostStats {
  int64_t num_nodes, num_tasks, num_barriers, num_edges, num_wired_edges;
  int64_t num_workers, num_streams, window_stalls, ring_stalls, max_live;
  int64_t build_ns, total_ns;
  int64_t pool_tasks[3];
  int64_t edge_kinds[4];  // structural, raw, waw, war
  int64_t build_cpu_ns;   // CPU time of the orchestrating thread
  int64_t worker_cpu_ns;  // CPU time of the workers, summed
};

struct PtoWspRun {
  PtoWspHostStats stats;
  pto::wsp::Records rec;
  std::vector<int64_t> worker_tasks;
  std::vector<const pto::wsp::TaskSite*> sites;
};

void* pto_wsp_run_create() { return new PtoWspRun(); }

void pto_wsp_run_destroy(void* run) { delete static_cast<PtoWspRun*>(run); }

int32_t pto_wsp_abi_max_rank() { return pto::wsp::kMaxRank; }

static int64_t thread_cpu_ns() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

static void copy_error(char* err, int64_t errlen, const std::string& what) {
  if (err == nullptr || errlen <= 0) return;
  const size_t n = std::min<size_t>(what.size(), static_cast<size_t>(errlen - 1));
  memcpy(err, what.data(), n);
  err[n] = 0;
}

int32_t pto_wsp_run(void* run_handle, const char* program, const PtoWspHostArg* args,
                    int32_t nargs, const PtoWspHostOptions* opt, char* err, int64_t errlen) {
  using namespace pto::wsp;
  PtoWspRun& run = *static_cast<PtoWspRun*>(run_handle);
  const ProgramInfo* info = nullptr;
  for (int i = 0; i < pto_wsp_num_programs; ++i)
    if (strcmp(pto_wsp_programs[i].name, program) == 0) info = &pto_wsp_programs[i];
  if (info == nullptr) {
    copy_error(err, errlen, std::string("no program @") + program);
    return 3;
  }
  if (nargs != info->num_args) {
    copy_error(err, errlen, "@" + std::string(program) + " takes " +
                                std::to_string(info->num_args) + " arguments, got " +
                                std::to_string(nargs));
    return 3;
  }
  std::vector<TensorArg> tensors(static_cast<size_t>(nargs));
  std::vector<ArgValue> values(static_cast<size_t>(nargs));
  for (int i = 0; i < nargs; ++i) {
    const ArgInfo& ai = info->args[i];
    const PtoWspHostArg& a = args[i];
    const std::string what = "@" + std::string(program) + " argument '" + ai.name + "'";
    if (ai.kind == kArgScalar) {
      if (a.kind != 1) {
        copy_error(err, errlen, what + " is a scalar");
        return 3;
      }
      values[i].scalar = a.scalar;
      continue;
    }
    if (a.kind != 0 || a.rank != ai.rank || a.elem_bytes != ai.elem_bytes ||
        a.rank > kMaxRank) {
      copy_error(err, errlen, what + " needs a tensor of rank " + std::to_string(ai.rank) +
                                  " with " + std::to_string(ai.elem_bytes) + "-byte elements");
      return 3;
    }
    TensorArg& t = tensors[i];
    t.data = static_cast<uint8_t*>(a.data);
    t.rank = a.rank;
    t.elem_bytes = a.elem_bytes;
    t.index = i;
    int64_t stride = 1;
    for (int d = kMaxRank - 1; d >= 0; --d) {
      t.shape[d] = d < a.rank ? a.shape[d] : 1;
      if (d < a.rank && ai.static_shape[d] >= 0 && ai.static_shape[d] != a.shape[d]) {
        copy_error(err, errlen, what + ": dimension " + std::to_string(d) + " is " +
                                    std::to_string(a.shape[d]) + ", the program says " +
                                    std::to_string(ai.static_shape[d]));
        return 3;
      }
      t.mem_strides[d] = d < a.rank ? stride : 0;
      if (d < a.rank) stride *= a.shape[d];
    }
    values[i].view = View::root(t);
  }
  const RuntimeConfig cfg = info->config();
  int workers = opt != nullptr && opt->workers > 0
                    ? opt->workers
                    : (cfg.workers > 0 ? static_cast<int>(std::min<int64_t>(cfg.workers, 64)) : 2);
  std::unique_ptr<Builder::Impl> impl;
  try {
    impl.reset(new Builder::Impl(cfg, workers, opt != nullptr && opt->record != 0,
                                 opt != nullptr ? static_cast<uint64_t>(opt->ring_capacity) : 0));
  } catch (const RunError& e) {
    copy_error(err, errlen, e.what());
    return e.code;
  } catch (const std::exception& e) {
    copy_error(err, errlen, e.what());
    return 2;
  }
  Builder::Impl& m = *impl;
  Builder builder(&m);
  for (int i = 0; i < nargs; ++i)
    if (info->args[i].kind == kArgTensor)
      m.tmap.declare(reinterpret_cast<uint64_t>(tensors[i].data), tensors[i].rank,
                     tensors[i].shape);
  m.start = std::chrono::steady_clock::now();
  const int64_t cpu0 = thread_cpu_ns();
  std::vector<int64_t> worker_cpu(static_cast<size_t>(workers), 0);
  struct WorkerJob {
    Builder::Impl* m;
    int64_t* cpu;
    static void run(void* ctx, int w) {
      const WorkerJob& job = *static_cast<const WorkerJob*>(ctx);
      const int64_t t0 = thread_cpu_ns();
      job.m->worker(w);
      job.cpu[w] = thread_cpu_ns() - t0;
    }
    // Worker w on the orchestrating thread (WorkerPool::run_untaken): its thread-locals as a
    // worker's, restored after.
    static void run_here(void* ctx, int w) {
      const int64_t idx = host::block_idx, num = host::block_num;
      const bool on = host::on_worker;
      run(ctx, w);
      host::block_idx = idx;
      host::block_num = num;
      host::on_worker = on;
    }
  } job{&m, worker_cpu.data()};
  // Kept threads (host::WorkerPool), or threads of this run when the pool is busy.
  host::WorkerPool* pool = host::WorkerPool::acquire();
  // The kept threads are woken only once the build has Impl::kWakeAt tasks, or before the
  // orchestrator waits for a completion: a smaller run's tasks run here after the build
  // (run_untaken, Impl::run_solo), without the wake-ups' system calls and the hand-offs of
  // every ready task between CPUs (a 1k-task run with two woken workers took twice as long).
  if (pool != nullptr && !pool->start(workers, &WorkerJob::run, &job)) pool = nullptr;
  if (pool != nullptr) {
    m.wake_fn = &host::WorkerPool::notify_cb;
    m.wake_ctx = pool;
    m.solo = true;
  }
  std::vector<std::thread> threads;
  if (pool == nullptr)
    for (int w = 0; w < workers; ++w)
      threads.emplace_back([&job, w] {
        host::WorkerPool::name_thread(w);
        WorkerJob::run(&job, w);
      });
  try {
    info->entry(builder, values.data());
  } catch (const RunError& e) {
    if (e.what()[0] != 0) m.set_error(e.what(), e.code);
  } catch (const std::exception& e) {
    m.set_error(std::string("@") + program + ": " + e.what(), 1);
  }
  // Drain: release a task left half-built by an error, and any held batch.
  if (m.building >= 0) {
    m.release(static_cast<uint32_t>(m.building));
    m.building = -1;
  }
  m.flush();
  m.build_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                   std::chrono::steady_clock::now() - m.start)
                   .count();
  const int64_t build_cpu = thread_cpu_ns() - cpu0;
  m.total_nodes.store(m.allocated, std::memory_order_release);
  m.build_done.store(true, std::memory_order_release);
  if (m.sleepers.load(std::memory_order_seq_cst) > 0 ||
      m.holders.load(std::memory_order_seq_cst) > 0) {
    // Whatever is queued now runs without the orchestrator: no sleeper may miss it.
    std::lock_guard<std::mutex> g(m.wait_m);
    m.wait_cv.notify_all();
  }
  if (pool != nullptr) {
    // The workers no kept thread has taken yet run here (run_untaken). A worker returns only
    // when the run is finished (the last completion also wakes the sleepers): waiting for the
    // pool's report is waiting for the end, with one wake-up (waiting for finished() first,
    // then for the report, took a second pair of switches: ~10 us each on one vCPU of the
    // benchmark's VM).
    pool->run_untaken(&WorkerJob::run_here);
    pool->wait();
  } else {
    {
      std::unique_lock<std::mutex> lk(m.done_m);
      while (!m.finished()) m.done_cv.wait_for(lk, std::chrono::milliseconds(1));
    }
    {
      std::lock_guard<std::mutex> g(m.wait_m);
      m.wait_cv.notify_all();
    }
    for (std::thread& th : threads) th.join();
  }
  const int64_t total_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                               std::chrono::steady_clock::now() - m.start)
                               .count();
  PtoWspHostStats& st = run.stats;
  st.num_nodes = static_cast<int64_t>(m.allocated);
  st.num_tasks = m.ntasks;
  st.num_barriers = static_cast<int64_t>(m.allocated) - m.ntasks;
  st.num_edges = m.edges;
  st.num_wired_edges = m.wired;
  st.num_workers = workers;
  st.num_streams = static_cast<int64_t>(m.streams.size());
  st.window_stalls = m.window_stalls;
  st.ring_stalls = m.ring_stalls;
  st.max_live = m.max_live;
  st.build_ns = m.build_ns;
  st.total_ns = total_ns;
  for (int i = 0; i < 3; ++i) st.pool_tasks[i] = m.pool_tasks[i];
  for (int i = 0; i < 4; ++i) st.edge_kinds[i] = m.edge_kinds[i];
  st.build_cpu_ns = build_cpu;
  st.worker_cpu_ns = 0;
  for (int64_t c : worker_cpu) st.worker_cpu_ns += c;
  run.worker_tasks.clear();
  for (int w = 0; w < workers; ++w) run.worker_tasks.push_back(m.worker_tasks[static_cast<size_t>(w) * 8]);
  if (m.record) {
    m.rec.start.assign(m.allocated, -1);
    m.rec.worker.assign(m.allocated, -1);
    for (size_t w = 0; w < m.starts.size(); ++w)
      for (const auto& e : m.starts[w]) {
        m.rec.start[e.first] = static_cast<int64_t>(e.second);
        m.rec.worker[e.first] = static_cast<int64_t>(w);
      }
  }
  run.rec = std::move(m.rec);
  run.sites = m.sites;
  if (!m.error.empty()) {
    copy_error(err, errlen, m.error);
    return m.error_code;
  }
  return 0;
}

void pto_wsp_run_stats(void* run, PtoWspHostStats* out) {
  *out = static_cast<PtoWspRun*>(run)->stats;
}

// The recorded arrays, by number: 0 kind u8, 1 kernel i32, 2 pool u8, 3 domain u8,
// 4 target i64, 5 stream i64, 6 priority i64, 7 edge_src i64, 8 edge_dst i64, 9 edge_kind u8,
// 10 args_begin i64, 11 args i64, 12 coords_begin i64, 13 coords i64, 14 regions_begin i64,
// 15 regions i64, 16 site i32, 17 worker_tasks i64, 18 issue i64, 19 stream_key i64, 20 lane
// i64, 21 start i64, 22 worker i64 (per node; -1 for barriers and where not set). Copies at most `capacity` elements into
// `out` (if not null) and returns the array's length.
int64_t pto_wsp_run_array(void* run_handle, int32_t which, void* out, int64_t capacity) {
  PtoWspRun& run = *static_cast<PtoWspRun*>(run_handle);
  pto::wsp::Records& r = run.rec;
  const void* data = nullptr;
  size_t n = 0, size = 0;
  auto pick = [&](const auto& v) {
    data = v.data();
    n = v.size();
    size = sizeof(v[0]);
  };
  switch (which) {
    case 0: pick(r.kind); break;
    case 1: pick(r.kernel); break;
    case 2: pick(r.pool); break;
    case 3: pick(r.domain); break;
    case 4: pick(r.target); break;
    case 5: pick(r.stream); break;
    case 6: pick(r.priority); break;
    case 7: pick(r.edge_src); break;
    case 8: pick(r.edge_dst); break;
    case 9: pick(r.edge_kind); break;
    case 10: pick(r.args_begin); break;
    case 11: pick(r.args); break;
    case 12: pick(r.coords_begin); break;
    case 13: pick(r.coords); break;
    case 14: pick(r.regions_begin); break;
    case 15: pick(r.regions); break;
    case 16: pick(r.site); break;
    case 17: pick(run.worker_tasks); break;
    case 18: pick(r.issue); break;
    case 19: pick(r.stream_key); break;
    case 20: pick(r.lane); break;
    case 21: pick(r.start); break;
    case 22: pick(r.worker); break;
    default: return -1;
  }
  if (out != nullptr && n > 0)
    memcpy(out, data, std::min<size_t>(n, static_cast<size_t>(capacity)) * size);
  return static_cast<int64_t>(n);
}

// A recorded site: its kernel id (coord < 0) or the name of its coord-th coordinate.
const char* pto_wsp_run_site_coord(void* run_handle, int32_t site, int32_t coord) {
  PtoWspRun& run = *static_cast<PtoWspRun*>(run_handle);
  if (site < 0 || static_cast<size_t>(site) >= run.sites.size()) return nullptr;
  const pto::wsp::TaskSite* s = run.sites[static_cast<size_t>(site)];
  if (coord < 0 || coord >= s->num_coords) return nullptr;
  return s->coord_names[coord];
}

int32_t pto_wsp_num_programs_get() { return pto_wsp_num_programs; }
const char* pto_wsp_program_name(int32_t i) {
  return i >= 0 && i < pto_wsp_num_programs ? pto_wsp_programs[i].name : nullptr;
}

}  // extern "C"
