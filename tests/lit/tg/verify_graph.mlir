// RUN: pto-opt %s --split-input-file --verify-diagnostics | FileCheck %s

// Verifier errors of the static form: tg.graph, tg.node and its #tg.region regions.
// Each chunk's checks start at the separator line pto-opt prints between chunks, so a chunk
// that gives no error fails the test even where its message repeats.

// A graph holds only nodes, with unique ids.
wsp.kernel @k(i: index, x: in memref<16xf32>, y: out memref<16xf32>) unit(vector)
tg.graph @g(%X: memref<4x16xf32>, %Y: memref<16xf32>, %n: index) {
  %c = arith.constant 0 : index
}

// CHECK: error: 'tg.graph' op tg.graph @g holds only tg.node ops, got arith.constant

// -----
// CHECK: //{{ }}-----

wsp.kernel @k(i: index, x: in memref<16xf32>, y: out memref<16xf32>) unit(vector)
tg.graph @g(%X: memref<4x16xf32>, %Y: memref<16xf32>, %n: index) {
  tg.node 0 task @k args(0) regions(%X[0, 0][1, 16][1, 1] in, %Y[0][16][1] out) pool(any) fanin(0) fanout()
  tg.node 0 task @k args(0) regions(%X[0, 0][1, 16][1, 1] in, %Y[0][16][1] out) pool(any) fanin(0) fanout()
}

// CHECK: error: 'tg.graph' op tg.graph @g: node id 0 is used twice

// -----
// CHECK: //{{ }}-----

// Fanout edges go to nodes of the graph; fanin counts them.
wsp.kernel @k(i: index, x: in memref<16xf32>, y: out memref<16xf32>) unit(vector)
tg.graph @g(%X: memref<4x16xf32>, %Y: memref<16xf32>, %n: index) {
  tg.node 0 task @k args(0) regions(%X[0, 0][1, 16][1, 1] in, %Y[0][16][1] out) pool(any) fanin(0) fanout(1)
}

// CHECK: error: 'tg.graph' op node 0 lists 1 in its fanout, which is not a node of @g

// -----
// CHECK: //{{ }}-----

wsp.kernel @k(i: index, x: in memref<16xf32>, y: out memref<16xf32>) unit(vector)
tg.graph @g(%X: memref<4x16xf32>, %Y: memref<16xf32>, %n: index) {
  tg.node 0 task @k args(0) regions(%X[0, 0][1, 16][1, 1] in, %Y[0][16][1] out) pool(any) fanin(0) fanout(1)
  tg.node 1 task @k args(0) regions(%X[0, 0][1, 16][1, 1] in, %Y[0][16][1] out) pool(any) fanin(0) fanout()
}

// CHECK: error: 'tg.graph' op node 1 has fanin(0) but 1 node(s) list it in their fanout

// -----
// CHECK: //{{ }}-----

wsp.kernel @k(i: index, x: in memref<16xf32>, y: out memref<16xf32>) unit(vector)
tg.graph @g(%X: memref<4x16xf32>, %Y: memref<16xf32>, %n: index) {
  tg.node 0 task @k args(0) regions(%X[0, 0][1, 16][1, 1] in, %Y[0][16][1] out) pool(any) fanin(1) fanout()
}

// CHECK: error: 'tg.graph' op node 0 has fanin(1) but 0 node(s) list it in their fanout

// -----
// CHECK: //{{ }}-----

// Edges form no cycle.
wsp.kernel @k(i: index, x: in memref<16xf32>, y: out memref<16xf32>) unit(vector)
tg.graph @g(%X: memref<4x16xf32>, %Y: memref<16xf32>, %n: index) {
  tg.node 0 barrier fanin(1) fanout(1)
  tg.node 1 barrier fanin(1) fanout(2)
  tg.node 2 barrier fanin(1) fanout(0)
}

// CHECK: error: 'tg.graph' op tg.graph @g has a cycle through node 0

// -----
// CHECK: //{{ }}-----

// The signature and config rules of tg.program hold for graphs.
"tg.graph"() <{sym_name = "g", function_type = (index, index) -> (), arg_names = ["a", "a"]}> ({
^bb0(%x: index, %y: index):
  "tg.yield"() : () -> ()
}) : () -> ()

// CHECK: error: 'tg.graph' op graph argument name 'a' is used twice

// -----
// CHECK: //{{ }}-----

"tg.graph"() <{sym_name = "g", function_type = (index) -> (), arg_names = ["n"]}> ({
^bb0(%n: i32):
  "tg.yield"() : () -> ()
}) : () -> ()

// CHECK: error: 'tg.graph' op entry block arguments must match the graph signature

// -----
// CHECK: //{{ }}-----

wsp.kernel @k(i: index, x: in memref<16xf32>, y: out memref<16xf32>) unit(vector)
tg.graph @g() config {layouts = {X = array<i64: 0>}} {
}

// CHECK: error: 'tg.graph' op config layouts names 'X', which is not a memref argument

// -----
// CHECK: //{{ }}-----

// Nodes stand directly in a graph.
wsp.kernel @k(i: index, x: in memref<16xf32>, y: out memref<16xf32>) unit(vector)
tg.program @p() {
  tg.node 0 barrier fanin(0) fanout()
}

// CHECK: error: 'tg.node' op tg.node must be directly inside a tg.graph

// -----
// CHECK: //{{ }}-----

wsp.kernel @k(i: index, x: in memref<16xf32>, y: out memref<16xf32>) unit(vector)
tg.graph @g(%X: memref<4x16xf32>, %Y: memref<16xf32>, %n: index) {
  tg.node -1 task @k args(0) regions(%X[0, 0][1, 16][1, 1] in, %Y[0][16][1] out) pool(any) fanin(0) fanout()
}

// CHECK: error: 'tg.node' op node id must be >= 0, got -1

// -----
// CHECK: //{{ }}-----

wsp.kernel @k(i: index, x: in memref<16xf32>, y: out memref<16xf32>) unit(vector)
tg.graph @g(%X: memref<4x16xf32>, %Y: memref<16xf32>, %n: index) {
  tg.node 0 copy fanin(0) fanout()
}

// CHECK: error: 'tg.node' op node 0: kind must be one of task, barrier, got 'copy'

// -----
// CHECK: //{{ }}-----

wsp.kernel @k(i: index, x: in memref<16xf32>, y: out memref<16xf32>) unit(vector)
tg.graph @g(%X: memref<4x16xf32>, %Y: memref<16xf32>, %n: index) {
  tg.node 0 task @k args(0) regions(%X[0, 0][1, 16][1, 1] in, %Y[0][16][1] out) pool(any) fanin(-1) fanout()
}

// CHECK: error: 'tg.node' op node 0: fanin must be >= 0, got -1

// -----
// CHECK: //{{ }}-----

wsp.kernel @k(i: index, x: in memref<16xf32>, y: out memref<16xf32>) unit(vector)
tg.graph @g(%X: memref<4x16xf32>, %Y: memref<16xf32>, %n: index) {
  tg.node 0 task @k args(0) regions(%X[0, 0][1, 16][1, 1] in, %Y[0][16][1] out) pool(any) fanin(1) fanout(0)
}

// CHECK: error: 'tg.node' op node 0 lists itself in its fanout

// -----
// CHECK: //{{ }}-----

wsp.kernel @k(i: index, x: in memref<16xf32>, y: out memref<16xf32>) unit(vector)
tg.graph @g(%X: memref<4x16xf32>, %Y: memref<16xf32>, %n: index) {
  tg.node 0 task @k args(0) regions(%X[0, 0][1, 16][1, 1] in, %Y[0][16][1] out) pool(any) fanin(0) fanout(1, 1)
  tg.node 1 task @k args(0) regions(%X[0, 0][1, 16][1, 1] in, %Y[0][16][1] out) pool(any) fanin(2) fanout()
}

// CHECK: error: 'tg.node' op node 0 lists a successor twice in its fanout [1, 1]

// -----
// CHECK: //{{ }}-----

// Coordinates: identifiers, one per value, each once.
wsp.kernel @k(i: index, x: in memref<16xf32>, y: out memref<16xf32>) unit(vector)
tg.graph @g(%X: memref<4x16xf32>, %Y: memref<16xf32>, %n: index) {
  tg.node 0 task @k args(0) regions(%X[0, 0][1, 16][1, 1] in, %Y[0][16][1] out) at(i = 0, i = 1) pool(any) fanin(0) fanout()
}

// CHECK: error: 'tg.node' op node 0: coordinate 'i' appears twice

// -----
// CHECK: //{{ }}-----

wsp.kernel @k(i: index, x: in memref<16xf32>, y: out memref<16xf32>) unit(vector)
tg.graph @g(%X: memref<4x16xf32>, %Y: memref<16xf32>, %n: index) {
  "tg.node"() <{id = 0 : i64, kind = "barrier", args = [], regions = [], coord_names = ["i"], coord_values = array<i64>, domain = "host_cpu", fanin = 0 : i64, fanout = array<i64>}> : () -> ()
}

// CHECK: error: 'tg.node' op node 0 has 1 coordinate name(s) but 0 value(s)

// -----
// CHECK: //{{ }}-----

// A barrier stands for an ordering point: no kernel, args, regions, coordinates or placement.
wsp.kernel @k(i: index, x: in memref<16xf32>, y: out memref<16xf32>) unit(vector)
tg.graph @g(%X: memref<4x16xf32>, %Y: memref<16xf32>, %n: index) {
  tg.node 0 barrier @k fanin(0) fanout()
}

// CHECK: error: 'tg.node' op barrier node 0 carries no kernel, args, regions, coordinates or placement, got kernel

// -----
// CHECK: //{{ }}-----

wsp.kernel @k(i: index, x: in memref<16xf32>, y: out memref<16xf32>) unit(vector)
tg.graph @g(%X: memref<4x16xf32>, %Y: memref<16xf32>, %n: index) {
  tg.node 0 barrier args(1) regions(%X[0, 0][1, 16][1, 1] in, %Y[0][16][1] out) at(i = 0) domain(aicore) pool(any) target(0) stream(0) priority(0) fanin(0) fanout()
}

// CHECK: error: 'tg.node' op barrier node 0 carries no kernel, args, regions, coordinates or placement, got pool, target, stream, priority, args, regions, coordinates, domain

// -----
// CHECK: //{{ }}-----

// A task node has a wsp.kernel and a pool.
wsp.kernel @k(i: index, x: in memref<16xf32>, y: out memref<16xf32>) unit(vector)
tg.graph @g(%X: memref<4x16xf32>, %Y: memref<16xf32>, %n: index) {
  tg.node 0 task fanin(0) fanout()
}

// CHECK: error: 'tg.node' op task node 0 needs a kernel

// -----
// CHECK: //{{ }}-----

wsp.kernel @k(i: index, x: in memref<16xf32>, y: out memref<16xf32>) unit(vector)
tg.graph @g(%X: memref<4x16xf32>, %Y: memref<16xf32>, %n: index) {
  tg.node 0 task @k args(0) regions(%X[0, 0][1, 16][1, 1] in, %Y[0][16][1] out) fanin(0) fanout()
}

// CHECK: error: 'tg.node' op task node 0 needs a pool (vector, cube or any)

// -----
// CHECK: //{{ }}-----

wsp.kernel @k(i: index, x: in memref<16xf32>, y: out memref<16xf32>) unit(vector)
tg.graph @g(%X: memref<4x16xf32>, %Y: memref<16xf32>, %n: index) {
  tg.node 0 task @k args(0) regions(%X[0, 0][1, 16][1, 1] in, %Y[0][16][1] out) pool(tensor) fanin(0) fanout()
}

// CHECK: error: 'tg.node' op pool must be one of vector, cube, any, got 'tensor'

// -----
// CHECK: //{{ }}-----

wsp.kernel @k(i: index, x: in memref<16xf32>, y: out memref<16xf32>) unit(vector)
tg.graph @g(%X: memref<4x16xf32>, %Y: memref<16xf32>, %n: index) {
  tg.node 0 task @k args(0) regions(%X[0, 0][1, 16][1, 1] in, %Y[0][16][1] out) domain(gpu) pool(any) fanin(0) fanout()
}

// CHECK: error: 'tg.node' op domain must be one of host_cpu, aicore, aie_tile, got 'gpu'

// -----
// CHECK: //{{ }}-----

wsp.kernel @k(i: index, x: in memref<16xf32>, y: out memref<16xf32>) unit(vector)
tg.graph @g(%X: memref<4x16xf32>, %Y: memref<16xf32>, %n: index) {
  tg.node 0 task @k args(0) regions(%X[0, 0][1, 16][1, 1] in, %Y[0][16][1] out) pool(any) target(-1) fanin(0) fanout()
}

// CHECK: error: 'tg.node' op node 0: target must be >= 0, got -1

// -----
// CHECK: //{{ }}-----

wsp.kernel @k(i: index, x: in memref<16xf32>, y: out memref<16xf32>) unit(vector)
tg.graph @g(%X: memref<4x16xf32>, %Y: memref<16xf32>, %n: index) {
  tg.node 0 task @k args(0) regions(%X[0, 0][1, 16][1, 1] in, %Y[0][16][1] out) pool(any) stream(-2) fanin(0) fanout()
}

// CHECK: error: 'tg.node' op node 0: stream must be >= 0, got -2

// -----
// CHECK: //{{ }}-----

wsp.kernel @k(i: index, x: in memref<16xf32>, y: out memref<16xf32>) unit(vector)
tg.graph @g(%X: memref<4x16xf32>, %Y: memref<16xf32>, %n: index) {
  tg.node 0 task @nowhere pool(any) fanin(0) fanout()
}

// CHECK: error: 'tg.node' op node 0 refers to unknown kernel @nowhere

// -----
// CHECK: //{{ }}-----

// args and regions match the kernel's scalar and tensor parameters.
wsp.kernel @k(i: index, x: in memref<16xf32>, y: out memref<16xf32>) unit(vector)
tg.graph @g(%X: memref<4x16xf32>, %Y: memref<16xf32>, %n: index) {
  tg.node 0 task @k args(0, 1) regions(%X[0, 0][1, 16][1, 1] in, %Y[0][16][1] out) pool(any) fanin(0) fanout()
}

// CHECK: error: 'tg.node' op kernel @k takes 1 parameter(s), node 0 has 2 arg(s)

// -----
// CHECK: //{{ }}-----

wsp.kernel @k(i: index, x: in memref<16xf32>, y: out memref<16xf32>) unit(vector)
tg.graph @g(%X: memref<4x16xf32>, %Y: memref<16xf32>, %n: index) {
  tg.node 0 task @k args(0) regions(%Y[0][16][1] out) pool(any) fanin(0) fanout()
}

// CHECK: error: 'tg.node' op kernel @k takes 2 resource(s), node 0 has 1 region(s)

// -----
// CHECK: //{{ }}-----

wsp.kernel @k(i: index, x: in memref<16xf32>, y: out memref<16xf32>) unit(vector)
tg.graph @g(%X: memref<4x16xf32>, %Y: memref<16xf32>, %n: index) {
  tg.node 0 task @k args(0) regions(%X[0, 0][1, 16][1, 1] in, %Y[0][16][1] inout) pool(any) fanin(0) fanout()
}

// CHECK: error: 'tg.node' op node 0 region #1 access must be kernel @k's 'out', got 'inout'

// -----
// CHECK: //{{ }}-----

wsp.kernel @k(i: index, x: in memref<16xf32>, y: out memref<16xf32>) unit(vector)
tg.graph @g(%X: memref<4x16xf32>, %Y: memref<16xf16>) {
  tg.node 0 task @k args(0) regions(%X[0, 0][1, 16][1, 1] in, %Y[0][16][1] out) pool(any) fanin(0) fanout()
}

// CHECK: error: 'tg.node' op node 0 region #1: kernel @k takes f32, tensor Y holds f16

// -----
// CHECK: //{{ }}-----

// A region names a memref argument of the graph, has its rank, and stays inside it.
wsp.kernel @k(i: index, x: in memref<16xf32>, y: out memref<16xf32>) unit(vector)
tg.graph @g(%X: memref<4x16xf32>, %Y: memref<16xf32>, %n: index) {
  tg.node 0 task @k args(0) regions(%Z[0, 0][1, 16][1, 1] in, %Y[0][16][1] out) pool(any) fanin(0) fanout()
}

// CHECK: error: 'tg.node' op node 0 region #0 names 'Z', which is not a memref argument of @g

// -----
// CHECK: //{{ }}-----

wsp.kernel @k(i: index, x: in memref<16xf32>, y: out memref<16xf32>) unit(vector)
tg.graph @g(%X: memref<4x16xf32>, %Y: memref<16xf32>, %n: index) {
  tg.node 0 task @k args(0) regions(%n[0][1][1] in, %Y[0][16][1] out) pool(any) fanin(0) fanout()
}

// CHECK: error: 'tg.node' op node 0 region #0 names 'n', which is not a memref argument of @g

// -----
// CHECK: //{{ }}-----

wsp.kernel @k(i: index, x: in memref<16xf32>, y: out memref<16xf32>) unit(vector)
tg.graph @g(%X: memref<4x16xf32>, %Y: memref<16xf32>, %n: index) {
  tg.node 0 task @k args(0) regions(%X[0][16][1] in, %Y[0][16][1] out) pool(any) fanin(0) fanout()
}

// CHECK: error: 'tg.node' op node 0 region #0: X has rank 2, the region has 1 offsets, 1 sizes and 1 strides

// -----
// CHECK: //{{ }}-----

wsp.kernel @k(i: index, x: in memref<16xf32>, y: out memref<16xf32>) unit(vector)
tg.graph @g(%X: memref<4x16xf32>, %Y: memref<16xf32>, %n: index) {
  tg.node 0 task @k args(0) regions(%X[0, 0][1, 16][1] in, %Y[0][16][1] out) pool(any) fanin(0) fanout()
}

// CHECK: error: 'tg.node' op node 0 region #0: X has rank 2, the region has 2 offsets, 2 sizes and 1 strides

// -----
// CHECK: //{{ }}-----

wsp.kernel @k(i: index, x: in memref<16xf32>, y: out memref<16xf32>) unit(vector)
tg.graph @g(%X: memref<4x16xf32>, %Y: memref<16xf32>, %n: index) {
  tg.node 0 task @k args(0) regions(%X[0, 0][1, 16][1, 1] read, %Y[0][16][1] out) pool(any) fanin(0) fanout()
}

// CHECK: error: 'tg.node' op node 0 region #0: access must be in, out or inout, got 'read'

// -----
// CHECK: //{{ }}-----

wsp.kernel @k(i: index, x: in memref<16xf32>, y: out memref<16xf32>) unit(vector)
tg.graph @g(%X: memref<4x16xf32>, %Y: memref<16xf32>, %n: index) {
  tg.node 0 task @k args(0) regions(%X[-1, 0][1, 16][1, 1] in, %Y[0][16][1] out) pool(any) fanin(0) fanout()
}

// CHECK: error: 'tg.node' op node 0 region #0 dim 0: offsets and sizes are >= 0 and strides >= 1, got offset -1, size 1, stride 1

// -----
// CHECK: //{{ }}-----

wsp.kernel @k(i: index, x: in memref<16xf32>, y: out memref<16xf32>) unit(vector)
tg.graph @g(%X: memref<4x16xf32>, %Y: memref<16xf32>, %n: index) {
  tg.node 0 task @k args(0) regions(%X[0, 0][1, -16][1, 1] in, %Y[0][16][1] out) pool(any) fanin(0) fanout()
}

// CHECK: error: 'tg.node' op node 0 region #0 dim 1: offsets and sizes are >= 0 and strides >= 1, got offset 0, size -16, stride 1

// -----
// CHECK: //{{ }}-----

wsp.kernel @k(i: index, x: in memref<16xf32>, y: out memref<16xf32>) unit(vector)
tg.graph @g(%X: memref<4x16xf32>, %Y: memref<16xf32>, %n: index) {
  tg.node 0 task @k args(0) regions(%X[0, 0][1, 16][0, 1] in, %Y[0][16][1] out) pool(any) fanin(0) fanout()
}

// CHECK: error: 'tg.node' op node 0 region #0 dim 0: offsets and sizes are >= 0 and strides >= 1, got offset 0, size 1, stride 0

// -----
// CHECK: //{{ }}-----

wsp.kernel @k(i: index, x: in memref<16xf32>, y: out memref<16xf32>) unit(vector)
tg.graph @g(%X: memref<4x16xf32>, %Y: memref<16xf32>, %n: index) {
  tg.node 0 task @k args(0) regions(%X[4, 0][1, 16][1, 1] in, %Y[0][16][1] out) pool(any) fanin(0) fanout()
}

// CHECK: error: 'tg.node' op node 0 region #0 dim 0 reaches 4, beyond dimension size 4 of X

// -----
// CHECK: //{{ }}-----

wsp.kernel @k(i: index, x: in memref<16xf32>, y: out memref<16xf32>) unit(vector)
tg.graph @g(%X: memref<4x16xf32>, %Y: memref<16xf32>, %n: index) {
  tg.node 0 task @k args(0) regions(%X[0, 2][1, 8][1, 2] in, %Y[0][16][1] out) pool(any) fanin(0) fanout()
}

// CHECK: error: 'tg.node' op node 0 region #0 dim 1 reaches 16, beyond dimension size 16 of X
