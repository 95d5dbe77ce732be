// RUN: pto-opt %s --split-input-file --verify-diagnostics | FileCheck %s

// Rules of tg events: inside a tg.program's body (not a tg.process), streams >= 0, an event
// waited for or queried is recorded in the same program.

wsp.kernel @k(i: index)
tg.program @p() {
  tg.event_wait "e"
}

// CHECK: error: 'tg.event_wait' op event 'e' is never recorded in @p

// -----
// CHECK: //{{ }}-----

tg.program @p() {
  %q = tg.event_query "e"
}

// CHECK: error: 'tg.event_query' op event 'e' is never recorded in @p

// -----
// CHECK: //{{ }}-----

tg.program @p() {
  tg.event_record "e" stream(-1)
}

// CHECK: error: 'tg.event_record' op tg.event_record: a stream index is >= 0, got -1

// -----
// CHECK: //{{ }}-----

tg.event_record "e"

// CHECK: error: 'tg.event_record' op tg.event_record must be inside a tg.program

// -----
// CHECK: //{{ }}-----

tg.program @p() {
  tg.queue @q : !wsp.task capacity(1)
  tg.process @a {
    tg.event_record "e"
    tg.send @q {
    }
  }
  tg.process @b {
    tg.consume @q as %m : !wsp.task {
    }
  }
}

// CHECK: error: 'tg.event_record' op tg.event_record stands in a program's body, not in a tg.process
