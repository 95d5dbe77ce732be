// pto-wsp runtime core: structural order and edge reasons, the one C++ statement of
// runtime/graph.py's rules (docs/tg.md "Structural order as ordering points"). Shared by the
// Ascend host runtime (builder.cpp) and the native core (runtime/core/core.cpp), with the
// TensorMap (tensormap.h) that infers data edges.
//
// An ordered scope keeps a frontier (the nodes every task created in it from now on follows)
// and a group (the tasks created since its last ordering point, at any depth). At an ordering
// point a non-empty group becomes the frontier; an empty one leaves it, so order flows across
// empty iterations. A new task follows the innermost scope's frontier: directly when it holds
// one node, through one barrier node (made on the first such task) when it holds several. A
// scope starts with its parent's frontier (shared: a barrier made for one is seen by all);
// when it exits, its last group (else, if it had an ordering point of its own, its frontier)
// joins the parent's group.
#pragma once

#include <stdint.h>

#include <algorithm>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace pto {
namespace wsp {
namespace order {

enum NodeKind : uint8_t { kTask = 0, kBarrier = 1 };
enum EdgeKind : uint8_t { kStructural = 0, kRaw = 1, kWaw = 2, kWar = 3 };

// A predecessor and why: node in the low 32 bits, EdgeKind above.
inline uint64_t pack(uint32_t node, EdgeKind kind) {
  return static_cast<uint64_t>(node) | (static_cast<uint64_t>(kind) << 32);
}

struct Scope {
  std::shared_ptr<std::vector<uint32_t>> frontier;
  std::vector<uint32_t> group;
  bool own = false;  // the frontier comes from one of this scope's ordering points
};

// The stack of ordered scopes, the root (no ordered scope) first.
class Scopes {
 public:
  Scopes() { reset(); }
  void reset() {
    stack_.clear();
    stack_.push_back(Scope{std::make_shared<std::vector<uint32_t>>(), {}, false});
  }
  size_t open() const { return stack_.size() - 1; }  // ordered scopes open

  // The frontier a new task of the innermost scope follows. When it holds several nodes,
  // barrier(nodes) first makes one barrier node (returning its id) that replaces them.
  template <typename MakeBarrier>
  const std::vector<uint32_t>& frontier(MakeBarrier&& barrier) {
    std::vector<uint32_t>& f = *stack_.back().frontier;
    if (f.size() > 1) {
      const uint32_t b = barrier(f);
      f.assign(1, b);
    }
    return f;
  }
  const std::vector<uint32_t>& current() const { return *stack_.back().frontier; }

  // A task was created in the innermost scope.
  void created(uint32_t task) {
    if (stack_.size() > 1) stack_.back().group.push_back(task);
  }

  void enter() { stack_.push_back(Scope{stack_.back().frontier, {}, false}); }

  // false: no ordered scope is open.
  bool point() {
    if (stack_.size() == 1) return false;
    Scope& scope = stack_.back();
    if (!scope.group.empty()) {
      scope.frontier = std::make_shared<std::vector<uint32_t>>(std::move(scope.group));
      scope.group.clear();
      scope.own = true;
    }
    return true;
  }

  bool exit() {
    if (stack_.size() == 1) return false;
    Scope scope = std::move(stack_.back());
    stack_.pop_back();
    if (stack_.size() == 1) return true;
    Scope& parent = stack_.back();
    if (!scope.group.empty())
      parent.group.insert(parent.group.end(), scope.group.begin(), scope.group.end());
    else if (scope.own)
      parent.group.insert(parent.group.end(), scope.frontier->begin(), scope.frontier->end());
    return true;
  }

 private:
  std::vector<Scope> stack_;
};

// A task's candidate predecessors by reason: its scope's frontier and event waits
// (structural), then the data edges the TensorMap found (events: null when not tracked).
struct Candidates {
  const std::vector<uint32_t>& frontier;
  const std::vector<uint32_t>* events;
  const std::vector<uint32_t>&raw, &waw, &war;
  size_t size() const {
    return frontier.size() + (events != nullptr ? events->size() : 0) + raw.size() + waw.size() +
           war.size();
  }
};

// Each predecessor once, with its first reason in the order structural, raw, waw, war, never
// the task itself: put(node, kind) gets the kept ones in that order, and kinds[k] grows by the
// edges of kind k kept. Straight from the candidates' vectors: no packed copy to filter.
class FirstReason {
 public:
  // Before task ids start again from 0 (the set's stamps are task ids).
  void reset() { seen_.clear(); }
  template <typename Put>
  size_t keep(const Candidates& c, uint32_t self, int64_t* kinds, Put&& put) {
    const size_t ne = c.events != nullptr ? c.events->size() : 0, total = c.size();
    if (total <= kFew) {
      // (a task's few candidates: each compared with those kept so far)
      uint32_t kept[kFew];
      size_t m = 0;
      return each(c, ne, kinds, [&](uint32_t p, EdgeKind k) {
        if (p == self) return false;
        for (size_t j = 0; j < m; ++j)
          if (kept[j] == p) return false;
        kept[m++] = p;
        put(p, k);
        return true;
      });
    }
    // An open-addressing set stamped with the task's id: nothing to clear between tasks.
    size_t want = 64;
    while (want < 2 * total) want <<= 1;
    if (seen_.size() < want) seen_.assign(want, {0xFFFFFFFFu, 0xFFFFFFFFu});
    const size_t mask = seen_.size() - 1;
    return each(c, ne, kinds, [&](uint32_t p, EdgeKind k) {
      if (p == self) return false;
      size_t h = (p * 0x9E3779B1u) & mask;
      for (; seen_[h].second == self; h = (h + 1) & mask)
        if (seen_[h].first == p) return false;
      seen_[h] = {p, self};
      put(p, k);
      return true;
    });
  }

 private:
  static constexpr size_t kFew = 8;
  // Offers every candidate in order to first(p, kind) (true: kept); counts the kept by kind.
  template <typename First>
  static size_t each(const Candidates& c, size_t ne, int64_t* kinds, First&& first) {
    // (counted per reason in registers, added once: an array indexed by kind would live on
    // the stack, and its increments stall store forwarding)
    const auto offer = [&first](const uint32_t* from, size_t n, EdgeKind k) {
      size_t kept = 0;
      for (size_t i = 0; i < n; ++i) kept += first(from[i], k);
      return kept;
    };
    const size_t s = offer(c.frontier.data(), c.frontier.size(), kStructural) +
                     (ne != 0 ? offer(c.events->data(), ne, kStructural) : 0);
    const size_t r = offer(c.raw.data(), c.raw.size(), kRaw);
    const size_t w = offer(c.waw.data(), c.waw.size(), kWaw);
    const size_t a = offer(c.war.data(), c.war.size(), kWar);
    kinds[kStructural] += static_cast<int64_t>(s);
    kinds[kRaw] += static_cast<int64_t>(r);
    kinds[kWaw] += static_cast<int64_t>(w);
    kinds[kWar] += static_cast<int64_t>(a);
    return s + r + w + a;
  }
  std::vector<std::pair<uint32_t, uint32_t>> seen_;  // (predecessor, task)
};

// Streams and events of ordinary workloads (tg.event_record / event_wait / event_query), as
// runtime/graph.py's _StreamEvents: per stream (and for all streams) the tasks created since
// its last record and that record's node; per event the node(s) it stands for; the nodes every
// later task, or every later task of a stream, waits for. Several nodes become one barrier.
class Events {
 public:
  bool on = false;  // tracking since the program's first task (use_events)

  // `event` stands for every task created so far on `stream` (all: every task so far).
  template <typename MakeBarrier>
  void record(const std::string& event, bool all, int64_t stream, MakeBarrier&& barrier) {
    std::vector<uint32_t>& since = all ? since_all_ : since_[stream];
    std::vector<uint32_t>& mark = all ? mark_all_ : mark_[stream];
    std::vector<uint32_t> nodes(since);
    nodes.insert(nodes.end(), mark.begin(), mark.end());
    if (nodes.size() > 1) nodes.assign(1, barrier(nodes));
    mark = nodes;
    since.clear();
    events_[event] = std::move(nodes);
  }

  // Later tasks of `stream` (all: every later task) wait for `event`'s nodes, if recorded.
  void wait(const std::string& event, bool all, int64_t stream) {
    auto it = events_.find(event);
    if (it == events_.end()) return;
    std::vector<uint32_t>& into = all ? wait_all_ : wait_on_[stream];
    for (uint32_t n : it->second)
      if (std::find(into.begin(), into.end(), n) == into.end()) into.push_back(n);
  }

  bool query(const std::string& event) const { return events_.count(event) != 0; }

  // Before a task of `stream` is allocated: the nodes it waits for, into `out`.
  template <typename MakeBarrier>
  void waits(int64_t stream, MakeBarrier&& barrier, std::vector<uint32_t>& out) {
    out.clear();
    if (wait_all_.size() > 1) wait_all_.assign(1, barrier(wait_all_));
    out = wait_all_;
    auto it = wait_on_.find(stream);
    if (it == wait_on_.end()) return;
    if (it->second.size() > 1) it->second.assign(1, barrier(it->second));
    out.insert(out.end(), it->second.begin(), it->second.end());
  }

  void created(uint32_t task, int64_t stream) {
    since_all_.push_back(task);
    since_[stream].push_back(task);
  }

 private:
  std::vector<uint32_t> since_all_, mark_all_, wait_all_;
  std::unordered_map<int64_t, std::vector<uint32_t>> since_, mark_, wait_on_;
  std::unordered_map<std::string, std::vector<uint32_t>> events_;
};

}  // namespace order
}  // namespace wsp
}  // namespace pto
