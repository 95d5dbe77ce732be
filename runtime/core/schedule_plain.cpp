// pto-wsp native runtime core: the scheduler's loop for a plain schedule (docs/native.md
// "Scheduling a graph in virtual time").
//
// A plain schedule releases each task as it is created (timing immediate), has no streams,
// no pipeline_depth, no task window, no work stealing, no batch_deps and one priority: then
// a task is ready when its predecessors are done, and it waits in its target worker's or its
// pool's queue in creation order. scheduler.h states the rules for every schedule; this loop
// is those rules for this case with none of the per-node tests of the others and a quarter of
// the per-node state, and its results are the general loop's to the bit (tests run both).
//
// A task is issued as it is created, so its issue number (its number among the tasks), stream
// (its own), lane (0) and issue time (its creation time) say nothing the graph does not: they
// are not written (the host knows them from S[kPlain]), and neither are creation times
// without a generator cost (all 0) nor when a node's dependencies were met: its creation, or
// its last predecessor's end if later (the host derives them when asked).
#include <stdint.h>

#include <vector>

#include "scheduler.h"

using namespace sched;  // NOLINT(build/namespaces): the scheduler's row and counter names

namespace {

// One plain run over a prepared scheduler's graph and outputs.
class Plain {
 public:
  explicit Plain(PtoScheduler& s)
      : s_(s),
        g_(s.g),
        W_(s.W),
        left_(s.left.data()),
        worker_(s.NI[kWorker]),
        start_(s.NF[kStart]),
        end_(s.NF[kEnd]),
        created_(s.c.gen_cost ? s.NF[kCreatedT] : nullptr),
        busy_(s.busy),
        trun_(s.trun),
        queues_(s.plain_queues.data()) {}

  void run() {
    const int64_t n = g_.num_nodes;
    int64_t first = 0;
    double gen = 0.0;
    for (int64_t tid = 0; tid < n; ++tid) {
      if (g_.kind[tid] != 0) continue;
      while (!s_.events.empty() && s_.events.top().t <= gen) advance();
      if (now_ < gen) now_ = gen;
      create(first, tid, gen);
      first = tid + 1;
      gen += static_cast<double>(s_.c.gen_cost);
    }
    if (first < n) create(first, n - 1, now_);  // the barriers after the last task
    if (now_ < gen) now_ = gen;
    while (advance()) {
    }
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

 private:
  // Nodes first..last join at time t (a task last, the barriers before it; or barriers only).
  void create(int64_t first, int64_t last, double t) {
    const bool task = g_.kind[last] == 0;
    // (the task counts its predecessors the barriers complete, not issued yet)
    ncreated_ = task ? last : last + 1;
    // Every row is written once: a barrier's worker and start here, a task's when it starts
    // (each does: nothing stops a plain run), ends when done.
    const int64_t barriers = task ? last : last + 1;
    for (int64_t d = first; d < barriers; ++d) {
      worker_[d] = -1;
      start_[d] = end_[d] = -1.0;
    }
    if (created_)
      for (int64_t d = first; d <= last; ++d) created_[d] = t;
    for (int64_t d = first; d < barriers; ++d)
      if (left_[d] == 0 && end_[d] < 0) {  // (not done meanwhile by another's completion)
        end_[d] = now_;
        complete_node(d);
      }
    if (task) {
      ncreated_ = last + 1;
      ++nissued_;
      if (left_[last] == 0) enqueue(last);  // (done before, or by the barriers just now)
    }
    if (nidle_ > 0) dispatch_idle();
  }

  void enqueue(int64_t tid) {
    const int p = rules::pool_index(g_.pool[tid]);
    const int64_t target = s_.target_of(tid);
    const int64_t h = target >= 0 ? rules::target_worker(target, s_.cand[p]) : W_ + p;
    ++queued_;
    queues_[h].push(tid);
  }

  // The best task idle worker w may take, or -1 (the general pick without stealing).
  int64_t pick(int64_t w) {
    int64_t best = -1;
    if (queues_[w].size()) best = w;
    const uint8_t* serves = &s_.serves[w * 3];
    for (int p = 0; p < 3; ++p) {
      const int64_t h = W_ + p;
      if (serves[p] && queues_[h].size() && (best < 0 || queues_[h].top() < queues_[best].top()))
        best = h;
    }
    if (best < 0) return -1;
    --queued_;
    return queues_[best].pop();
  }

  // Idle workers, lowest first, start the best task each may take (nothing is queued while
  // they do: one pass).
  void dispatch_idle() {
    uint8_t* idle = s_.idle.data();
    for (int64_t w = 0; w < W_ && queued_ > 0; ++w) {
      if (!idle[w]) continue;
      const int64_t tid = pick(w);
      if (tid < 0) continue;
      idle[w] = 0;
      --nidle_;
      worker_[tid] = w;
      start_[tid] = now_;
      s_.order[ordn_++] = tid;
      const int64_t cost = g_.cost[tid];
      busy_[w] += static_cast<double>(cost);
      ++trun_[w];
      s_.events.push(now_ + static_cast<double>(cost), ordn_, kEvComplete,
                     static_cast<int32_t>(w), tid);
    }
  }

  // The completions of the next instant, then idle workers pick: false if none is pending.
  bool advance() {
    if (s_.events.empty()) return false;
    const double t = s_.events.top().t;
    now_ = t;
    while (!s_.events.empty() && s_.events.top().t == t) {
      const int64_t tid = s_.events.top().tid, w = s_.events.top().worker;
      s_.events.pop();
      end_[tid] = t;
      s_.idle[w] = 1;
      ++nidle_;
      ++completed_;
      complete_node(tid);
    }
    if (nidle_ > 0) dispatch_idle();
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
    int32_t* const left = left_;
    const int32_t* const edges = g_.fanout_edges;
    const double now = now_;
    for (int64_t e = g_.fanout_begin[v], end = g_.fanout_begin[v + 1]; e < end; ++e) {
      const int64_t d = edges[e];
      // (a node created later counts only the predecessors not done by then)
      if (--left[d] != 0 || d >= ncreated_) continue;
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

  PtoScheduler& s_;
  const PtoSchedGraph& g_;
  const int64_t W_;
  int32_t* left_;  // per node: predecessors not done
  int64_t* worker_;
  double *start_, *end_, *created_;
  double* busy_;
  int64_t* trun_;
  BasicQueue<int64_t>* queues_;
  double now_ = 0.0, stall_ = 0.0;
  int64_t ncreated_ = 0, nissued_ = 0, completed_ = 0, ordn_ = 0, queued_ = 0;
  int64_t nidle_ = W_;
};

}  // namespace

bool PtoScheduler::plain() const {
  return !c.general && (c.timing == kImmediate || c.timing_n == 0) && !c.streams && !c.depth &&
         !c.task_window && !c.work_steal && !c.batch_deps && c.stop_at < 0 &&
         (!c.ready_priority || one_priority);
}

void PtoScheduler::run_plain() {
  left.assign(g.fanin, g.fanin + g.num_nodes);
  plain_queues.resize(W + 3);
  for (BasicQueue<int64_t>& q : plain_queues) q.clear();
  Plain(*this).run();
  check_drained();
}
