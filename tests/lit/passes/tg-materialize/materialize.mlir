// RUN: pto-opt %s -p 'wsp-to-tg,tg-materialize{bind="n=3,lengths=[2,0,1]" dot="%t.dot"}' | FileCheck %s
// RUN: FileCheck %s --input-file %t.dot --check-prefix=DOT
// RUN: pto-opt %s -p 'wsp-to-tg,tg-materialize{bind="n=3,lengths=[2,0,1]"}' | pto-opt | FileCheck %s

// A sequential of a ragged loop (3 tasks: row 0 has 2, row 1 none, row 2 one) and a
// reduction that reads every row: a barrier after the 3 tasks orders the reduction
// (structural), and the reduction also reads what tasks 1 and 2 wrote last (data: RAW);
// tasks 0 and 1 write the same row (WAW). Edges implied by others are not removed.

wsp.kernel @fill(r: index, j: index, x: out memref<4xf32>) unit(vector)
wsp.kernel @reduce(x: in memref<3x4xf32>, y: out memref<4xf32>) unit(cube)

wsp.workload @w(%n: index, %lengths: memref<?xindex>, %X: memref<3x4xf32>, %Y: memref<4xf32>) {
  %rows = wsp.ragged %n, %lengths : memref<?xindex>
  wsp.sequential {
    wsp.parallel_for %r, %j in %rows named("r", "j") : !wsp.ragged {
      %x = wsp.view %X[%r] : memref<3x4xf32> -> memref<4xf32>
      wsp.task @fill(%r, %j : index, index) resources(%x : memref<4xf32>)
    }
    wsp.task @reduce() resources(%X, %Y : memref<3x4xf32>, memref<4xf32>)
  }
}

// CHECK:      tg.graph @w(%n: index, %lengths: memref<?xindex>, %X: memref<3x4xf32>, %Y: memref<4xf32>) {
// CHECK-NEXT:   tg.node 0 task @fill args(0, 0) regions(%X[0, 0][1, 4][1, 1] out) at(r = 0, j = 0) pool(vector) stream(0) priority(0) fanin(0) fanout(1, 3)
// CHECK-NEXT:   tg.node 1 task @fill args(0, 1) regions(%X[0, 0][1, 4][1, 1] out) at(r = 0, j = 1) pool(vector) stream(0) priority(0) fanin(1) fanout(3, 4)
// CHECK-NEXT:   tg.node 2 task @fill args(2, 0) regions(%X[2, 0][1, 4][1, 1] out) at(r = 2, j = 0) pool(vector) stream(0) priority(0) fanin(0) fanout(3, 4)
// CHECK-NEXT:   tg.node 3 barrier fanin(3) fanout(4)
// CHECK-NEXT:   tg.node 4 task @reduce regions(%X[0, 0][3, 4][1, 1] in, %Y[0][4][1] out) pool(cube) stream(0) priority(0) fanin(3) fanout()
// CHECK-NEXT: }

// DOT: digraph
