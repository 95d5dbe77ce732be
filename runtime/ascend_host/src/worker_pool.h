// pto-wsp runtimes: worker threads kept from one run to the next, shared by the Ascend host
// runtime (runtime.cpp: its workers) and the native core (stream.cpp: the scheduler beside
// the build). Header-only: each library that includes it has its own pool.
#pragma once

#include <stdint.h>
#include <stdio.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace pto {
namespace wsp {

// A short wait for a value another thread is about to store: the CPU told it spins (x86's
// pause), so the other thread, on the same core's twin, runs at full speed.
inline void spin_pause() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// Nanoseconds of the monotonic clock.
inline int64_t monotonic_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

namespace host {

// Worker threads kept from one run to the next. Starting a thread and joining it cost a run
// ~0.05 ms on the 2-vCPU VM of docs/PERFORMANCE.md (clone, the first switch into the new
// thread, its exit; a 110-task run took ~0.1 ms in all), a tenth of a 1k-task run: a kept
// thread is woken instead (one futex wake) and reports back on a condition variable. Thread
// i runs worker i of each run that has more than i workers; a run finds the pool busy (another
// thread's run) or needing more than kPoolThreads threads and starts its own threads, as
// before. An idle thread exits after kPoolIdle (the highest first), so a process that loaded
// many programs does not keep their threads. The pool belongs to one process: after a fork,
// the child makes a new one (the parent's threads do not exist there). One pool per loaded
// library: the pool and its class have internal linkage (as a static local of the inline
// acquire(), g_pool was a GNU unique symbol, one object for every host library of the
// process, even libraries built from another version of this file; and the threads' entry
// points of one library, weak symbols, stood in for another's).
namespace {
class WorkerPool;
std::mutex g_pool_m;
WorkerPool* g_pool = nullptr;  // never freed: detached threads may wait on it

class WorkerPool {
 public:
  static constexpr int kPoolThreads = 16;
  static constexpr std::chrono::milliseconds kPoolIdle{1000};

  // The pool of this process, held by the caller until wait(); null when another run holds it.
  static WorkerPool* acquire() {
    std::lock_guard<std::mutex> g(g_pool_m);
    if (g_pool == nullptr || g_pool->pid_ != getpid()) g_pool = new WorkerPool();
    if (!g_pool->busy_.try_lock()) return nullptr;
    return g_pool;
  }

  // Has the kept threads run fn(ctx, w) for w in [0, n) once notify() comes; false (and the
  // pool released) when they cannot: too many workers, or a thread could not be started.
  // Until notify() the run is reserved to the caller: no kept thread takes it (not even one
  // woken by chance), and run_untaken runs all of it if notify() never came. spin_ns: after
  // this run, a thread watches that long for the next before it sleeps (runs that follow
  // each other closely then start without a wake-up: ~10 us each on the benchmark's VM).
  bool start(int n, void (*fn)(void*, int), void* ctx, int64_t spin_ns = 0) {
    if (n > kPoolThreads) {
      busy_.unlock();
      return false;
    }
    std::unique_lock<std::mutex> lk(m_);
    try {
      while (threads_ < n) {
        const int i = threads_;
        if (static_cast<int>(cvs_.size()) <= i) {
          cvs_.emplace_back(new std::condition_variable());
          taken_.push_back(0);
        }
        std::thread(&WorkerPool::loop, this, i, gen_).detach();
        ++threads_;
      }
    } catch (const std::exception&) {
      lk.unlock();
      busy_.unlock();
      return false;
    }
    ++gen_;
    n_ = n;
    left_ = n;
    fn_ = fn;
    ctx_ = ctx;
    spin_ns_ = spin_ns;
    reserved_ = true;
    return true;
  }

  // The started run released to the kept threads, woken.
  void notify() {
    {
      std::lock_guard<std::mutex> g(m_);
      reserved_ = false;
      open_.store(gen_, std::memory_order_release);
    }
    wake_threads();
  }
  static void notify_cb(void* pool) { static_cast<WorkerPool*>(pool)->notify(); }

  // Runs on the calling thread each fn of the started run that no kept thread has taken
  // yet: on one CPU, a woken thread runs only when the caller blocks, so the caller that is
  // done building runs worker i itself instead of switching to the thread and back (~10 us
  // each way on the benchmark's VM); the thread, when it wakes, finds its turn taken.
  // here: the fn to call on this thread instead (the same work, the caller's state kept).
  // A run never notified stays reserved while here() runs (Impl::run_solo runs every
  // worker's tasks on this thread, and may notify), until every fn is taken here.
  void run_untaken(void (*here)(void*, int)) {
    std::unique_lock<std::mutex> lk(m_);
    for (int i = 0; i < n_; ++i) {
      if (taken_[static_cast<size_t>(i)] == gen_) continue;
      taken_[static_cast<size_t>(i)] = gen_;
      lk.unlock();
      here(ctx_, i);
      lk.lock();
      --left_;
    }
    reserved_ = false;  // a thread that wakes now finds its turn taken
  }

  // Until every fn of the started run has returned; then the pool is free. spin_ns: first
  // spin that long for it (a run about to end: a sleeping waiter is woken ~10 us late).
  void wait(int64_t spin_ns = 0) {
    if (spin_ns > 0) {
      const int64_t until = monotonic_ns() + spin_ns;
      for (uint32_t k = 1; left_.load(std::memory_order_acquire) != 0; ++k) {
        spin_pause();
        if ((k & 255) == 0 && monotonic_ns() > until) break;
      }
    }
    {
      std::unique_lock<std::mutex> lk(m_);
      done_cv_.wait(lk, [this] { return left_ == 0; });
    }
    busy_.unlock();
  }

 private:
  WorkerPool() : pid_(getpid()) {}

 public:
  static void name_thread(int w) {
    char name[16];
    snprintf(name, sizeof name, "pto-wsp-w%d", w);
    pthread_setname_np(pthread_self(), name);
  }

 private:
  void wake_threads() {
    for (int i = 0; i < n_; ++i) cvs_[static_cast<size_t>(i)]->notify_one();
  }

  void loop(int i, uint64_t seen) {
    name_thread(i);
    std::unique_lock<std::mutex> lk(m_);
    std::condition_variable& cv = *cvs_[static_cast<size_t>(i)];
    while (true) {
      if (gen_ == seen || i >= n_ || reserved_) {
        if (i >= n_) seen = gen_;  // a run without worker i: skipped (a reserved one waited for)
        if (!cv.wait_for(lk, kPoolIdle,
                         [&] { return gen_ != seen && i < n_ && !reserved_; })) {
          // Idle: the highest thread leaves (a run holding m_ in start sees the count).
          if (i == threads_ - 1 && gen_ == seen) {
            --threads_;
            return;
          }
          continue;
        }
      }
      seen = gen_;
      if (taken_[static_cast<size_t>(i)] == gen_) continue;  // run_untaken ran it
      taken_[static_cast<size_t>(i)] = gen_;
      void (*fn)(void*, int) = fn_;
      void* ctx = ctx_;
      const int64_t spin = spin_ns_;
      lk.unlock();
      fn(ctx, i);
      lk.lock();
      if (--left_ == 0) done_cv_.notify_one();
      if (spin > 0) {  // (watching for the next run, the lock left to its caller)
        lk.unlock();
        const int64_t until = monotonic_ns() + spin;
        for (uint32_t k = 1; open_.load(std::memory_order_acquire) == seen; ++k) {
          spin_pause();
          if ((k & 255) == 0 && monotonic_ns() > until) break;
        }
        lk.lock();
      }
    }
  }

  std::mutex busy_;  // held by the run using the pool, from acquire to wait
  std::mutex m_;
  std::vector<std::unique_ptr<std::condition_variable>> cvs_;  // per thread
  std::condition_variable done_cv_;
  std::vector<uint64_t> taken_;  // per thread: the last run whose fn i was taken
  uint64_t gen_ = 0;  // runs started
  std::atomic<uint64_t> open_{0};  // the last run notify() released
  int64_t spin_ns_ = 0;  // (start's)
  bool reserved_ = false;  // the run started is the caller's until notify() (see start)
  int n_ = 0, threads_ = 0;
  std::atomic<int> left_{0};  // fns of the started run not returned (changed under m_)
  void (*fn_)(void*, int) = nullptr;
  void* ctx_ = nullptr;
  const pid_t pid_;
};

}  // namespace
}  // namespace host

}  // namespace wsp
}  // namespace pto
