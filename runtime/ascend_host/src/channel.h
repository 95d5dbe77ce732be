// pto-wsp runtime core: the channel rules of pipelines (docs/semantics.md "Pipelines") as a
// state machine, shared by the native core (runtime/core/csp_pipe.h: coroutines in virtual
// time) and the Ascend host runtime (pipeline.cpp: threads). A queue is a bounded FIFO of
// messages (capacity 0: a rendezvous; an event is a queue of capacity 0 carrying signals);
// a blocked sender hands its message over when a receiver takes it; a queue closes when
// every process sending on it has finished (or the host closed it). Each operation says what
// happened; the caller blocks, wakes or fails the processes it names (P: its handle of a
// process) and decides when a message handed to a blocked receiver is issued.
#pragma once

#include <stdint.h>

#include <deque>
#include <utility>

namespace pto {
namespace wsp {
namespace csp {

template <typename P, typename Msg>
struct Channel {
  int64_t capacity = 0;
  bool event = false;
  std::deque<Msg> buffer;
  std::deque<P> receivers;                 // processes waiting for a message
  std::deque<std::pair<P, Msg>> senders;   // (process, message) waiting for room
  int64_t live_senders = 0, live_receivers = 0;
  bool closed = false;

  enum Sent { kTaken, kBuffered, kWaits, kDropped, kSentAfterClose, kNoReceiver };
  // Process p sends msg: a waiting receiver takes it (*woken; msg stays for the caller to hand
  // over), the buffer has room, or p waits for room; try_send (nonblocking) drops what cannot
  // be taken now. Errors: the queue was closed, every process receiving it has finished.
  Sent send(P p, Msg& msg, bool nonblocking, P* woken) {
    const bool room = !receivers.empty() || static_cast<int64_t>(buffer.size()) < capacity;
    if (nonblocking && !closed && live_receivers != 0 && !room) return kDropped;
    if (closed) return kSentAfterClose;
    if (live_receivers == 0) return kNoReceiver;
    if (!receivers.empty()) {
      *woken = receivers.front();
      receivers.pop_front();
      return kTaken;
    }
    if (static_cast<int64_t>(buffer.size()) < capacity) {
      buffer.push_back(std::move(msg));
      return kBuffered;
    }
    senders.emplace_back(p, std::move(msg));
    return kWaits;
  }

  enum Received { kGot, kEmpty, kEnded, kEventClosed };
  // Process p receives: a message (*msg; *woke: a waiting sender, *woken, may go on), or p
  // waits for one; a closed empty queue ends a consume (an event's is an error).
  Received recv(P p, Msg* msg, P* woken, bool* woke) {
    *woke = false;
    if (!buffer.empty()) {
      *msg = std::move(buffer.front());
      buffer.pop_front();
      if (!senders.empty()) {
        *woke = true;
        *woken = senders.front().first;
        buffer.push_back(std::move(senders.front().second));
        senders.pop_front();
      }
      return kGot;
    }
    if (!senders.empty()) {
      *woke = true;
      *woken = senders.front().first;
      *msg = std::move(senders.front().second);
      senders.pop_front();
      return kGot;
    }
    if (closed) return event ? kEventClosed : kEnded;
    receivers.push_back(p);
    return kEmpty;
  }

  // A process sending on it finished: true when it was the last (the queue is closed now).
  bool sender_done() {
    if (--live_senders != 0) return false;
    closed = true;
    return true;
  }
  // A process receiving it finished: true when it was the last and a sender still waits.
  bool receiver_done() { return --live_receivers == 0 && !senders.empty(); }
  // Closed: the next waiting receiver (*r), whose consume ends (an event's: an error).
  bool ended_receiver(P* r) {
    if (receivers.empty() || !buffer.empty()) return false;
    *r = receivers.front();
    receivers.pop_front();
    return true;
  }
};

}  // namespace csp
}  // namespace wsp
}  // namespace pto
