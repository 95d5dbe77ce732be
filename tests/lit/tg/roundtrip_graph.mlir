// RUN: pto-opt %s | FileCheck %s
// RUN: pto-opt %s | pto-opt | FileCheck %s
// RUN: pto-opt %s --print-op-generic | pto-opt | FileCheck %s
// RUN: pto-opt %s --print-op-generic | FileCheck %s --check-prefix=GENERIC

// The static form: a materialized graph (seed 004 §6.2 TaskGraphStorage). Two tasks before an
// ordering point meet in a barrier; one task before an ordering point precedes its successors
// directly. Every optional clause of tg.node, and a graph without config.

wsp.kernel @attention_kernel(b: index, h: index, len: index, Q: inout memref<64x64xf32>) unit(cube)
wsp.kernel @copy(x: in memref<8x16xf32>, y: out memref<16xf32>) unit(vector)

tg.graph @attention(%Q: memref<2x2x64x64xf32>, %batch_size: index) config {dispatch = "affinity", streams = 2 : i64, timing = "immediate"} {
  tg.node 0 task @attention_kernel args(0, 0, 512) regions(%Q[0, 0, 0, 0][1, 1, 64, 64][1, 1, 1, 1] inout) at(b = 0, h = 0) pool(cube) target(0) stream(0) priority(0) fanin(0) fanout(2)
  tg.node 1 task @attention_kernel args(0, 1, 512) regions(%Q[0, 1, 0, 0][1, 1, 64, 64][1, 1, 1, 1] inout) at(b = 0, h = 1) pool(cube) target(0) stream(1) priority(-1) fanin(0) fanout(2)
  tg.node 2 barrier fanin(2) fanout(3, 4)
  tg.node 3 task @attention_kernel args(1, 0, 128) regions(%Q[1, 0, 0, 0][1, 1, 64, 64][1, 1, 1, 1] inout) at(b = 1, h = 0) domain(aicore) pool(any) fanin(1) fanout(5)
  tg.node 4 task @attention_kernel args(1, 1, 128) regions(%Q[1, 1, 0, 0][1, 1, 64, 64][1, 1, 1, 1] inout) at(b = 1, h = 1) domain(aie_tile) pool(vector) fanin(1) fanout(5)
  tg.node 5 barrier fanin(2) fanout()
}

// CHECK-LABEL: tg.graph @attention(%Q: memref<2x2x64x64xf32>, %batch_size: index) config {dispatch = "affinity", streams = 2 : i64, timing = "immediate"} {
// CHECK-NEXT:    tg.node 0 task @attention_kernel args(0, 0, 512) regions(%Q[0, 0, 0, 0][1, 1, 64, 64][1, 1, 1, 1] inout) at(b = 0, h = 0) pool(cube) target(0) stream(0) priority(0) fanin(0) fanout(2)
// CHECK-NEXT:    tg.node 1 task @attention_kernel args(0, 1, 512) regions(%Q[0, 1, 0, 0][1, 1, 64, 64][1, 1, 1, 1] inout) at(b = 0, h = 1) pool(cube) target(0) stream(1) priority(-1) fanin(0) fanout(2)
// CHECK-NEXT:    tg.node 2 barrier fanin(2) fanout(3, 4)
// CHECK-NEXT:    tg.node 3 task @attention_kernel args(1, 0, 128) regions(%Q[1, 0, 0, 0][1, 1, 64, 64][1, 1, 1, 1] inout) at(b = 1, h = 0) domain(aicore) pool(any) fanin(1) fanout(5)
// CHECK-NEXT:    tg.node 4 task @attention_kernel args(1, 1, 128) regions(%Q[1, 1, 0, 0][1, 1, 64, 64][1, 1, 1, 1] inout) at(b = 1, h = 1) domain(aie_tile) pool(vector) fanin(1) fanout(5)
// CHECK-NEXT:    tg.node 5 barrier fanin(2) fanout()
// CHECK-NEXT:  }

// GENERIC:      "tg.graph"() <{sym_name = "attention", function_type = (memref<2x2x64x64xf32>, index) -> (), arg_names = ["Q", "batch_size"], config = {dispatch = "affinity", streams = 2 : i64, timing = "immediate"}}> ({
// GENERIC-NEXT: ^bb0(%Q: memref<2x2x64x64xf32>, %batch_size: index):
// GENERIC-NEXT:   "tg.node"() <{id = 0 : i64, kind = "task", args = [0 : index, 0 : index, 512 : index], regions = [#tg.region<Q[0, 0, 0, 0][1, 1, 64, 64][1, 1, 1, 1] inout>], coord_names = ["b", "h"], coord_values = array<i64: 0, 0>, domain = "host_cpu", fanin = 0 : i64, fanout = array<i64: 2>, kernel = @attention_kernel, pool = "cube", target = 0 : i64, stream = 0 : i64, priority = 0 : i64}> : () -> ()
// GENERIC:        "tg.node"() <{id = 2 : i64, kind = "barrier", args = [], regions = [], coord_names = [], coord_values = array<i64>, domain = "host_cpu", fanin = 2 : i64, fanout = array<i64: 3, 4>}> : () -> ()
// GENERIC:        "tg.yield"() : () -> ()

// Strided regions (every other row of a tile), two regions per node, a dynamic dimension,
// attributes; nodes need not be listed in id order.
tg.graph @strided(%X: memref<?x16xf32>, %Y: memref<4x16xf32>) attributes {note = "s"} {
  tg.node 7 task @copy regions(%X[0, 0][8, 16][2, 1] in, %Y[1, 0][1, 16][1, 1] out) pool(vector) fanin(1) fanout() attributes {note = 1 : i64}
  tg.node 3 task @copy regions(%X[1, 0][8, 16][2, 1] in, %Y[1, 0][1, 16][1, 1] out) pool(vector) fanin(0) fanout(7)
}

// CHECK-LABEL: tg.graph @strided(%X: memref<?x16xf32>, %Y: memref<4x16xf32>) attributes {note = "s"} {
// CHECK-NEXT:    tg.node 7 task @copy regions(%X[0, 0][8, 16][2, 1] in, %Y[1, 0][1, 16][1, 1] out) pool(vector) fanin(1) fanout() attributes {note = 1 : i64}
// CHECK-NEXT:    tg.node 3 task @copy regions(%X[1, 0][8, 16][2, 1] in, %Y[1, 0][1, 16][1, 1] out) pool(vector) fanin(0) fanout(7)
// CHECK-NEXT:  }

// An empty graph.
tg.graph @empty() {
}

// CHECK-LABEL: tg.graph @empty() {
// CHECK-NEXT:  }
