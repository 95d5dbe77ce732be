// RUN: pto-opt %s --split-input-file -p wsp-inline-calls | FileCheck %s

// A call is replaced by a clone of the callee's body, the callee's arguments replaced by
// the call's operands and its terminator dropped. The callee stays (see remove_dead.mlir).

wsp.kernel @k(i: index, O: out memref<4xf32>) unit(vector)
wsp.workload @main(%O: memref<8x4xf32>) {
  %n = wsp.dense 8
  wsp.parallel_for %b in %n : !wsp.dense<8> {
    wsp.call @tile(%b, %O : index, memref<8x4xf32>)
  }
}
wsp.workload @tile(%i: index, %T: memref<8x4xf32>) level(npu) {
  %v = wsp.view %T[%i] : memref<8x4xf32> -> memref<4xf32>
  wsp.task @k(%i : index) resources(%v : memref<4xf32>)
}

// CHECK:      wsp.workload @main(%O: memref<8x4xf32>) {
// CHECK-NEXT:   %n = wsp.dense 8
// CHECK-NEXT:   wsp.parallel_for %b in %n named("b") : !wsp.dense<8> {
// CHECK-NEXT:     %v = wsp.view %O[%b] : memref<8x4xf32> -> memref<4xf32>
// CHECK-NEXT:     wsp.task @k(%b : index) resources(%v : memref<4xf32>)
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK-NEXT: wsp.workload @tile(%i: index, %T: memref<8x4xf32>) level(npu) {
// CHECK-NEXT:   %v = wsp.view %T[%i] : memref<8x4xf32> -> memref<4xf32>
// CHECK-NEXT:   wsp.task @k(%i : index) resources(%v : memref<4xf32>)
// CHECK-NEXT: }

// -----

// Calls in an inlined body are inlined too (transitively): @main -> @mid -> @leaf.

wsp.kernel @k(i: index) unit(vector)
wsp.kernel @m(i: index) unit(vector)
wsp.workload @main(%x: index) {
  wsp.call @mid(%x : index)
}
wsp.workload @mid(%y: index) level(npu) {
  wsp.task @m(%y : index) resources()
  wsp.call @leaf(%y : index)
}
wsp.workload @leaf(%z: index) level(npu) {
  %n = wsp.dense 2
  wsp.parallel_for %j in %n : !wsp.dense<2> {
    wsp.task @k(%z : index) resources()
  }
}

// CHECK:      wsp.workload @main(%x: index) {
// CHECK-NEXT:   wsp.task @m(%x : index) resources()
// CHECK-NEXT:   %n = wsp.dense 2
// CHECK-NEXT:   wsp.parallel_for %j in %n named("j") : !wsp.dense<2> {
// CHECK-NEXT:     wsp.task @k(%x : index) resources()
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK-NEXT: wsp.workload @mid(%y: index) level(npu) {
// CHECK-NEXT:   wsp.task @m(%y : index) resources()
// CHECK-NEXT:   %n = wsp.dense 2
// CHECK-NEXT:   wsp.parallel_for %j in %n named("j") : !wsp.dense<2> {
// CHECK-NEXT:     wsp.task @k(%y : index) resources()
// CHECK-NEXT:   }
// CHECK-NEXT: }

// -----

// In a sequential, a callee body of several children is wrapped in a wsp.combine (the body
// is combined; spliced into the sequential its children would be ordered). A body of one
// child is spliced directly.

wsp.kernel @a() unit(vector)
wsp.kernel @b() unit(vector)
wsp.workload @main() {
  wsp.sequential {
    wsp.call @two()
    wsp.call @one()
  }
}
wsp.workload @two() level(npu) {
  wsp.task @a() resources()
  wsp.task @b() resources()
}
wsp.workload @one() level(npu) {
  wsp.task @b() resources()
}

// CHECK:      wsp.workload @main() {
// CHECK-NEXT:   wsp.sequential {
// CHECK-NEXT:     wsp.combine {
// CHECK-NEXT:       wsp.task @a() resources()
// CHECK-NEXT:       wsp.task @b() resources()
// CHECK-NEXT:     }
// CHECK-NEXT:     wsp.task @b() resources()
// CHECK-NEXT:   }
// CHECK-NEXT: }

// -----

// Calls in pipeline processes are inlined as well; a callee of an empty body leaves nothing.

wsp.kernel @a() unit(vector)
csp.pipeline @p() {
  csp.channel @ch : !wsp.task capacity(1)
  csp.process @producer produces(@ch) {
    csp.send @ch {
      wsp.call @work()
    }
    wsp.call @nothing()
  }
  csp.process @consumer consumes(@ch) {
    csp.consume @ch as %t : !wsp.task {
      wsp.call @nothing()
    }
  }
}
wsp.workload @work() level(npu) {
  wsp.task @a() resources()
}
wsp.workload @nothing() level(npu) {
}

// CHECK:      csp.process @producer produces(@ch) {
// CHECK-NEXT:   csp.send @ch {
// CHECK-NEXT:     wsp.task @a() resources()
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK-NEXT: csp.process @consumer consumes(@ch) {
// CHECK-NEXT:   csp.consume @ch as %t : !wsp.task {
// CHECK-NEXT:   }
// CHECK-NEXT: }
