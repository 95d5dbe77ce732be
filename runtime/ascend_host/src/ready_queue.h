// Ready queues of the Ascend host runtime: where ready tasks wait for a worker.
#pragma once

#include <stdint.h>

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <queue>
#include <thread>
#include <utility>
#include <vector>

namespace pto {
namespace wsp {
namespace host {

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

class SpinLock {
 public:
  void lock() {
    int spins = 0;
    while (flag_.test_and_set(std::memory_order_acquire)) {
      if (++spins > 64) std::this_thread::yield();
      cpu_relax();
    }
  }
  void unlock() { flag_.clear(std::memory_order_release); }

 private:
  std::atomic_flag flag_ = ATOMIC_FLAG_INIT;
};

// A ready queue. FIFO: a bounded lock-free ring (D. Vyukov's MPMC queue: one CAS per push
// and per pop, no lock, no allocation); it never fills, since at most `capacity` nodes (the
// task ring's slots) are unfinished at once. Priority: a heap under a mutex.
class ReadyQueue {
 public:
  struct Cell {  // 8 bytes: positions wrap at 2^32 (compared as differences)
    std::atomic<uint32_t> seq;
    uint32_t id;
  };
  // An empty ring's cells, kept from one run to the next (executor.cpp): a run's queues
  // start where an earlier run's ended instead of writing every cell again (5 x 4,096 cells
  // for two workers, ~15 us a run).
  struct Kept {
    Cell* cells;
    uint64_t capacity;
    uint32_t pos;  // head and tail: each cell's seq is the next position that maps to it
  };
  static bool take_kept(uint64_t capacity, Kept& out);
  static bool give_kept(const Kept& k);

  ReadyQueue() = default;
  ReadyQueue(const ReadyQueue&) = delete;
  ReadyQueue& operator=(const ReadyQueue&) = delete;
  ~ReadyQueue() {
    if (!cells_) return;
    const uint32_t head = head_.load(std::memory_order_relaxed);
    if (head == tail_.load(std::memory_order_relaxed) &&
        give_kept({cells_.get(), mask_ + 1, head}))
      cells_.release();
  }

  void init(bool priority, uint64_t capacity) {
    priority_ = priority;
    if (priority_) return;
    mask_ = capacity - 1;
    Kept k;
    if (take_kept(capacity, k)) {
      cells_.reset(k.cells);
      head_.store(k.pos, std::memory_order_relaxed);
      tail_.store(k.pos, std::memory_order_relaxed);
      return;
    }
    cells_.reset(new Cell[capacity]);
    for (uint64_t i = 0; i < capacity; ++i)
      cells_[i].seq.store(static_cast<uint32_t>(i), std::memory_order_relaxed);
  }
  void push(uint32_t id, int64_t prio) {
    if (priority_) {
      std::lock_guard<std::mutex> g(m_);
      heap_.push({prio, id});
      size_.fetch_add(1, std::memory_order_release);
      return;
    }
    uint32_t pos = head_.load(std::memory_order_relaxed);
    Cell* c;
    while (true) {
      c = &cells_[pos & mask_];
      const uint32_t seq = c->seq.load(std::memory_order_acquire);
      const int32_t diff = static_cast<int32_t>(seq - pos);
      if (diff == 0) {
        if (head_.compare_exchange_weak(pos, pos + 1, std::memory_order_relaxed)) break;
      } else if (diff < 0) {
        cpu_relax();  // full: cannot happen (see above); wait for a pop
        pos = head_.load(std::memory_order_relaxed);
      } else {
        pos = head_.load(std::memory_order_relaxed);
      }
    }
    c->id = id;
    c->seq.store(pos + 1, std::memory_order_release);
  }
  // push and pop for a run with one thread (Impl::solo): the same cells and positions,
  // without the CAS (nothing else touches the queue meanwhile).
  void push_solo(uint32_t id, int64_t prio) {
    if (priority_) return push(id, prio);
    const uint32_t pos = head_.load(std::memory_order_relaxed);
    Cell& c = cells_[pos & mask_];
    c.id = id;
    c.seq.store(pos + 1, std::memory_order_relaxed);
    head_.store(pos + 1, std::memory_order_relaxed);
  }
  bool pop_solo(uint32_t& id) {
    if (priority_) return pop(id);
    const uint32_t pos = tail_.load(std::memory_order_relaxed);
    Cell& c = cells_[pos & mask_];
    if (c.seq.load(std::memory_order_relaxed) != pos + 1) return false;  // empty
    id = c.id;
    c.seq.store(pos + static_cast<uint32_t>(mask_) + 1, std::memory_order_relaxed);
    tail_.store(pos + 1, std::memory_order_relaxed);
    return true;
  }
  // The queue's approximate length (reads the consumers' position: a cache miss, so only
  // when a worker sleeps).
  int64_t approx_size() const {
    if (priority_) return size_.load(std::memory_order_relaxed);
    return static_cast<int32_t>(head_.load(std::memory_order_relaxed) -
                                tail_.load(std::memory_order_relaxed));
  }
  bool pop(uint32_t& id) {
    if (priority_) {
      if (size_.load(std::memory_order_acquire) == 0) return false;
      std::lock_guard<std::mutex> g(m_);
      if (heap_.empty()) return false;
      id = heap_.top().second;
      heap_.pop();
      size_.fetch_sub(1, std::memory_order_relaxed);
      return true;
    }
    uint32_t pos = tail_.load(std::memory_order_relaxed);
    Cell* c;
    while (true) {
      c = &cells_[pos & mask_];
      const uint32_t seq = c->seq.load(std::memory_order_acquire);
      const int32_t diff = static_cast<int32_t>(seq - (pos + 1));
      if (diff == 0) {
        if (tail_.compare_exchange_weak(pos, pos + 1, std::memory_order_relaxed)) break;
      } else if (diff < 0) {
        return false;  // empty
      } else {
        pos = tail_.load(std::memory_order_relaxed);
      }
    }
    id = c->id;
    c->seq.store(pos + static_cast<uint32_t>(mask_) + 1, std::memory_order_release);
    return true;
  }
  bool empty() const {
    if (priority_) return size_.load(std::memory_order_acquire) == 0;
    const uint32_t pos = tail_.load(std::memory_order_acquire);
    return cells_[pos & mask_].seq.load(std::memory_order_acquire) != pos + 1;
  }

 private:
  using Item = std::pair<int64_t, uint32_t>;
  bool priority_ = false;
  std::unique_ptr<Cell[]> cells_;
  uint64_t mask_ = 0;
  alignas(64) std::atomic<uint32_t> head_{0};
  alignas(64) std::atomic<uint32_t> tail_{0};
  alignas(64) std::mutex m_;
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> heap_;
  std::atomic<int64_t> size_{0};
};

}  // namespace host
}  // namespace wsp
}  // namespace pto
