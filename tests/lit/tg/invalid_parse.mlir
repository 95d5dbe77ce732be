// RUN: pto-opt %s --split-input-file --parsing-diagnostics | FileCheck %s

// Parse errors of the tg custom syntax.
// Each chunk's checks start at the separator line pto-opt prints between chunks, so a chunk
// that gives no error fails the test even where its message repeats.

// config is a dictionary.
tg.program @p() config [1] {
}

// CHECK: error: config must be a dictionary {key = value, ...}

// -----
// CHECK: //{{ }}-----

// tg.task needs a pool: static or an index.
wsp.kernel @k() unit(vector)
tg.program @p() {
  tg.task @k() resources()
}

// CHECK: error: Expected 'pool' (vector, cube, any or an index: pool(%p))

// -----
// CHECK: //{{ }}-----

wsp.kernel @k() unit(vector)
tg.program @p() {
  tg.task @k() resources() pool(1)
}

// CHECK: error: identifier expected (vector, cube, any or an index)

// -----
// CHECK: //{{ }}-----

// Coordinates are name = value.
wsp.kernel @k() unit(vector)
tg.program @p(%i: index) {
  tg.task @k() resources() at(%i) pool(any)
}

// CHECK: error: identifier expected (a coordinate name)

// -----
// CHECK: //{{ }}-----

wsp.kernel @k() unit(vector)
tg.program @p(%i: f32) {
  tg.task @k() resources() at(i = %i) pool(any)
}

// CHECK: error: operand is used with type index, but has been previously used or defined with type f32

// -----
// CHECK: //{{ }}-----

// A node region names a graph argument as an SSA name.
wsp.kernel @k() unit(vector)
tg.graph @g(%X: memref<4xf32>) {
  tg.node 0 task @k regions(X[0][4][1] in) pool(any) fanin(0) fanout()
}

// CHECK: error: expected the tensor argument as an SSA name, e.g. %X

// -----
// CHECK: //{{ }}-----

wsp.kernel @k() unit(vector)
tg.graph @g(%X: memref<4xf32>) {
  tg.node 0 task @k regions(%X[0][4] in) pool(any) fanin(0) fanout()
}

// CHECK: error: '[' expected

// -----
// CHECK: //{{ }}-----

// #tg.region names its tensor.
tg.program @p() attributes {r = #tg.region<[0][4][1] in>} {
}

// CHECK: error: identifier or string literal expected (the tensor argument's name)

// -----
// CHECK: //{{ }}-----

tg.program @p() attributes {r = #tg.region<X[0][4][1]>} {
}

// CHECK: error: identifier expected (in, out or inout)
