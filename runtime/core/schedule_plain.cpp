// pto-wsp native runtime core: the scheduler's loop for a plain schedule (docs/native.md
// "Scheduling a graph in virtual time").
//
// A plain schedule releases each task as it is created (timing immediate), has no streams,
// no pipeline_depth, no task window, no work stealing, no batch_deps and one priority: then
// a task is ready when its predecessors are done, and it waits in its target worker's or its
// pool's queue in creation order. scheduler.h states the rules for every schedule; this loop
// is those rules for this case with none of the per-node tests of the others and one count a
// node, and its results are the general loop's to the bit (tests run both).
//
// A task is issued as it is created, so its issue number (its number among the tasks), stream
// (its own), lane (0) and issue time (its creation time) say nothing the graph does not: they
// are not written (the host knows them from S[kPlain]), and neither are creation times
// without a generator cost (all 0) nor when a node's dependencies were met: its creation, or
// its last predecessor's end if later (the host derives them when asked), nor a node's start:
// a task starts its cost before its end (integer-valued doubles below 2^53: exact), a barrier
// at -1 (8 B a node of new memory less on a first run).
#include <linux/futex.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <functional>
#include <limits>
#include <vector>

#include "scheduler.h"
#include "worker_pool.h"

using namespace sched;  // NOLINT(build/namespaces): the scheduler's row and counter names

namespace {

constexpr int64_t kEmpty = std::numeric_limits<int64_t>::max();  // an empty queue's head
constexpr double kNever = std::numeric_limits<double>::infinity();  // no completion pending
// A streamed run takes the nodes that arrived this many at a time, looking between them
// whether the builder waits to move an array.
constexpr int64_t kSlice = 64;
// A ready queue holding this many ids makes room for every node of the run.
constexpr size_t kQueueSmall = 4096;
// Successor links reserved a node for a streamed run (the LLaMA layer's tasks have ~3 edges
// in; more only grows the arrays).
constexpr size_t kEdgesReserved = 4;
// How long the builder spins for the lock to move an array before it sleeps on it (the
// scheduler lets go within a slice, unless its thread is off its CPU).
constexpr int64_t kMoveSpinNs = 200000;

// A task running: when it completes, on which worker.
struct Running {
  double t;
  int64_t tid, w;
};

// The smallest power of two >= n.
size_t ring_size(int64_t n) {
  size_t k = 1;
  while (k < static_cast<size_t>(n)) k *= 2;
  return k;
}

// One plain run over a prepared scheduler's graph and outputs: a whole graph (its fanout in
// CSR), or (kStreamed) one read as it is built (run_streamed).
template <bool kStreamed>
class Plain {
 public:
  // nodes: how many the run has at most (a streamed run's capacity).
  Plain(PtoScheduler& s, int64_t nodes)
      : s_(s),
        nodes_(static_cast<size_t>(nodes)),
        g_(s.g),
        W_(s.W),
        left_(s.left.data()),
        worker_(s.NI[kWorker]),
        end_(s.NF[kEnd]),
        created_(s.c.gen_cost ? s.NF[kCreatedT] : nullptr),
        busy_(s.busy),
        trun_(s.trun),
        order_(s.order),
        queues_(s.plain_queues.data()),
        head_(s.W + 3, kEmpty),
        idle_((s.W + 63) / 64, 0),
        serves_(s.W, 0),
        running_(ring_size(s.W)),
        rmask_(running_.size() - 1),
        shead_(s.succ_head.data()) {
    for (int64_t w = 0; w < W_; ++w) {
      idle_[w / 64] |= uint64_t(1) << (w % 64);
      for (int p = 0; p < 3; ++p) serves_[w] |= static_cast<uint8_t>(s.serves[w * 3 + p] << p);
    }
  }

  // False: a completion's ready successors came out of order (a fanout row not ascending:
  // the stalls summed in another order than the general loop's, which sorts the rows).
  bool run() {
    const int64_t n = g_.num_nodes;
    int64_t first = 0;
    double gen = 0.0;
    for (int64_t tid = 0; tid < n; ++tid) {
      if (g_.kind[tid] != 0) continue;
      while (due_ <= gen) advance();
      if (now_ < gen) now_ = gen;
      create(first, tid, gen);
      first = tid + 1;
      gen += static_cast<double>(s_.c.gen_cost);
    }
    if (first < n) create(first, n - 1, now_);  // the barriers after the last task
    if (now_ < gen) now_ = gen;
    while (advance()) {
    }
    finish(n, gen);
    return ascending_;
  }

 private:
  // The counters of a run of n nodes that has drained, the generator at `gen`.
  void finish(int64_t n, double gen) {
    int64_t* S = s_.S;
    S[kIssued] = S[kCreated] = nissued_;
    S[kLive] = nissued_ - completed_;
    S[kCompleted] = completed_;
    S[kNCreated] = n;
    S[kEseq] = S[kOrdN] = ordn_;
    S[kNIdle] = nidle_;
    S[kPlain] = 1;
    s_.T[kNow] = now_;
    s_.T[kGen] = gen;
    s_.stalls[kStDeps] = stall_;
  }

  // Nodes first..last join at time t (a task last, the barriers before it; or barriers only).
  void create(int64_t first, int64_t last, double t) {
    const bool task = g_.kind[last] == 0;
    if (first < last || !task) barriers(first, task ? last : last + 1);
    if (created_)
      for (int64_t d = first; d <= last; ++d) created_[d] = t;
    if (task) {
      ncreated_ = last + 1;
      ++nissued_;
      if (left_[last] == 0) enqueue(last);  // (done before, or by the barriers just now)
    }
    if (nidle_ > 0 && queued_ > 0) dispatch_idle();
  }

  // Barriers first..end-1 join (before the task `end`, if any: it counts the predecessors
  // they complete, not created yet). Every row is written once: a barrier's worker here, a
  // task's when it starts (each does: nothing stops a plain run), ends when done.
  void barriers(int64_t first, int64_t end) {
    ncreated_ = end;
    for (int64_t d = first; d < end; ++d) {
      worker_[d] = -1;
      end_[d] = -1.0;
    }
    for (int64_t d = first; d < end; ++d)
      if (left_[d] == 0 && end_[d] < 0) {  // (not done meanwhile by another's completion)
        end_[d] = now_;
        complete_node(d);
      }
  }

  // Ready task tid waits in its target worker's queue, else its pool's: the ids of a queue
  // ascending, so a task pushed after a later one goes to the heap. (The one place the loop
  // reads a task's pool and target.)
  void enqueue(int64_t tid) {
    const int p = rules::pool_index(g_.pool[tid]);
    const int64_t target = s_.target_of(tid);
    const int64_t h = target >= 0 ? rules::target_worker(target, s_.cand[p]) : W_ + p;
    PlainQueue& q = queues_[h];
    const int32_t id = static_cast<int32_t>(tid);
    // (a queue takes a task once a run: past kQueueSmall ids, room for every node, and no
    // copy after, each page touched once; doubling, a queue of a 100k run copied ~0.4 MB
    // into fresh pages)
    const size_t held = q.fifo.size();
    if (held == q.fifo.capacity() && held >= kQueueSmall)
      q.fifo.reserve(std::max(nodes_, 2 * held));
    if (q.head == q.fifo.size()) {
      q.fifo.clear();
      q.head = 0;
      q.fifo.push_back(id);
    } else if (q.fifo.back() < id) {
      q.fifo.push_back(id);
    } else {
      q.heap.push_back(id);
      std::push_heap(q.heap.begin(), q.heap.end(), std::greater<int32_t>());
    }
    if (tid < head_[h]) head_[h] = tid;
    if (h >= W_) pools_ |= 1 << (h - W_);
    ++queued_;
  }

  // Queue h's head, tid, leaves it.
  void pop(int64_t h, int64_t tid) {
    PlainQueue& q = queues_[h];
    const size_t n = q.fifo.size();
    if (q.head < n && q.fifo[q.head] == tid) {
      ++q.head;
    } else {
      std::pop_heap(q.heap.begin(), q.heap.end(), std::greater<int32_t>());
      q.heap.pop_back();
    }
    const int64_t a = q.head < n ? q.fifo[q.head] : kEmpty;
    const int64_t b = q.heap.empty() ? kEmpty : q.heap.front();
    head_[h] = a < b ? a : b;
    if (h >= W_ && head_[h] == kEmpty) pools_ &= ~(1 << (h - W_));
    --queued_;
  }

  // Idle workers, lowest first, start the best task each may take: the lowest id at the
  // head of its own queue and of the pools' queues it serves (nothing is queued while they
  // do: one pass). (Counters in locals: a member is reloaded after every store to an output
  // row, which the compiler cannot tell apart from it.)
  // While a streamed graph is built and the clock has moved (at time 0 each node is created
  // as the whole graph's run creates it: every idle worker picks), the pass stops at the first
  // idle worker with nothing to take (a task not built yet may be its next), its later
  // workers left for the pass to come.
  void dispatch_idle() {
    const double now = now_;
    int64_t ordn = ordn_, nidle = nidle_;
    for (size_t k = 0; k < idle_.size() && queued_ > 0; ++k) {
      for (uint64_t bits = idle_[k]; bits != 0 && queued_ > 0; bits &= bits - 1) {
        const int64_t w = static_cast<int64_t>(k * 64) + __builtin_ctzll(bits);
        int64_t best = -1, top = head_[w];
        if (top != kEmpty) best = w;
        for (unsigned m = pools_ & serves_[w]; m != 0; m &= m - 1) {
          const int64_t h = W_ + __builtin_ctz(m), x = head_[h];
          const bool lower = x < top;  // (no branch: which pool is first is not predictable)
          best = lower ? h : best;
          top = lower ? x : top;
        }
        if (best < 0) {
          if (kStreamed && building_ && moved_) {
            ordn_ = ordn;
            nidle_ = nidle;
            return;
          }
          continue;
        }
        const int64_t tid = top;
        pop(best, tid);
        idle_[k] &= ~(uint64_t(1) << (w % 64));
        --nidle;
        worker_[tid] = w;
        order_[ordn++] = tid;
        const double cost = static_cast<double>(s_.cost_of(tid));
        busy_[w] += cost;
        ++trun_[w];
        // (among the running, earliest first: after those due at the same time, which
        // started first)
        size_t i = rtail_++;
        const double t = now + cost;
        for (; i != rhead_ && running_[(i - 1) & rmask_].t > t; --i)
          running_[i & rmask_] = running_[(i - 1) & rmask_];
        running_[i & rmask_] = Running{t, tid, w};
        if (i == rhead_) due_ = t;
      }
    }
    ordn_ = ordn;
    nidle_ = nidle;
  }

  // The completions of the next instant, then idle workers pick: false if none is pending.
  bool advance() {
    if (rhead_ == rtail_) return false;
    const double t = running_[rhead_ & rmask_].t;
    now_ = t;
    moved_ = true;
    while (rhead_ != rtail_ && running_[rhead_ & rmask_].t == t) {
      const Running& r = running_[rhead_++ & rmask_];
      const int64_t tid = r.tid, w = r.w;
      end_[tid] = t;
      idle_[w / 64] |= uint64_t(1) << (w % 64);
      ++nidle_;
      ++completed_;
      complete_node(tid);
    }
    due_ = rhead_ != rtail_ ? running_[rhead_ & rmask_].t : kNever;
    if (queued_ > 0) dispatch_idle();
    return true;
  }

  // Node nid is done now (its end set): its successors' counts drop; a barrier left with none
  // is done too, and so on (the general complete_node's order: stalls sum in the same order).
  void complete_node(int64_t nid) {
    std::vector<int64_t>& stack = s_.stack;
    stack.clear();
    release(nid);
    while (!stack.empty()) {
      const int64_t v = stack.back();
      stack.pop_back();
      release(v);
    }
  }
  void release(int64_t v) {
    if (kStreamed) return release_linked(v);
    int32_t* const left = left_;
    const int32_t* const edges = g_.fanout_edges;
    const double now = now_;
    int64_t last = -1;  // the last successor ready
    for (int64_t e = g_.fanout_begin[v], end = g_.fanout_begin[v + 1]; e < end; ++e) {
      const int64_t d = edges[e];
      // (a node created later counts only the predecessors not done by then)
      if (--left[d] != 0 || d >= ncreated_) continue;
      ascending_ &= d > last;  // (the ready ones in order: taken as from a sorted row)
      last = d;
      if (g_.kind[d] != 0) {
        end_[d] = now;
        s_.stack.push_back(d);
      } else {
        const double issued = created_ ? created_[d] : 0.0;
        if (now > issued) stall_ += now - issued;
        enqueue(d);
      }
    }
  }

  // A streamed node's successors, linked as they came (stream.cpp: the CSR is made beside).
  void release_linked(int64_t v) {
    const double now = now_;
    for (int32_t e = shead_[v]; e >= 0; e = s_.succ_next[e]) {
      const int64_t d = s_.succ_dst[e];
      if (--left_[d] != 0) continue;
      if (g_.kind[d] != 0) {
        end_[d] = now;
        s_.stack.push_back(d);
      } else {
        stall_ += now;  // (created at 0)
        enqueue(d);
      }
    }
  }

 public:
  // The run of a graph read as it is built (see stream.cpp). With every task created at
  // time 0 (no generator cost) and each ready queue in id order, a task not built yet has a
  // higher id than every built one: it loses every choice to a built task. So the loop
  // decides what the whole graph's run decides as soon as each idle worker has a built task
  // to take; a worker with none (or, at time 0, creation itself) waits for the build. A node
  // arriving after its predecessors are done was ready at the last of their ends. Costs of
  // at least 1 (no completion at time 0) and sums below 2^53 (the stalls, summed in another
  // order, exact) are the caller's to check. False: the graph is not one this loop takes
  // (a node beyond the outputs, a pool or kernel out of range) or the build failed; the
  // caller schedules the whole graph instead.
  bool run_streamed(PtoSchedFeed& f, int64_t cap) {
    std::unique_lock<std::mutex> hold(f.lock.m);
    const uint32_t* src = nullptr;
    int64_t seen = 0;
    for (;;) {
      const bool ended = f.ended.load(std::memory_order_acquire);
      const int64_t k = f.published.load(std::memory_order_acquire);
      if (f.failed.load(std::memory_order_relaxed) || k > cap) return false;
      if (k > seen) {
        f.arrays(s_.g, src);
        for (int64_t a = seen; a < k; a = std::min(k, a + kSlice)) {
          if (a > seen && f.lock.moving.load(std::memory_order_relaxed)) let_move(f, hold, src);
          if (!arrive(a, std::min(k, a + kSlice), src)) return false;
        }
        seen = k;
        if (moved_ && nidle_ > 0 && queued_ > 0) dispatch_idle();
      } else if (f.lock.moving.load(std::memory_order_relaxed)) {
        let_move(f, hold, src);
      } else if (ended) {
        if (f.published.load(std::memory_order_acquire) == seen) break;  // (else: the last)
      } else if (nidle_ == 0) {
        advance();  // (every worker busy: the next completions are final)
      } else {
        hold.unlock();
        await(f, seen);
        hold.lock();
      }
    }
    building_ = false;
    if (nidle_ > 0 && queued_ > 0) dispatch_idle();
    while (advance()) {
    }
    finish(seen, 0.0);
    return true;
  }

 private:
  // The builder is about to move an array (PtoMoveLock): the lock let go until it has moved
  // it, then the arrays' addresses read again.
  void let_move(PtoSchedFeed& f, std::unique_lock<std::mutex>& hold, const uint32_t*& src) {
    hold.unlock();
    while (f.lock.moving.load(std::memory_order_acquire)) pto::wsp::spin_pause();
    hold.lock();
    f.arrays(s_.g, src);
  }

  // Until the build publishes more than `seen` nodes or ends: spinning for kSpinNs (a chunk
  // comes every few microseconds, the build's end within one: a thread asleep then would
  // be woken ~10-50 us late, and its caller would wait), then asleep until the builder
  // rings (sleeping, then the test, against the builder's store, then its look at sleeping:
  // one of the two sees the other's; a ring lost all the same would cost a millisecond).
  static void await(PtoSchedFeed& f, int64_t seen) {
    constexpr int64_t kSpinNs = 100000;
    const int64_t until = pto::wsp::monotonic_ns() + kSpinNs;
    const auto waiting = [&] {
      return f.published.load(std::memory_order_seq_cst) == seen &&
             !f.ended.load(std::memory_order_seq_cst);
    };
    for (uint32_t k = 1; waiting(); ++k) {
      pto::wsp::spin_pause();
      if ((k & 63) != 0 || pto::wsp::monotonic_ns() < until) continue;
      const uint32_t bell = f.bell.load(std::memory_order_seq_cst);
      f.sleeping.store(1, std::memory_order_seq_cst);
      if (waiting()) {
        const timespec most{0, 1000000};
        syscall(SYS_futex, &f.bell, FUTEX_WAIT_PRIVATE, bell, &most, nullptr, 0);
      }
      f.sleeping.store(0, std::memory_order_relaxed);
    }
  }

  // Nodes first..last-1 arrive, their edges in from edge e_ of src on: each counts the
  // predecessors not done, joins their successor lists, and a task with none is ready.
  // Before the clock moves, each is created as the whole graph's run creates it (its idle
  // workers pick after each). False: a pool or kernel out of range.
  bool arrive(int64_t first, int64_t last, const uint32_t* src) {
    const int64_t nk = g_.num_kernel_costs;
    // (within the capacity reserved: nothing moves, and a page is touched once, as nodes come)
    if (static_cast<size_t>(last) > s_.left.size()) {
      s_.left.resize(last);
      s_.succ_head.resize(last);
    }
    for (int64_t v = first; v < last; ++v) {
      const uint8_t pool = g_.pool[v];
      if (pool != 0 && pool != 1 && pool != 255) return false;
      end_[v] = -1.0;
      shead_[v] = -1;
      int32_t pending = 0;
      double ready = 0.0;
      for (int64_t e = e_, end = e_ + g_.fanin[v]; e < end; ++e) {
        const uint32_t p = src[e];
        const double t = end_[p];
        if (t >= 0.0) {
          ready = t > ready ? t : ready;
        } else {
          ++pending;
          const int32_t at = static_cast<int32_t>(s_.succ_dst.size());
          s_.succ_dst.push_back(static_cast<int32_t>(v));
          s_.succ_next.push_back(shead_[p]);
          shead_[p] = at;
        }
      }
      e_ += g_.fanin[v];
      left_[v] = pending;
      if (g_.kind[v] != 0) {
        worker_[v] = -1;
        if (pending == 0) end_[v] = ready;  // (its successors come later)
        continue;
      }
      const int32_t kernel = g_.kernel[v];
      if (kernel < 0 || kernel + 1 >= nk) return false;
      ncreated_ = v + 1;
      ++nissued_;
      if (pending == 0) {
        stall_ += ready;
        enqueue(v);
        if (!moved_ && nidle_ > 0) dispatch_idle();  // (creation's pass, at time 0)
      }
    }
    return true;
  }

  PtoScheduler& s_;
  const size_t nodes_;
  const PtoSchedGraph& g_;
  const int64_t W_;
  int32_t* left_;  // per node: predecessors not done
  int64_t* worker_;
  double *end_, *created_;
  double* busy_;
  int64_t *trun_, *order_;
  PlainQueue* queues_;
  std::vector<int64_t> head_;     // per queue: its lowest id, or kEmpty
  unsigned pools_ = 0;            // a bit a pool whose queue is not empty
  std::vector<uint64_t> idle_;    // a bit an idle worker
  std::vector<uint8_t> serves_;   // per worker: a bit a pool it takes tasks of
  std::vector<Running> running_;  // a ring, [rhead_, rtail_): at most one a worker
  const size_t rmask_;
  size_t rhead_ = 0, rtail_ = 0;
  double due_ = kNever;  // the earliest completion's time
  bool ascending_ = true;  // each completion's ready successors came in ascending order
  bool moved_ = false;     // the clock has moved past 0
  bool building_ = kStreamed;  // (streamed) the build is not over
  int32_t* shead_;         // (streamed) per node its first successor's link, or -1
  int64_t e_ = 0;          // (streamed) the next node's first edge in
  double now_ = 0.0, stall_ = 0.0;
  int64_t ncreated_ = 0, nissued_ = 0, completed_ = 0, ordn_ = 0, queued_ = 0;
  int64_t nidle_ = W_;
};

}  // namespace

void PtoMoveLock::lock() {
  moving.store(true, std::memory_order_seq_cst);
  const int64_t until = pto::wsp::monotonic_ns() + kMoveSpinNs;
  for (uint32_t k = 1; !m.try_lock(); ++k) {
    pto::wsp::spin_pause();
    if ((k & 63) == 0 && pto::wsp::monotonic_ns() > until) {
      m.lock();
      return;
    }
  }
}

bool PtoScheduler::plain() const {
  return !c.general && (c.timing == kImmediate || c.timing_n == 0) && !c.streams && !c.depth &&
         !c.task_window && !c.work_steal && !c.batch_deps && c.stop_at < 0 &&
         (!c.ready_priority || one_priority);
}

// A fanout row out of order (a caller's graph) sums the stalls in another order than the
// general loop's, which sorts the rows: the run is made again with them sorted.
void PtoScheduler::run_plain() {
  for (bool again = false;; again = true) {
    if (again) {
      g = *ascending(&g);
      std::fill(trun, trun + W, 0);
      std::fill(busy, busy + W, 0.0);
    }
    reset_plain();
    left.assign(g.fanin, g.fanin + g.num_nodes);
    if (Plain<false>(*this, g.num_nodes).run() || again) break;
  }
  check_drained();
}

// The plain loop's queues and (a streamed run's) successor lists emptied.
void PtoScheduler::reset_plain() {
  plain_queues.resize(W + 3);
  for (PlainQueue& q : plain_queues) {
    q.fifo.clear();
    q.heap.clear();
    q.head = 0;
  }
  succ_dst.clear();
  succ_next.clear();
}

bool PtoScheduler::run_streamed(PtoSchedFeed& f, int64_t capacity) {
  reset_plain();
  // Room for every node the outputs hold and a few edges each, reserved untouched: grown by
  // doubling as nodes came, these arrays were a third of a first run's fresh pages (each
  // copy touching new ones) and its copies.
  const size_t n = static_cast<size_t>(capacity);
  left.reserve(n);
  succ_head.reserve(n);
  succ_dst.reserve(kEdgesReserved * n);
  succ_next.reserve(kEdgesReserved * n);
  if (!Plain<true>(*this, capacity).run_streamed(f, capacity)) return false;
  check_drained();
  return error.empty();
}
