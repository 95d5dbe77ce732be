// pto-wsp host runtime: CSP pipelines (pto_wsp/pipeline.h) on AICPU-like threads.
//
// Every process replica is a thread. They share one lock, held whenever a process runs its
// own code, and released only while it is blocked: on a channel (its condition variable, woken
// by the process that unblocks it) or waiting for the tasks it issued. So the Builder has one
// user at a time, as for a main program, and the channel state machine (channel.h) runs
// under the lock. The tasks go to the one scheduler (the workers run them meanwhile); a
// process switch swaps the builder's ordered scopes and issue context for the process's own.
//
// Deadlock: tasks never wait for a process, so a process waiting for its tasks always goes
// on; the run is deadlocked exactly when every live process is blocked on a channel. That is
// checked under the lock whenever a process blocks on a channel or finishes, by the process
// doing it: the last one to block reports the Deadlock (every blocked process, its operation
// and channel) and wakes the others, which end. So no wait can hang.
#include "pto_wsp/pipeline.h"

#include <string.h>

#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "channel.h"
#include "hooks.h"

namespace pto {
namespace wsp {

int64_t Received::coord(int64_t k) const {
  if (k < 0 || k >= static_cast<int64_t>(values.size()))
    fail("tg.coord: the message has no such coordinate (position, coordinates)", k,
         static_cast<int64_t>(values.size()));
  return values[static_cast<size_t>(k)];
}

bool Coords::get(const char* name, int64_t& value) const {
  for (int i = 0; i < n; ++i)
    if (strcmp(names[i], name) == 0) {
      value = values[i];
      return true;
    }
  return false;
}

namespace {

// A message: the sender's coordinates and the tasks of its send body.
struct Msg {
  std::vector<const char*> names;
  std::vector<int64_t> values;
  MessageTasks tasks;
};

// Thrown through a process's function when the run has failed: it just ends.
struct Stop {};

// A process used a channel that is closed for it (pto_wsp.errors.ChannelClosed).
struct ChannelClosed {
  std::string process, channel, message;
};

// What a blocked process waits in: "send", "recv", "record" or "synchronize", and where.
struct Waiting {
  std::string op;
  int queue = -1;
};

struct Proc {
  std::string name;
  std::vector<int> sends, receives;
  Waiting waiting;         // op empty: not blocked on a channel
  bool done = false;
  bool has_value = false;  // a recv resumed with a message (else: the channel closed)
  Msg value;
};

struct Queue {
  std::string name;
  csp::Channel<Proc*, Msg> ch;
};

// The channels of one pipeline run, on channel.h's rules: a blocked process that may go on is
// given to `resume` (its waiting cleared; a receiver's value set); errors are thrown.
class Channels {
 public:
  std::vector<Queue> queues;
  std::function<void(Proc*)> resume;

  void add_process(Proc* p) {
    for (int q : p->sends) ++queues[q].ch.live_senders;
    for (int q : p->receives) ++queues[q].ch.live_receivers;
  }

  // true: sent (or, nonblocking, false: dropped); a blocking send that must wait returns true
  // with `p` waiting, for the caller to block.
  bool send(Proc* p, int qi, Msg m, bool nonblocking, bool* waits) {
    Queue& q = queues[qi];
    const char* op = q.ch.event ? "record" : "send";
    Proc* r = nullptr;
    *waits = false;
    switch (q.ch.send(p, m, nonblocking, &r)) {
      case decltype(q.ch)::kTaken:
        r->value = std::move(m);
        r->has_value = true;
        wake(r);
        return true;
      case decltype(q.ch)::kWaits:
        p->waiting = Waiting{op, qi};
        *waits = true;
        return true;
      case decltype(q.ch)::kDropped:
        return false;
      case decltype(q.ch)::kSentAfterClose:
        throw ChannelClosed{p->name, q.name, std::string(op) + " after Channel.close()"};
      case decltype(q.ch)::kNoReceiver:
        throw ChannelClosed{p->name, q.name,
                            std::string(op) + " after every process that receives it has finished"};
      default:
        return true;
    }
  }

  // 1: `out` holds a message; 0: the channel is closed (consume ends); -1: `p` is blocked.
  int recv(Proc* p, int qi, Msg& out) {
    Queue& q = queues[qi];
    Proc* sender = nullptr;
    bool woke = false;
    switch (q.ch.recv(p, &out, &sender, &woke)) {
      case decltype(q.ch)::kGot:
        if (woke) wake(sender);
        return 1;
      case decltype(q.ch)::kEnded:
        return 0;
      case decltype(q.ch)::kEventClosed:
        throw ChannelClosed{p->name, q.name,
                            "synchronize after every process that records it finished"};
      default:
        p->waiting = Waiting{q.ch.event ? "synchronize" : "recv", qi};
        p->has_value = false;
        return -1;
    }
  }

  // `p` finished its body: the channels it alone sent on close, and so on.
  void finish(Proc* p) {
    p->done = true;
    for (int qi : p->sends) {
      Queue& q = queues[qi];
      if (!q.ch.sender_done()) continue;
      for (Proc* r; q.ch.ended_receiver(&r);) {
        if (q.ch.event)
          throw ChannelClosed{r->name, q.name,
                              "synchronize after every process that records it finished"};
        r->has_value = false;
        wake(r);
      }
    }
    for (int qi : p->receives)
      if (queues[qi].ch.receiver_done())
        throw ChannelClosed{queues[qi].ch.senders.front().first->name, queues[qi].name,
                            "send after every process that receives it has finished"};
  }

 private:
  void wake(Proc* p) {
    p->waiting = Waiting{};
    resume(p);
  }
};

}  // namespace

struct Process::State {
  Pipeline::Impl* pl = nullptr;
  Proc proc;
  ProcessFn fn;
  int64_t replica = 0;
  order::Scopes scopes;
  host::IssueContext ctx;
  std::condition_variable cv;
  bool resumed = false;
  bool receiving = false;  // blocked in recv (not synchronize): a message is issued at resume
  std::unique_lock<std::mutex>* lk = nullptr;  // the pipeline's lock, held while it runs
  std::thread thread;

  // Send (false: a nonblocking send dropped it); wait for the tasks issued so far.
  bool put(int queue, Msg msg, bool nonblocking);
  void wait_tasks();
};

struct Pipeline::Impl {
  Builder& b;
  std::mutex m;
  std::condition_variable all_done;
  Channels channels;
  std::vector<std::unique_ptr<Process::State>> procs;
  int live = 0, blocked = 0;
  bool failed = false;
  Process::State* current = nullptr;  // the process using the builder
  const ReceiptKeys* keys = nullptr;

  explicit Impl(Builder& builder) : b(builder) {
    channels.resume = [this](Proc* p) {
      for (auto& s : procs)
        if (&s->proc == p) {
          --blocked;
          s->resumed = true;
          if (s->receiving && p->has_value) issue(*s, p->value);
          s->cv.notify_one();
        }
    };
  }

  // The process takes the builder (it holds the lock), or gives it back.
  void enter(Process::State& s) {
    host::swap_scopes(b, s.scopes);
    host::set_issue_context(b, &s.ctx);
    current = &s;
  }
  void leave(Process::State& s) {
    current = nullptr;
    host::set_issue_context(b, nullptr);
    host::swap_scopes(b, s.scopes);
  }

  // Process `r` received `msg`: it issues the message's tasks, with its replica coordinate,
  // and handles the message (its tasks inherit the coordinates). A message handed over to a
  // blocked receiver is issued by the process handing it over, in the receiver's name, so
  // tasks are issued in the order their messages leave the channel.
  void issue(Process::State& r, Msg& msg) {
    struct Switch {
      Impl& pl;
      Process::State* was;
      Process::State& r;
      Switch(Impl& p, Process::State& to) : pl(p), was(p.current), r(to) {
        if (was != &r) {
          pl.leave(*was);
          pl.enter(r);
        }
      }
      ~Switch() {
        r.ctx.replica = -1;
        if (was != &r) {
          pl.leave(r);
          pl.enter(*was);
        }
      }
    } to(*this, r);
    r.ctx.names = msg.names;
    r.ctx.values = msg.values;
    if (msg.tasks) {
      r.ctx.replica = r.replica;
      msg.tasks(b);
    }
  }

  // The run fails (`what` empty: it has already, a builder call said so by throwing).
  void fail(const std::string& what, int code) {
    if (!failed && !what.empty()) host::fail_run(b, what, code);
    failed = true;
    for (auto& s : procs) s->cv.notify_one();
    all_done.notify_all();
  }

  // `s` is blocked on a channel: wait to be resumed (or for the run to fail).
  void block(Process::State& s) {
    ++blocked;
    s.resumed = false;
    if (blocked == live) deadlock();
    leave(s);
    s.cv.wait(*s.lk, [&s, this] { return s.resumed || failed; });
    enter(s);
    if (failed) throw Stop{};
  }

  void deadlock() {
    std::string text;
    for (auto& s : procs) {
      if (s->proc.done) continue;
      const Waiting& w = s->proc.waiting;
      text += s->proc.name + "\t" + w.op + "\t" +
              (w.queue >= 0 ? channels.queues[static_cast<size_t>(w.queue)].name : "") + "\n";
    }
    fail(text, 4);
  }

  void closed(const ChannelClosed& c) {
    fail(c.process + "\t" + c.channel + "\t" + c.message, 5);
    throw Stop{};
  }

  void main(Process::State& s) {
    std::unique_lock<std::mutex> lk(m);
    s.lk = &lk;
    enter(s);
    Process p(&s);
    try {
      if (failed) throw Stop{};
      s.fn(b, p, s.replica);
      try {
        channels.finish(&s.proc);
      } catch (const ChannelClosed& c) {
        closed(c);
      }
    } catch (const Stop&) {
    } catch (const host::RunError& e) {
      fail(e.what(), e.code);
    } catch (const std::exception& e) {
      fail(s.proc.name + ": " + e.what(), 1);
    } catch (...) {
      fail(s.proc.name + ": the process threw", 1);
    }
    s.proc.done = true;
    --live;
    if (!failed && live > 0 && blocked == live) deadlock();
    leave(s);
    if (live == 0) all_done.notify_all();
  }
};

// ------------------------------------------------------------------------ Process

namespace {

// A message's coordinates: those of the message being handled first (a stage forwards the
// index it received), then the send's own; a name in both keeps the send's value.
Msg make_message(const host::IssueContext& c, std::initializer_list<const char*> names,
                 std::initializer_list<int64_t> values, MessageTasks tasks) {
  Msg msg;
  for (size_t i = 0; i < c.names.size(); ++i) {
    bool shadowed = false;
    for (const char* n : names) shadowed = shadowed || strcmp(n, c.names[i]) == 0;
    if (!shadowed) {
      msg.names.push_back(c.names[i]);
      msg.values.push_back(c.values[i]);
    }
  }
  msg.names.insert(msg.names.end(), names.begin(), names.end());
  msg.values.insert(msg.values.end(), values.begin(), values.end());
  msg.tasks = std::move(tasks);
  return msg;
}

}  // namespace

bool Process::State::put(int queue, Msg msg, bool nonblocking) {
  try {
    bool waits = false;
    if (!pl->channels.send(&proc, queue, std::move(msg), nonblocking, &waits)) return false;
    if (waits) pl->block(*this);
  } catch (const ChannelClosed& c) {
    pl->closed(c);
  }
  return true;
}

void Process::State::wait_tasks() {
  if (ctx.issued.empty()) return;
  host::flush_issue(pl->b);
  std::vector<uint32_t> ids;
  ids.swap(ctx.issued);
  pl->leave(*this);
  lk->unlock();
  host::wait_nodes(pl->b, ids);
  lk->lock();
  pl->enter(*this);
  if (pl->failed) throw Stop{};
}

void Process::send(int queue, std::initializer_list<const char*> names,
                   std::initializer_list<int64_t> values, MessageTasks tasks) {
  s_->put(queue, make_message(s_->ctx, names, values, std::move(tasks)), false);
}

bool Process::try_send(int queue, std::initializer_list<const char*> names,
                       std::initializer_list<int64_t> values, MessageTasks tasks) {
  return s_->put(queue, make_message(s_->ctx, names, values, std::move(tasks)), true);
}

bool Process::recv(int queue, Received& message) {
  Pipeline::Impl& pl = *s_->pl;
  s_->ctx.names.clear();  // the previous message is handled
  s_->ctx.values.clear();
  Msg msg;
  int got = 0;
  try {
    got = pl.channels.recv(&s_->proc, queue, msg);
  } catch (const ChannelClosed& e) {
    pl.closed(e);
  }
  if (got == 0) return false;
  if (got > 0) {
    pl.issue(*s_, msg);
  } else {
    s_->receiving = true;
    try {
      pl.block(*s_);  // (issued by the process that handed it over)
    } catch (...) {
      s_->receiving = false;
      throw;
    }
    s_->receiving = false;
    if (!s_->proc.has_value) return false;
    msg = std::move(s_->proc.value);
    s_->proc.value = Msg{};
  }
  message.names = std::move(msg.names);
  message.values = std::move(msg.values);
  return true;
}

void Process::wait() { s_->wait_tasks(); }

void Process::record(int queue) {
  s_->wait_tasks();
  s_->put(queue, Msg{}, false);
}

void Process::synchronize(int queue) {
  Pipeline::Impl& pl = *s_->pl;
  Msg msg;
  try {
    // A closed event throws here, or in the finish of its last recorder (not a resume).
    if (pl.channels.recv(&s_->proc, queue, msg) < 0) pl.block(*s_);
  } catch (const ChannelClosed& e) {
    pl.closed(e);
  }
}

// ------------------------------------------------------------------------ Pipeline

Pipeline::Pipeline(Builder& b, const QueueInfo* queues, int num_queues, const ReceiptKeys* keys)
    : impl_(new Impl(b)) {
  impl_->keys = keys;
  for (int i = 0; i < num_queues; ++i) {
    Queue q;
    q.name = queues[i].name;
    q.ch.capacity = queues[i].capacity;
    q.ch.event = queues[i].is_event;
    impl_->channels.queues.push_back(std::move(q));
  }
}

Pipeline::~Pipeline() = default;

void Pipeline::process(const char* name, int64_t replicas, std::initializer_list<int> sends,
                       std::initializer_list<int> receives, ProcessFn fn) {
  for (int64_t r = 0; r < replicas; ++r) {
    std::unique_ptr<Process::State> s(new Process::State());
    s->pl = impl_.get();
    s->proc.name = replicas == 1 ? std::string(name)
                                 : std::string(name) + "[" + std::to_string(r) + "]";
    s->proc.sends.assign(sends.begin(), sends.end());
    s->proc.receives.assign(receives.begin(), receives.end());
    s->fn = fn;
    s->replica = r;
    s->ctx.keys = impl_->keys;
    impl_->channels.add_process(&s->proc);
    impl_->procs.push_back(std::move(s));
  }
}

void Pipeline::run() {
  Impl& pl = *impl_;
  host::start_workers(pl.b);
  {
    std::unique_lock<std::mutex> lk(pl.m);
    pl.live = static_cast<int>(pl.procs.size());
    for (auto& s : pl.procs) {
      Process::State* st = s.get();
      s->thread = std::thread([&pl, st] { pl.main(*st); });
    }
    pl.all_done.wait(lk, [&pl] { return pl.live == 0; });
  }
  for (auto& s : pl.procs) s->thread.join();
}

}  // namespace wsp
}  // namespace pto
