// pto-wsp native runtime core: a plain schedule made while its graph is built
// (pto_core_run_scheduled; docs/native.md "The schedule beside the build").
//
// The build runs on the calling thread; the plain loop (schedule_plain.cpp, run_streamed)
// runs on a kept thread of worker_pool.h and reads the graph as the build publishes it, so a
// later execute costs about its build alone on a machine with a second CPU free. Its results
// are the plain loop's over the whole graph, to the bit (tests compare). With one CPU the
// thread wakes late: the caller, done building, finds the loop not taken and runs it itself.
#include <linux/futex.h>
#include <sched.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <mutex>

#include "core_state.h"
#include "scheduler.h"
#include "worker_pool.h"

namespace {

using pto::wsp::host::WorkerPool;

// The core's build as the scheduler reads it; its arrays move only under the feed's lock.
struct CoreFeed final : PtoSchedFeed {
  explicit CoreFeed(PtoCore& core) : c(core) {}
  void arrays(PtoSchedGraph& g, const uint32_t*& edge_src) override {
    g.kind = c.kind.data();
    g.pool = c.pool.data();
    g.kernel = c.kernel.data();
    g.fanin = c.fanin.data();
    g.target = c.target.data();
    edge_src = c.edge_src.data();
  }
  // The arrays arrays() reads take (or, null, leave) the lock to move.
  void guard(PtoMoveLock* m) {
    c.kind.guard(m);
    c.pool.guard(m);
    c.kernel.guard(m);
    c.fanin.guard(m);
    c.target.guard(m);
    c.edge_src.guard(m);
  }
  PtoCore& c;
};

struct Job {
  PtoScheduler* s;
  CoreFeed* feed;
  int64_t capacity;
  bool ok;
  std::atomic<bool> started{false};
};

void run_job(void* ctx, int) {
  Job& job = *static_cast<Job*>(ctx);
  job.started.store(true, std::memory_order_release);
  try {
    job.ok = job.s->run_streamed(*job.feed, job.capacity);
  } catch (const std::exception&) {  // (out of memory: the caller schedules the graph again)
    job.ok = false;
  }
}

// How long the loop's thread watches for the next build after one: a Program executed again
// and again starts each without a wake-up (1k tasks: ~0.15 -> ~0.14 ms an execute).
constexpr int64_t kWatchNs = 300000;
// How long the caller, done building, spins for the loop's end before it sleeps: the loop
// trails the build by a few microseconds, and a sleeping thread is woken ~10 us late.
constexpr int64_t kJoinSpinNs = 2000000;

// Whether this thread may run on two CPUs or more: on one, the loop's thread would only
// take turns with the build.
bool two_cpus() {
  cpu_set_t set;
  return sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) >= 2;
}

}  // namespace

void PtoSchedFeed::ring() {
  bell.fetch_add(1, std::memory_order_seq_cst);
  syscall(SYS_futex, &bell, FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
}

extern "C" {

int32_t pto_core_run_scheduled(PtoCore* core, void (*entry)(void**), void** args,
                               PtoScheduler* s, const PtoSchedConfig* config,
                               const int64_t* kernel_cost, int64_t num_kernel_costs,
                               PtoSchedOut* out, int64_t capacity, int64_t options,
                               int32_t* scheduled) {
  *scheduled = 0;
  bool stream = core->pipe == nullptr && two_cpus();
  try {
    stream = stream && s->prepare_stream(config, kernel_cost, num_kernel_costs, out, capacity);
  } catch (const std::exception&) {
    stream = false;
  }
  WorkerPool* pool = stream ? WorkerPool::acquire() : nullptr;
  CoreFeed feed(*core);
  Job job{s, &feed, capacity, false, {false}};
  const int64_t chunk = options & 0xFFFF;
  if (pool == nullptr || !pool->start(1, run_job, &job, kWatchNs))
    return pto_core_run(core, entry, args);
  feed.guard(&feed.lock);
  core->feed = &feed;
  core->chunk = chunk > 0 && chunk <= 4096 ? static_cast<uint32_t>(chunk) : 64;
  pool->notify();
  // (a test's: the loop runs before the build starts, so every build interleaves with it)
  for (const int64_t t = pto::wsp::monotonic_ns();
       (options & PTO_STREAM_WAIT) && !job.started.load(std::memory_order_acquire) &&
       pto::wsp::monotonic_ns() - t < 1000000000;)
    sched_yield();
  const int32_t rc = pto_core_run(core, entry, args);
  core->feed = nullptr;
  feed.failed.store(rc != 0, std::memory_order_relaxed);
  feed.end(core->num_nodes());
  pool->run_untaken(run_job);
  pool->wait(kJoinSpinNs);
  feed.guard(nullptr);
  *scheduled = rc == 0 && job.ok ? 1 : 0;
  return rc;
}

}  // extern "C"
