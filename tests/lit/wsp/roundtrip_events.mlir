// RUN: pto-opt %s | FileCheck %s
// RUN: pto-opt %s | pto-opt | FileCheck %s
// RUN: pto-opt %s --print-op-generic | pto-opt | FileCheck %s
// RUN: pto-opt %s --print-op-generic | FileCheck %s --check-prefix=GENERIC

// Streams and events of an ordinary workload (seed 001 §6): issue on a stream, record an
// event on a stream or after everything, wait for it on a stream or everywhere, barriers
// of events, of streams and of everything, and a query as a cond predicate.

wsp.kernel @k(i: index, x: inout memref<4xf32>)

wsp.workload @w(%X: memref<8x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x0 = wsp.view %X[%c0] : memref<8x4xf32> -> memref<4xf32>
  %x1 = wsp.view %X[%c1] : memref<8x4xf32> -> memref<4xf32>
  wsp.stream 0 {
    wsp.task @k(%c0 : index) resources(%x0 : memref<4xf32>)
  }
  wsp.record "e" stream(0)
  wsp.wait "e" stream(1)
  wsp.stream 1 {
    wsp.task @k(%c1 : index) resources(%x1 : memref<4xf32>)
  }
  wsp.record "all"
  %p = wsp.query "e"
  wsp.cond %p {
    wsp.task @k(%c1 : index) resources(%x1 : memref<4xf32>)
  }
  wsp.wait "all"
  wsp.barrier events("e", "all") streams(0, 1)
  wsp.barrier streams(1)
  wsp.barrier
}

// CHECK:      wsp.stream 0 {
// CHECK-NEXT:   wsp.task @k(%c0 : index) resources(%x0 : memref<4xf32>)
// CHECK-NEXT: }
// CHECK-NEXT: wsp.record "e" stream(0)
// CHECK-NEXT: wsp.wait "e" stream(1)
// CHECK-NEXT: wsp.stream 1 {
// CHECK:      wsp.record "all"
// CHECK-NEXT: %p = wsp.query "e"
// CHECK-NEXT: wsp.cond %p {
// CHECK:      wsp.wait "all"
// CHECK-NEXT: wsp.barrier events("e", "all") streams(0, 1)
// CHECK-NEXT: wsp.barrier streams(1)
// CHECK-NEXT: wsp.barrier{{$}}

// GENERIC: "wsp.stream"() <{stream = 0 : i64}> ({
// GENERIC: "wsp.record"() <{event = "e", stream = 0 : i64}> : () -> ()
// GENERIC: "wsp.wait"() <{event = "all"}> : () -> ()
// GENERIC: "wsp.barrier"() <{events = [], streams = []}> : () -> ()
