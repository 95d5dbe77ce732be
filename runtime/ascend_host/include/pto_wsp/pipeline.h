// pto-wsp AICPU pipelines: what an emitted CSP pipeline (tg.queue / tg.process) is written
// against, beside the builder API of orchestration.h.
//
// A pipeline program declares its queues (name, capacity, whether an event) and its processes
// (name, replicas, the queues each sends on and receives from, its function), then runs them:
// every replica is an AICPU-like thread. A process creates tasks through the Builder as a
// task-generation program does; `send` packages the tasks of a send body (a closure) with
// the sender's coordinates as one message, and the process that receives it issues them.
// The host runtime implements this in src/pipeline.cpp; the channel rules are src/channel.h.
#pragma once

#include <stdint.h>

#include <functional>
#include <initializer_list>
#include <memory>
#include <vector>

#include "pto_wsp/orchestration.h"

namespace pto {
namespace wsp {

struct QueueInfo {
  const char* name;
  int64_t capacity;  // 0: rendezvous
  bool is_event;     // a !csp.signal queue (record / synchronize)
};

// The tasks of a send body: run by the receiving process, with its Builder.
using MessageTasks = std::function<void(Builder&)>;

// A message a process received: its coordinates (tg.coord %m[k]).
struct Received {
  std::vector<const char*> names;
  std::vector<int64_t> values;
  int64_t coord(int64_t k) const;
};

// A received task's coordinates, for the keys below: get(name) finds one by name.
struct Coords {
  const char* const* names;
  const int64_t* values;
  int n;
  bool get(const char* name, int64_t& value) const;
};

// A schedule key the receiving process computes: false when a coordinate it reads is missing.
using KeyFn = bool (*)(const Coords&, int64_t&);

enum class ReceiptDispatch : uint8_t { None, Affinity, Hash, DispatchBy };

// The schedule's keys of a message's tasks, computed when a process issues them (they may
// read its replica, which the sender cannot know): each applies only where the sender left
// the value unset (target -1, stream 0, priority 0); dispatch_threshold's key picks the pool.
struct ReceiptKeys {
  ReceiptDispatch dispatch;
  const char* affinity_axis;  // ReceiptDispatch::Affinity: the coordinate that is the target
  KeyFn dispatch_key, stream_key, priority_key, threshold_key;
  int64_t threshold;  // metric (unsigned) below it: pool `below`, else `above`
  ExecPool below, above;
};

class Pipeline;

// One running replica of a process: the calls its function makes besides the Builder's.
class Process {
 public:
  struct State;
  explicit Process(State* s) : s_(s) {}
  // tg.send: blocks while the queue is full (capacity 0: until a receiver takes it).
  void send(int queue, std::initializer_list<const char*> names,
            std::initializer_list<int64_t> values, MessageTasks tasks);
  // tg.send nonblocking: whether the message was delivered (else it is dropped).
  bool try_send(int queue, std::initializer_list<const char*> names,
                std::initializer_list<int64_t> values, MessageTasks tasks);
  // One step of tg.consume: the next message, its tasks issued (false: the queue is closed).
  bool recv(int queue, Received& message);
  // The end of a consume iteration: wait until the tasks issued for the message completed.
  void wait();
  // tg.record waits for this process's tasks, then meets a synchronize; tg.synchronize.
  void record(int queue);
  void synchronize(int queue);

 private:
  State* s_;
};

using ProcessFn = std::function<void(Builder&, Process&, int64_t replica)>;

class Pipeline {
 public:
  struct Impl;
  Pipeline(Builder& b, const QueueInfo* queues, int num_queues,
           const ReceiptKeys* keys = nullptr);
  ~Pipeline();
  // Replicas > 1 are named name[0], name[1], ...
  void process(const char* name, int64_t replicas, std::initializer_list<int> sends,
               std::initializer_list<int> receives, ProcessFn fn);
  // Run every process to its end; a deadlock or a closed channel is the run's error.
  void run();

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace wsp
}  // namespace pto
