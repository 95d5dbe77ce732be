// RUN: pto-opt %s -p wsp-to-tg | FileCheck %s --check-prefix=INLINE
// RUN: pto-opt %s -p 'wsp-to-tg{calls=nested}' | FileCheck %s --check-prefix=NESTED

// A cross-level call is inlined by default — the callee's loops add coordinates to the
// caller's — or kept as a tg.call of the callee's program (calls=nested).

wsp.kernel @tile(b: index, h: index, x: inout memref<64xf32>) unit(cube)

wsp.workload @incore(%b: index, %heads: !wsp.dense<2>, %x: memref<?x2x64xf32>) level(npu) {
  wsp.parallel_for %h in %heads named("h") : !wsp.dense<2> {
    %v = wsp.view %x[%b, %h] : memref<?x2x64xf32> -> memref<64xf32>
    wsp.task @tile(%b, %h : index, index) resources(%v : memref<64xf32>)
  }
}

wsp.workload @outer(%n: index, %x: memref<?x2x64xf32>) {
  %bs = wsp.dense_dyn %n
  %hs = wsp.dense 2
  wsp.parallel_for %b in %bs named("b") : !wsp.dense_dyn {
    wsp.call @incore(%b, %hs, %x : index, !wsp.dense<2>, memref<?x2x64xf32>)
  }
}

// INLINE-LABEL: tg.program @incore(%b: index, %x: memref<?x2x64xf32>) {
// INLINE-LABEL: tg.program @outer(%n: index, %x: memref<?x2x64xf32>) {
// INLINE:         scf.for %b = %{{.*}} to %n step
// INLINE:           scf.for %h = %{{.*}} to %{{.*}} step
// INLINE-NEXT:        %[[V:.*]] = memref.subview %x[%b, %h, 0] [1, 1, 64] [1, 1, 1]
// INLINE-NEXT:        tg.task @tile(%b, %h : index, index) resources(%[[V]] : {{.*}}) access(inout) at(b = %b, h = %h) pool(cube)
// INLINE-NOT:     tg.call

// NESTED-LABEL: tg.program @outer(%n: index, %x: memref<?x2x64xf32>) {
// NESTED:         scf.for %b = %{{.*}} to %n step
// NESTED-NEXT:      tg.call @incore(%b, %x : index, memref<?x2x64xf32>)
