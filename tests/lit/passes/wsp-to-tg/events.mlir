// RUN: pto-opt %s -p wsp-to-tg | FileCheck %s

// Streams and events: wsp.stream gives its tasks stream(N) (and the program at least N + 1
// streams); record, wait and query become tg events; a barrier waits for its events and,
// for each listed stream (or, with none, for everything so far), records a fresh event and
// waits for it.

wsp.kernel @k(i: index, x: inout memref<4xf32>)

wsp.workload @w(%X: memref<8x4xf32>) {
  %c0 = arith.constant 0 : index
  %x0 = wsp.view %X[%c0] : memref<8x4xf32> -> memref<4xf32>
  wsp.stream 2 {
    wsp.task @k(%c0 : index) resources(%x0 : memref<4xf32>)
  }
  wsp.record "e" stream(2)
  wsp.wait "e" stream(1)
  %p = wsp.query "e"
  wsp.cond %p {
    wsp.task @k(%c0 : index) resources(%x0 : memref<4xf32>)
  }
  wsp.barrier events("e") streams(1)
  wsp.barrier
}

// CHECK-LABEL: tg.program @w(%X: memref<8x4xf32>) config {streams = 3 : i64} {
// CHECK:         %[[S:.*]] = arith.constant 2 : index
// CHECK-NEXT:    tg.task @k(%c0 : index) {{.*}} stream(%[[S]])
// CHECK-NEXT:    tg.event_record "e" stream(2)
// CHECK-NEXT:    tg.event_wait "e" stream(1)
// CHECK-NEXT:    %[[Q:.*]] = tg.event_query "e"
// CHECK-NEXT:    scf.if %[[Q]] {
// CHECK-NEXT:      tg.task @k(%c0 : index) {{.*}} pool(vector){{$}}
// CHECK:         tg.event_wait "e"{{$}}
// CHECK-NEXT:    tg.event_record "barrier.0.s1" stream(1)
// CHECK-NEXT:    tg.event_wait "barrier.0.s1"
// CHECK-NEXT:    tg.event_record "barrier.1"
// CHECK-NEXT:    tg.event_wait "barrier.1"
