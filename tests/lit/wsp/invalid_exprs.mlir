// RUN: pto-opt %s --split-input-file --verify-diagnostics | FileCheck %s

// Verifier errors of the workload expressions: loops, select, cond, task, call.
// Each chunk's checks start at the separator line pto-opt prints between chunks, so a chunk
// that gives no error fails the test even where its message repeats.

// Loops iterate axes, and bind one index (two, row and j, over Ragged and Sparse).
wsp.workload @w(%n: index) {
  wsp.parallel_for %i in %n : index {
  }
}

// CHECK: error: 'wsp.parallel_for' op wsp.parallel_for iterates an axis, got index

// -----
// CHECK: //{{ }}-----

wsp.workload @w(%X: memref<4xf32>) {
  wsp.for_each %i in %X : memref<4xf32> {
  }
}

// CHECK: error: 'wsp.for_each' op wsp.for_each iterates an axis, got memref<4xf32>

// -----
// CHECK: //{{ }}-----

wsp.workload @w(%t: !wsp.task) {
  wsp.parallel_for %i in %t : !wsp.task {
  }
}

// CHECK: error: 'wsp.parallel_for' op wsp.parallel_for iterates an axis, got !wsp.task

// -----
// CHECK: //{{ }}-----

wsp.workload @w(%r: !wsp.ragged) {
  wsp.parallel_for %i in %r : !wsp.ragged {
  }
}

// CHECK: error: 'wsp.parallel_for' op wsp.parallel_for over !wsp.ragged binds 2 index argument(s), got 1

// -----
// CHECK: //{{ }}-----

wsp.workload @w(%s: !wsp.sparse) {
  wsp.for_each %i in %s named("i") : !wsp.sparse {
  }
}

// CHECK: error: 'wsp.for_each' op wsp.for_each over !wsp.sparse binds 2 index argument(s), got 1

// -----
// CHECK: //{{ }}-----

wsp.workload @w(%d: !wsp.dense<4>) {
  wsp.for_each %i, %j in %d : !wsp.dense<4> {
  }
}

// CHECK: error: 'wsp.for_each' op wsp.for_each over !wsp.dense<4> binds 1 index argument(s), got 2

// -----
// CHECK: //{{ }}-----

wsp.workload @w(%d: !wsp.dense_dyn) {
  wsp.parallel_for %i, %j, %k in %d : !wsp.dense_dyn {
  }
}

// CHECK: error: 'wsp.parallel_for' op wsp.parallel_for over !wsp.dense_dyn binds 1 index argument(s), got 3

// -----
// CHECK: //{{ }}-----

wsp.workload @w(%r: !wsp.ragged) {
  wsp.parallel_for %a, %b, %c in %r : !wsp.ragged {
  }
}

// CHECK: error: 'wsp.parallel_for' op wsp.parallel_for over !wsp.ragged binds 2 index argument(s), got 3

// -----
// CHECK: //{{ }}-----

// The index arguments are of type index.
"wsp.workload"() <{sym_name = "w", function_type = (!wsp.dense<4>) -> (), arg_names = ["d"], level = "cpu"}> ({
^bb0(%d: !wsp.dense<4>):
  "wsp.parallel_for"(%d) <{names = ["i"]}> ({
  ^bb0(%i: i32):
    "wsp.yield"() : () -> ()
  }) : (!wsp.dense<4>) -> ()
  "wsp.yield"() : () -> ()
}) : () -> ()

// CHECK: error: 'wsp.parallel_for' op wsp.parallel_for index arguments must be index, got i32

// -----
// CHECK: //{{ }}-----

// One name per index.
wsp.workload @w(%r: !wsp.ragged) {
  wsp.for_each %row, %j in %r named("row") : !wsp.ragged {
  }
}

// CHECK: error: 'wsp.for_each' op wsp.for_each needs 2 index name(s), got 1

// -----
// CHECK: //{{ }}-----

wsp.workload @w(%d: !wsp.dense<4>) {
  wsp.parallel_for %i in %d named("i", "j") : !wsp.dense<4> {
  }
}

// CHECK: error: 'wsp.parallel_for' op wsp.parallel_for needs 1 index name(s), got 2

// -----
// CHECK: //{{ }}-----

// Index names are identifiers: given with named(...), or taken from the SSA name.
wsp.workload @w(%d: !wsp.dense<4>) {
  wsp.parallel_for %i in %d named("b-1") : !wsp.dense<4> {
  }
}

// CHECK: error: 'wsp.parallel_for' op index name 'b-1' is not an identifier

// -----
// CHECK: //{{ }}-----

wsp.workload @w(%d: !wsp.dense<4>) {
  wsp.for_each %i in %d named("") : !wsp.dense<4> {
  }
}

// CHECK: error: 'wsp.for_each' op index name '' is not an identifier

// -----
// CHECK: //{{ }}-----

wsp.workload @w(%r: !wsp.ragged) {
  wsp.for_each %row, %j in %r named("row", "2j") : !wsp.ragged {
  }
}

// CHECK: error: 'wsp.for_each' op index name '2j' is not an identifier

// -----
// CHECK: //{{ }}-----

wsp.workload @w(%d: !wsp.dense<4>) {
  wsp.parallel_for %b.x in %d : !wsp.dense<4> {
  }
}

// CHECK: error: 'wsp.parallel_for' op index name 'b.x' is not an identifier

// -----
// CHECK: //{{ }}-----

wsp.workload @w(%d: !wsp.dense<4>) {
  wsp.parallel_for %0 in %d : !wsp.dense<4> {
  }
}

// CHECK: error: 'wsp.parallel_for' op index name '0' is not an identifier

// -----
// CHECK: //{{ }}-----

// select takes one row of a Sparse axis and binds one named index.
wsp.workload @w(%d: !wsp.dense_dyn, %b: index) {
  wsp.select %e in %d[%b] : !wsp.dense_dyn {
  }
}

// CHECK: error: 'wsp.select' op wsp.select takes a Sparse axis, got !wsp.dense_dyn

// -----
// CHECK: //{{ }}-----

wsp.workload @w(%r: !wsp.ragged, %b: index) {
  wsp.select %e in %r[%b] : !wsp.ragged {
  }
}

// CHECK: error: 'wsp.select' op wsp.select takes a Sparse axis, got !wsp.ragged

// -----
// CHECK: //{{ }}-----

wsp.workload @w(%s: !wsp.sparse, %b: index) {
  wsp.select %e in %s[%b] named("e", "f") : !wsp.sparse {
  }
}

// CHECK: error: 'wsp.select' op wsp.select needs 1 index name(s), got 2

// -----
// CHECK: //{{ }}-----

wsp.workload @w(%s: !wsp.sparse, %b: index) {
  wsp.select %e in %s[%b] named("9e") : !wsp.sparse {
  }
}

// CHECK: error: 'wsp.select' op index name '9e' is not an identifier

// -----
// CHECK: //{{ }}-----

"wsp.workload"() <{sym_name = "w", function_type = (!wsp.sparse, index) -> (), arg_names = ["s", "b"], level = "cpu"}> ({
^bb0(%s: !wsp.sparse, %b: index):
  "wsp.select"(%s, %b) <{names = ["e"]}> ({
  ^bb0(%e: index, %f: index):
    "wsp.yield"() : () -> ()
  }) : (!wsp.sparse, index) -> ()
  "wsp.yield"() : () -> ()
}) : () -> ()

// CHECK: error: 'wsp.select' op wsp.select over one CSR row binds 1 index argument(s), got 2

// -----
// CHECK: //{{ }}-----

"wsp.workload"() <{sym_name = "w", function_type = (!wsp.sparse, i32) -> (), arg_names = ["s", "b"], level = "cpu"}> ({
^bb0(%s: !wsp.sparse, %b: i32):
  "wsp.select"(%s, %b) <{names = ["e"]}> ({
  ^bb0(%e: index):
    "wsp.yield"() : () -> ()
  }) : (!wsp.sparse, i32) -> ()
  "wsp.yield"() : () -> ()
}) : () -> ()

// CHECK: error: 'wsp.select' op operand 'row' at position 1 does not verify:
// CHECK-NEXT: i32 should be of base attribute index

// -----
// CHECK: //{{ }}-----

// cond takes an i1 predicate.
"wsp.workload"() <{sym_name = "w", function_type = (i32) -> (), arg_names = ["p"], level = "cpu"}> ({
^bb0(%p: i32):
  "wsp.cond"(%p) ({
    "wsp.yield"() : () -> ()
  }, {
    "wsp.yield"() : () -> ()
  }) : (i32) -> ()
  "wsp.yield"() : () -> ()
}) : () -> ()

// CHECK: error: 'wsp.cond' op operand 'predicate' at position 0 does not verify:
// CHECK-NEXT: Expected attribute i1 but got i32

// -----
// CHECK: //{{ }}-----

// A task names a kernel and matches its scalar parameters and its tensor parameters.
builtin.module {
  wsp.workload @w() {
    wsp.task @nothere() resources()
  }
}

// CHECK: error: 'wsp.task' op task refers to unknown kernel @nothere

// -----
// CHECK: //{{ }}-----

builtin.module {
  wsp.workload @other() {
  }
  wsp.workload @w() {
    wsp.task @other() resources()
  }
}

// CHECK: error: 'wsp.task' op task refers to unknown kernel @other

// -----
// CHECK: //{{ }}-----

builtin.module {
  wsp.kernel @k(i: index, j: index, X: in memref<16xf32>)
  wsp.workload @w(%i: index, %X: memref<16xf32>) {
    wsp.task @k(%i : index) resources(%X : memref<16xf32>)
  }
}

// CHECK: error: 'wsp.task' op kernel @k takes 2 parameter(s), got 1

// -----
// CHECK: //{{ }}-----

builtin.module {
  wsp.kernel @k(i: index, X: in memref<16xf32>)
  wsp.workload @w(%i: index, %X: memref<16xf32>) {
    wsp.task @k(%i : index) resources(%X, %X : memref<16xf32>, memref<16xf32>)
  }
}

// CHECK: error: 'wsp.task' op kernel @k takes 1 resource(s), got 2

// -----
// CHECK: //{{ }}-----

builtin.module {
  wsp.kernel @k(i: index, Y: out memref<16xf32>)
  wsp.workload @w(%i: index) {
    wsp.task @k(%i : index) resources()
  }
}

// CHECK: error: 'wsp.task' op kernel @k takes 1 resource(s), got 0

// -----
// CHECK: //{{ }}-----

builtin.module {
  wsp.kernel @k(i: index, n: i32)
  wsp.workload @w(%i: index, %n: i64) {
    wsp.task @k(%i, %n : index, i64) resources()
  }
}

// CHECK: error: 'wsp.task' op parameter #1 of kernel @k must be i32, got i64

// -----
// CHECK: //{{ }}-----

builtin.module {
  wsp.kernel @k(Q: in memref<64x128xf16>)
  wsp.workload @w(%Q: memref<64x64xf16>) {
    wsp.task @k() resources(%Q : memref<64x64xf16>)
  }
}

// CHECK: error: 'wsp.task' op resource #0 of kernel @k must be memref<64x128xf16>, got memref<64x64xf16>

// -----
// CHECK: //{{ }}-----

builtin.module {
  wsp.kernel @k(X: in memref<16xf32>, Y: out memref<16xf32>)
  wsp.workload @w(%X: memref<16xf32>, %Y: memref<1x16xf32>) {
    wsp.task @k() resources(%X, %Y : memref<16xf32>, memref<1x16xf32>)
  }
}

// CHECK: error: 'wsp.task' op resource #1 of kernel @k must be memref<16xf32>, got memref<1x16xf32>

// -----
// CHECK: //{{ }}-----

builtin.module {
  wsp.kernel @k(X: in memref<?xf32>)
  wsp.workload @w(%X: memref<16xf16>) {
    wsp.task @k() resources(%X : memref<16xf16>)
  }
}

// CHECK: error: 'wsp.task' op resource #0 of kernel @k must be memref<?xf32>, got memref<16xf16>

// -----
// CHECK: //{{ }}-----

// A tensor where the kernel takes a scalar, and a scalar where it takes a tensor.
builtin.module {
  wsp.kernel @k(i: index, X: in memref<16xf32>)
  wsp.workload @w(%X: memref<16xf32>) {
    wsp.task @k(%X : memref<16xf32>) resources(%X : memref<16xf32>)
  }
}

// CHECK: error: 'wsp.task' op parameter #0 of kernel @k must be index, got memref<16xf32>

// -----
// CHECK: //{{ }}-----

builtin.module {
  wsp.kernel @k(i: index, X: in memref<16xf32>)
  wsp.workload @w(%i: index) {
    wsp.task @k(%i : index) resources(%i : index)
  }
}

// CHECK: error: 'wsp.task' op operand 'resources' at position 1 does not verify:
// CHECK-NEXT: index should be of base attribute memref

// -----
// CHECK: //{{ }}-----

builtin.module {
  "wsp.task"() <{kernel = @a::@b, operandSegmentSizes = array<i32: 0, 0>}> : () -> ()
}

// CHECK: error: 'wsp.task' op Expected SymbolRefAttr with no nested symbols.

// -----
// CHECK: //{{ }}-----

// A call names a workload and matches its arguments.
builtin.module {
  wsp.workload @w() {
    wsp.call @nothere()
  }
}

// CHECK: error: 'wsp.call' op call refers to unknown workload @nothere

// -----
// CHECK: //{{ }}-----

builtin.module {
  wsp.kernel @k()
  wsp.workload @w() {
    wsp.call @k()
  }
}

// CHECK: error: 'wsp.call' op call refers to unknown workload @k

// -----
// CHECK: //{{ }}-----

builtin.module {
  wsp.workload @inner(%i: index, %X: memref<16xf32>) level(npu) {
  }
  wsp.workload @w(%i: index) {
    wsp.call @inner(%i : index)
  }
}

// CHECK: error: 'wsp.call' op workload @inner takes 2 argument(s), got 1

// -----
// CHECK: //{{ }}-----

builtin.module {
  wsp.workload @inner(%i: index, %X: memref<16xf32>) level(npu) {
  }
  wsp.workload @w(%i: index, %X: memref<8xf32>) {
    wsp.call @inner(%i, %X : index, memref<8xf32>)
  }
}

// CHECK: error: 'wsp.call' op argument #1 of workload @inner must be memref<16xf32>, got memref<8xf32>

// -----
// CHECK: //{{ }}-----

builtin.module {
  wsp.workload @inner(%d: !wsp.dense<4>) {
  }
  wsp.workload @w(%d: !wsp.dense<8>) {
    wsp.call @inner(%d : !wsp.dense<8>)
  }
}

// CHECK: error: 'wsp.call' op argument #0 of workload @inner must be !wsp.dense<4>, got !wsp.dense<8>

// -----
// CHECK: //{{ }}-----

// The schedule of a call is a sched.schedule symbol (invalid_schedule.mlir has the rest).
builtin.module {
  wsp.workload @inner() level(npu) {
  }
  wsp.workload @w() {
    wsp.call @inner() schedule(@nosched)
  }
}

// CHECK: error: 'wsp.call' op call refers to unknown schedule @nosched

// -----
// CHECK: //{{ }}-----

builtin.module {
  wsp.workload @inner() level(npu) {
  }
  wsp.workload @w() {
    wsp.call @inner() schedule(@inner)
  }
}

// CHECK: error: 'wsp.call' op call refers to unknown schedule @inner
