// RUN: pto-opt %s --split-input-file --verify-diagnostics | FileCheck %s

// Verifier errors of the program form: tg.program, tg.task, tg.ordered, tg.order_point, tg.seq,
// tg.call.
// Each chunk's checks start at the separator line pto-opt prints between chunks, so a chunk
// that gives no error fails the test even where its message repeats.

// A program argument is named after its SSA value, which must be an identifier.
tg.program @p(%a.b: index) {
}

// CHECK: error: 'tg.program' op program argument name 'a.b' is not an identifier

// -----
// CHECK: //{{ }}-----

"tg.program"() <{sym_name = "p", function_type = (index, index) -> (), arg_names = ["a", "a"]}> ({
^bb0(%x: index, %y: index):
  "tg.yield"() : () -> ()
}) : () -> ()

// CHECK: error: 'tg.program' op program argument name 'a' is used twice

// -----
// CHECK: //{{ }}-----

"tg.program"() <{sym_name = "p", function_type = (index) -> (), arg_names = []}> ({
^bb0(%x: index):
  "tg.yield"() : () -> ()
}) : () -> ()

// CHECK: error: 'tg.program' op program has 1 arguments but 0 names

// -----
// CHECK: //{{ }}-----

"tg.program"() <{sym_name = "p", function_type = () -> index, arg_names = []}> ({
  "tg.yield"() : () -> ()
}) : () -> ()

// CHECK: error: 'tg.program' op a program has no results

// -----
// CHECK: //{{ }}-----

"tg.program"() <{sym_name = "p", function_type = (index) -> (), arg_names = ["n"]}> ({
^bb0(%n: i32):
  "tg.yield"() : () -> ()
}) : () -> ()

// CHECK: error: 'tg.program' op entry block arguments must match the program signature

// -----
// CHECK: //{{ }}-----

// The program is isolated from above: it sees only its arguments.
%n = arith.constant 4 : index
tg.program @p() {
  %m = arith.addi %n, %n : index
}

// CHECK: error: 'tg.program' op Operation using value defined out of its IsolatedFromAbove parent

// -----
// CHECK: //{{ }}-----

// The program is a symbol table of its queues and processes.
tg.program @p() {
  tg.queue @q : !wsp.task capacity(1)
  tg.queue @q : !wsp.task capacity(1)
}

// CHECK: error: 'tg.program' op Redefinition of symbol "q"

// -----
// CHECK: //{{ }}-----

// tg.task, tg.ordered, tg.seq and tg.call stand in a program.
wsp.kernel @k(i: index, x: in memref<16xf32>, y: out memref<16xf32>) unit(vector)
func.func @f(%i: index, %x: memref<16xf32>) {
  tg.task @k(%i : index) resources(%x, %x : memref<16xf32>, memref<16xf32>) access(in, out) pool(any)
  func.return
}

// CHECK: error: 'tg.task' op tg.task must be inside a tg.program

// -----
// CHECK: //{{ }}-----

func.func @f() {
  tg.ordered {
  }
  func.return
}

// CHECK: error: 'tg.ordered' op tg.ordered must be inside a tg.program

// -----
// CHECK: //{{ }}-----

func.func @f() {
  %n = tg.seq
  func.return
}

// CHECK: error: 'tg.seq' op tg.seq must be inside a tg.program

// -----
// CHECK: //{{ }}-----

tg.program @q() {
}
func.func @f() {
  tg.call @q()
  func.return
}

// CHECK: error: 'tg.call' op tg.call must be inside a tg.program

// -----
// CHECK: //{{ }}-----

// Coordinates: identifiers, one per value, each once.
wsp.kernel @k(i: index, x: in memref<16xf32>, y: out memref<16xf32>) unit(vector)
tg.program @p(%i: index, %x: memref<16xf32>) {
  tg.task @k(%i : index) resources(%x, %x : memref<16xf32>, memref<16xf32>) access(in, out) at(i = %i, i = %i) pool(any)
}

// CHECK: error: 'tg.task' op tg.task @k: coordinate 'i' appears twice

// -----
// CHECK: //{{ }}-----

wsp.kernel @k(i: index, x: in memref<16xf32>, y: out memref<16xf32>) unit(vector)
tg.program @p(%i: index, %x: memref<16xf32>) {
  "tg.task"(%i, %x, %x, %i) <{kernel = @k, access = ["in", "out"], coord_names = ["i", "j"], domain = "host_cpu", pool = "any", operandSegmentSizes = array<i32: 1, 2, 1, 0, 0, 0, 0>}> : (index, memref<16xf32>, memref<16xf32>, index) -> ()
}

// CHECK: error: 'tg.task' op tg.task @k has 2 coordinate name(s) but 1 value(s)

// -----
// CHECK: //{{ }}-----

wsp.kernel @k(i: index, x: in memref<16xf32>, y: out memref<16xf32>) unit(vector)
tg.program @p(%i: index, %x: memref<16xf32>) {
  "tg.task"(%i, %x, %x, %i) <{kernel = @k, access = ["in", "out"], coord_names = ["a b"], domain = "host_cpu", pool = "any", operandSegmentSizes = array<i32: 1, 2, 1, 0, 0, 0, 0>}> : (index, memref<16xf32>, memref<16xf32>, index) -> ()
}

// CHECK: error: 'tg.task' op coordinate name 'a b' is not an identifier

// -----
// CHECK: //{{ }}-----

// Execution domain and pool.
wsp.kernel @k(i: index, x: in memref<16xf32>, y: out memref<16xf32>) unit(vector)
tg.program @p(%i: index, %x: memref<16xf32>) {
  tg.task @k(%i : index) resources(%x, %x : memref<16xf32>, memref<16xf32>) access(in, out) domain(gpu) pool(any)
}

// CHECK: error: 'tg.task' op domain must be one of host_cpu, aicore, aie_tile, got 'gpu'

// -----
// CHECK: //{{ }}-----

wsp.kernel @k(i: index, x: in memref<16xf32>, y: out memref<16xf32>) unit(vector)
tg.program @p(%i: index, %x: memref<16xf32>) {
  tg.task @k(%i : index) resources(%x, %x : memref<16xf32>, memref<16xf32>) access(in, out) pool(tensor)
}

// CHECK: error: 'tg.task' op pool must be one of vector, cube, any, got 'tensor'

// -----
// CHECK: //{{ }}-----

wsp.kernel @k(i: index, x: in memref<16xf32>, y: out memref<16xf32>) unit(vector)
tg.program @p(%i: index, %x: memref<16xf32>) {
  "tg.task"(%i, %x, %x, %i) <{kernel = @k, access = ["in", "out"], coord_names = [], domain = "host_cpu", pool = "any", operandSegmentSizes = array<i32: 1, 2, 0, 1, 0, 0, 0>}> : (index, memref<16xf32>, memref<16xf32>, index) -> ()
}

// CHECK: error: 'tg.task' op tg.task has a static pool and a dynamic pool; give one

// -----
// CHECK: //{{ }}-----

wsp.kernel @k(i: index, x: in memref<16xf32>, y: out memref<16xf32>) unit(vector)
tg.program @p(%i: index, %x: memref<16xf32>) {
  "tg.task"(%i, %x, %x) <{kernel = @k, access = ["in", "out"], coord_names = [], domain = "host_cpu", operandSegmentSizes = array<i32: 1, 2, 0, 0, 0, 0, 0>}> : (index, memref<16xf32>, memref<16xf32>) -> ()
}

// CHECK: error: 'tg.task' op tg.task needs a pool (vector, cube, any or an index)

// -----
// CHECK: //{{ }}-----

// The kernel is a wsp.kernel of the module; parameters and resources match its signature.
wsp.kernel @k(i: index, x: in memref<16xf32>, y: out memref<16xf32>) unit(vector)
tg.program @p(%i: index, %x: memref<16xf32>) {
  tg.task @nowhere(%i : index) resources() pool(any)
}

// CHECK: error: 'tg.task' op tg.task refers to unknown kernel @nowhere

// -----
// CHECK: //{{ }}-----

tg.program @q() {
}
tg.program @p() {
  tg.task @q() resources() pool(any)
}

// CHECK: error: 'tg.task' op tg.task refers to unknown kernel @q

// -----
// CHECK: //{{ }}-----

wsp.kernel @k(i: index, x: in memref<16xf32>, y: out memref<16xf32>) unit(vector)
tg.program @p(%i: index, %x: memref<16xf32>) {
  tg.task @k() resources(%x, %x : memref<16xf32>, memref<16xf32>) access(in, out) pool(any)
}

// CHECK: error: 'tg.task' op kernel @k takes 1 parameter(s), got 0

// -----
// CHECK: //{{ }}-----

wsp.kernel @k(i: index, x: in memref<16xf32>, y: out memref<16xf32>) unit(vector)
tg.program @p(%i: index, %x: memref<16xf32>) {
  %c = arith.constant 1 : i32
  tg.task @k(%c : i32) resources(%x, %x : memref<16xf32>, memref<16xf32>) access(in, out) pool(any)
}

// CHECK: error: 'tg.task' op parameter #0 of kernel @k must be index, got i32

// -----
// CHECK: //{{ }}-----

wsp.kernel @k(i: index, x: in memref<16xf32>, y: out memref<16xf32>) unit(vector)
tg.program @p(%i: index, %x: memref<16xf32>) {
  tg.task @k(%i : index) resources(%x : memref<16xf32>) access(in) pool(any)
}

// CHECK: error: 'tg.task' op kernel @k takes 2 resource(s), got 1

// -----
// CHECK: //{{ }}-----

// Views are compared by element type, rank and static extents, not by layout.
wsp.kernel @k(i: index, x: in memref<16xf32>, y: out memref<16xf32>) unit(vector)
tg.program @p(%i: index, %x: memref<16xf32>, %y: memref<16xf16>) {
  tg.task @k(%i : index) resources(%x, %y : memref<16xf32>, memref<16xf16>) access(in, out) pool(any)
}

// CHECK: error: 'tg.task' op resource #1 of kernel @k must be memref<16xf32>, got memref<16xf16>

// -----
// CHECK: //{{ }}-----

wsp.kernel @k(i: index, x: in memref<16xf32>, y: out memref<16xf32>) unit(vector)
tg.program @p(%i: index, %x: memref<16xf32>, %y: memref<1x16xf32>) {
  tg.task @k(%i : index) resources(%x, %y : memref<16xf32>, memref<1x16xf32>) access(in, out) pool(any)
}

// CHECK: error: 'tg.task' op resource #1 of kernel @k must be memref<16xf32>, got memref<1x16xf32>

// -----
// CHECK: //{{ }}-----

wsp.kernel @k(i: index, x: in memref<16xf32>, y: out memref<16xf32>) unit(vector)
tg.program @p(%i: index, %X: memref<4x16xf32>) {
  %v = memref.subview %X[0, 0] [1, 8] [1, 2] : memref<4x16xf32> to memref<8xf32, strided<[2]>>
  tg.task @k(%i : index) resources(%v, %v : memref<8xf32, strided<[2]>>, memref<8xf32, strided<[2]>>) access(in, out) pool(any)
}

// CHECK: error: 'tg.task' op resource #0 of kernel @k must be memref<16xf32>, got memref<8xf32, strided<[2]>>

// -----
// CHECK: //{{ }}-----

// access: one mode per resource, the kernel's.
wsp.kernel @k(i: index, x: in memref<16xf32>, y: out memref<16xf32>) unit(vector)
tg.program @p(%i: index, %x: memref<16xf32>) {
  tg.task @k(%i : index) resources(%x, %x : memref<16xf32>, memref<16xf32>) access(in) pool(any)
}

// CHECK: error: 'tg.task' op tg.task @k needs one access mode per resource: 2 resource(s), 1 access mode(s)

// -----
// CHECK: //{{ }}-----

wsp.kernel @k(i: index, x: in memref<16xf32>, y: out memref<16xf32>) unit(vector)
tg.program @p(%i: index, %x: memref<16xf32>) {
  tg.task @k(%i : index) resources(%x, %x : memref<16xf32>, memref<16xf32>) access(in, inout) pool(any)
}

// CHECK: error: 'tg.task' op tg.task access (in, inout) must be kernel @k's (in, out)

// -----
// CHECK: //{{ }}-----

wsp.kernel @k(i: index, x: in memref<16xf32>, y: out memref<16xf32>) unit(vector)
tg.program @p(%i: index, %x: memref<16xf32>) {
  tg.task @k(%i : index) resources(%x, %x : memref<16xf32>, memref<16xf32>) access(in, write) pool(any)
}

// CHECK: error: 'tg.task' op tg.task access (in, write) must be kernel @k's (in, out)

// -----
// CHECK: //{{ }}-----

// An ordering point belongs to the innermost enclosing tg.ordered.
wsp.kernel @k(i: index, x: in memref<16xf32>, y: out memref<16xf32>) unit(vector)
tg.program @p() {
  tg.order_point
}

// CHECK: error: 'tg.order_point' op tg.order_point must be inside a tg.ordered

// -----
// CHECK: //{{ }}-----

wsp.kernel @k(i: index, x: in memref<16xf32>, y: out memref<16xf32>) unit(vector)
tg.program @p(%i: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %j = %c0 to %i step %c1 {
    tg.order_point
  }
}

// CHECK: error: 'tg.order_point' op tg.order_point must be inside a tg.ordered

// -----
// CHECK: //{{ }}-----

// tg.call runs a tg.program with matching arguments.
wsp.workload @w() {
}
tg.program @p() {
  tg.call @w()
}

// CHECK: error: 'tg.call' op tg.call refers to unknown program @w

// -----
// CHECK: //{{ }}-----

tg.program @q(%n: index) {
}
tg.program @p() {
  tg.call @q()
}

// CHECK: error: 'tg.call' op program @q takes 1 argument(s), got 0

// -----
// CHECK: //{{ }}-----

tg.program @q(%n: index) {
}
tg.program @p(%x: i32) {
  tg.call @q(%x : i32)
}

// CHECK: error: 'tg.call' op argument #0 of program @q must be index, got i32

// -----
// CHECK: //{{ }}-----

// A view of a program gives one offset, size and stride per dimension of its source (the code
// generators read them by dimension), even a view no task uses.
tg.program @p(%X: memref<8x16xf32>) {
  %rows = memref.subview %X[] [] [] : memref<8x16xf32> to memref<4x16xf32, strided<[], offset: 16>>
}

// CHECK: error: 'tg.program' op memref.subview %rows of a rank-2 memref needs 2 offsets, got 0

// -----
// CHECK: //{{ }}-----

tg.program @p(%X: memref<8x16xf32>) {
  %rows = "memref.subview"(%X) <{static_offsets = array<i64: 0, 0>, static_sizes = array<i64: 4>, static_strides = array<i64: 1, 1>, operandSegmentSizes = array<i32: 1, 0, 0, 0>}> : (memref<8x16xf32>) -> memref<4xf32, strided<[16], offset: 0>>
}

// CHECK: error: 'tg.program' op memref.subview %rows of a rank-2 memref needs 2 sizes, got 1
