// pto-wsp native runtime core: a pipeline's queue (a tg.queue; an event is a queue of
// capacity 0 carrying signals) as a state machine of its own. Each operation says what
// happened; the caller (csp_pipe.h) blocks, wakes or fails the processes it names. Nothing
// here knows of coroutines or of the scheduler, so another runtime can drive the same rules.
#pragma once

#include <stdint.h>

#include <deque>
#include <utility>

namespace csp_detail {

struct Channel {
  int64_t capacity = 0;
  bool event = false;
  std::deque<int64_t> buffer, receivers;  // messages; processes waiting for one
  std::deque<std::pair<int64_t, int64_t>> senders;  // (process, message) waiting for room
  int64_t live_senders = 0, live_receivers = 0;
  bool closed = false;

  enum Sent { kTaken, kBuffered, kWaits, kDropped, kSentAfterClose, kNoReceiver };
  // Process p sends msg: a waiting receiver takes it (*woken), the buffer has room, or p waits
  // for room (a rendezvous at capacity 0); try_send drops what cannot be taken now. Errors:
  // the queue was closed, every process receiving it has finished.
  Sent send(int64_t p, int64_t msg, bool nonblocking, int64_t* woken) {
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
      buffer.push_back(msg);
      return kBuffered;
    }
    senders.emplace_back(p, msg);
    return kWaits;
  }

  enum Received { kGot, kEmpty, kEnded, kEventClosed };
  // Process p receives: a message (*msg; *woken, a waiting sender whose message now fits, or
  // -1), or p waits for one; a closed empty queue ends a consume (an event's is an error).
  Received recv(int64_t p, int64_t* msg, int64_t* woken) {
    *woken = -1;
    if (!buffer.empty()) {
      *msg = buffer.front();
      buffer.pop_front();
      if (!senders.empty()) {
        *woken = senders.front().first;
        buffer.push_back(senders.front().second);
        senders.pop_front();
      }
      return kGot;
    }
    if (!senders.empty()) {
      *woken = senders.front().first;
      *msg = senders.front().second;
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
  // Closed: the next waiting receiver, whose consume ends (an event's: an error), or -1.
  int64_t ended_receiver() {
    if (receivers.empty() || !buffer.empty()) return -1;
    const int64_t r = receivers.front();
    receivers.pop_front();
    return r;
  }
};

}  // namespace csp_detail
