// The CSP channel state machine of the host runtime's pipelines (docs/semantics.md "Pipelines").
//
// A port of runtime/csp.py's rules, without threads or time: bounded FIFO queues of messages
// (capacity 0: rendezvous), a blocked sender handing its message over when a receiver takes
// it, a channel closing when every process that sends on it has finished, ChannelClosed for a
// send no live process can receive and a synchronize no live process can record. Who runs
// when is the caller's (pipeline.cpp: threads under one lock); a blocked process is resumed
// through `resume`, which the caller turns into a wake-up. The native core's csp_pipe.h holds
// the same rules interleaved with its virtual-time scheduler; this file is the part without.
#pragma once

#include <stdint.h>

#include <deque>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace pto {
namespace wsp {
namespace csp {

// A process used a channel that is closed for it (pto_wsp.errors.ChannelClosed).
struct ChannelClosed {
  std::string process, channel, message;
};

// What a blocked process waits in: "send", "recv", "record" or "synchronize", and where.
struct Waiting {
  std::string op;
  int queue = -1;
};

template <typename Msg>
struct Proc {
  std::string name;
  std::vector<int> sends, receives;
  Waiting waiting;           // op empty: not blocked on a channel
  bool done = false;
  bool has_value = false;    // a recv resumed with a message (else: the channel closed)
  Msg value;
};

template <typename Msg>
struct Queue {
  std::string name;
  int64_t capacity = 0;
  bool is_event = false;
  std::deque<Msg> buffer;
  std::deque<std::pair<Proc<Msg>*, Msg>> blocked_senders;
  std::deque<Proc<Msg>*> blocked_receivers;
  bool closed = false;
  int live_senders = 0, live_receivers = 0;
  int64_t dropped = 0;  // messages try_send dropped
};

// The channels of one pipeline run. `resume(p)` is called for a blocked process that may go
// on (its waiting is cleared first; a receiver's value is set).
template <typename Msg>
class Channels {
 public:
  std::vector<Queue<Msg>> queues;
  std::function<void(Proc<Msg>*)> resume;

  void add_process(Proc<Msg>* p) {
    for (int q : p->sends) ++queues[q].live_senders;
    for (int q : p->receives) ++queues[q].live_receivers;
  }

  // true: sent; false: `p` is blocked until a receiver takes the message.
  bool send(Proc<Msg>* p, int qi, Msg m) {
    Queue<Msg>& q = queues[qi];
    const char* op = q.is_event ? "record" : "send";
    if (q.live_receivers == 0)
      throw ChannelClosed{p->name, q.name,
                          std::string(op) + " after every process that receives it has finished"};
    if (!q.blocked_receivers.empty()) {
      Proc<Msg>* r = q.blocked_receivers.front();
      q.blocked_receivers.pop_front();
      r->value = std::move(m);
      r->has_value = true;
      wake(r);
      return true;
    }
    if (static_cast<int64_t>(q.buffer.size()) < q.capacity) {
      q.buffer.push_back(std::move(m));
      return true;
    }
    q.blocked_senders.emplace_back(p, std::move(m));
    p->waiting = Waiting{op, qi};
    return false;
  }

  // A nonblocking send: delivered when a receiver waits or the buffer has room, else dropped.
  bool try_send(Proc<Msg>* p, int qi, Msg m) {
    Queue<Msg>& q = queues[qi];
    if (q.live_receivers == 0 || !q.blocked_receivers.empty() ||
        static_cast<int64_t>(q.buffer.size()) < q.capacity)
      return send(p, qi, std::move(m));
    ++q.dropped;
    return false;
  }

  // 1: `out` holds a message; 0: the channel is closed (consume ends); -1: `p` is blocked.
  int recv(Proc<Msg>* p, int qi, Msg& out) {
    Queue<Msg>& q = queues[qi];
    if (!q.buffer.empty()) {
      out = std::move(q.buffer.front());
      q.buffer.pop_front();
      if (!q.blocked_senders.empty()) {
        auto sender = std::move(q.blocked_senders.front());
        q.blocked_senders.pop_front();
        q.buffer.push_back(std::move(sender.second));
        wake(sender.first);
      }
      return 1;
    }
    if (!q.blocked_senders.empty()) {
      auto sender = std::move(q.blocked_senders.front());
      q.blocked_senders.pop_front();
      out = std::move(sender.second);
      wake(sender.first);
      return 1;
    }
    if (q.closed) {
      if (q.is_event)
        throw ChannelClosed{p->name, q.name,
                            "synchronize after every process that records it finished"};
      return 0;
    }
    q.blocked_receivers.push_back(p);
    p->waiting = Waiting{q.is_event ? "synchronize" : "recv", qi};
    p->has_value = false;
    return -1;
  }

  // `p` finished its body: the channels it alone sent on close, and so on.
  void finish(Proc<Msg>* p) {
    p->done = true;
    for (int qi : p->sends) {
      Queue<Msg>& q = queues[qi];
      if (--q.live_senders == 0) {
        q.closed = true;
        while (!q.blocked_receivers.empty()) {
          Proc<Msg>* r = q.blocked_receivers.front();
          if (q.is_event)
            throw ChannelClosed{r->name, q.name,
                                "synchronize after every process that records it finished"};
          q.blocked_receivers.pop_front();
          r->has_value = false;
          wake(r);
        }
      }
    }
    for (int qi : p->receives) {
      Queue<Msg>& q = queues[qi];
      if (--q.live_receivers == 0 && !q.blocked_senders.empty())
        throw ChannelClosed{q.blocked_senders.front().first->name, q.name,
                            "send after every process that receives it has finished"};
    }
  }

 private:
  void wake(Proc<Msg>* p) {
    p->waiting = Waiting{};
    resume(p);
  }
};

}  // namespace csp
}  // namespace wsp
}  // namespace pto
