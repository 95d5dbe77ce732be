// RUN: pto-opt %s --split-input-file --verify-diagnostics | FileCheck %s

// Verifier errors of streams and events: stream indices are >= 0, an event waited for,
// queried or in a barrier is recorded in the same workload, a barrier names an event or a
// stream once, and events of a pipeline are csp channels, not wsp ops.

wsp.workload @w() {
  wsp.stream -1 {
  }
}

// CHECK: error: 'wsp.stream' op wsp.stream: a stream index is >= 0, got -1

// -----
// CHECK: //{{ }}-----

wsp.workload @w() {
  wsp.record "e" stream(-2)
}

// CHECK: error: 'wsp.record' op wsp.record: a stream index is >= 0, got -2

// -----
// CHECK: //{{ }}-----

wsp.workload @w() {
  wsp.wait "e"
}

// CHECK: error: 'wsp.wait' op event 'e' is never recorded in @w

// -----
// CHECK: //{{ }}-----

wsp.workload @w() {
  %p = wsp.query "e"
}

// CHECK: error: 'wsp.query' op event 'e' is never recorded in @w

// -----
// CHECK: //{{ }}-----

wsp.workload @w() {
  wsp.record "e"
  wsp.barrier events("e", "e")
}

// CHECK: error: 'wsp.barrier' op wsp.barrier names an event twice

// -----
// CHECK: //{{ }}-----

wsp.workload @w() {
  wsp.barrier streams(1, 1)
}

// CHECK: error: 'wsp.barrier' op wsp.barrier names a stream twice

// -----
// CHECK: //{{ }}-----

wsp.workload @w() {
  wsp.barrier events("f")
}

// CHECK: error: 'wsp.barrier' op event 'f' is never recorded in @w

// -----
// CHECK: //{{ }}-----

csp.pipeline @p() {
  csp.process @a {
    wsp.record "e"
  }
}

// CHECK: error: 'wsp.record' op wsp.record is for ordinary workloads; in a pipeline an event is a channel of !csp.signal (csp.record / csp.synchronize)
