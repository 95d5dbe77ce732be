// RUN: pto-opt %s --split-input-file --verify-diagnostics | FileCheck %s

// Verifier errors of the definitions: wsp.workload, wsp.kernel and its cost, wsp.yield.
// Each chunk's checks start at the separator line pto-opt prints between chunks, so a chunk
// that gives no error fails the test even where its message repeats.

wsp.workload @w(%n: index) level(gpu) {
}

// CHECK: error: 'wsp.workload' op level must be one of cpu, npu, got 'gpu'

// -----
// CHECK: //{{ }}-----

// A workload argument is named after its SSA value, which must be an identifier.
wsp.workload @w(%a.b: index) {
}

// CHECK: error: 'wsp.workload' op workload argument name 'a.b' is not an identifier

// -----
// CHECK: //{{ }}-----

"wsp.workload"() <{sym_name = "w", function_type = (index, index) -> (), arg_names = ["a", "a"], level = "cpu"}> ({
^bb0(%x: index, %y: index):
  "wsp.yield"() : () -> ()
}) : () -> ()

// CHECK: error: 'wsp.workload' op workload argument name 'a' is used twice

// -----
// CHECK: //{{ }}-----

"wsp.workload"() <{sym_name = "w", function_type = (index) -> (), arg_names = ["a", "b"], level = "cpu"}> ({
^bb0(%x: index):
  "wsp.yield"() : () -> ()
}) : () -> ()

// CHECK: error: 'wsp.workload' op workload has 1 arguments but 2 names

// -----
// CHECK: //{{ }}-----

"wsp.workload"() <{sym_name = "w", function_type = (index) -> index, arg_names = ["a"], level = "cpu"}> ({
^bb0(%x: index):
  "wsp.yield"() : () -> ()
}) : () -> ()

// CHECK: error: 'wsp.workload' op a workload has no results

// -----
// CHECK: //{{ }}-----

"wsp.workload"() <{sym_name = "w", function_type = (index) -> (), arg_names = ["a"], level = "cpu"}> ({
^bb0(%x: i32):
  "wsp.yield"() : () -> ()
}) : () -> ()

// CHECK: error: 'wsp.workload' op entry block arguments must match the workload signature

// -----
// CHECK: //{{ }}-----

"wsp.workload"() <{sym_name = "w", function_type = (index) -> (), arg_names = ["a"], level = 1 : i64}> ({
^bb0(%x: index):
  "wsp.yield"() : () -> ()
}) : () -> ()

// CHECK: error: 'wsp.workload' op 1 : i64 should be of base attribute string

// -----
// CHECK: //{{ }}-----

// A workload is isolated from above: it takes what it uses as arguments.
func.func @f(%n: index) {
  wsp.workload @w() {
    %d = wsp.dense_dyn %n
  }
  func.return
}

// CHECK: error: 'wsp.workload' op Operation using value defined out of its IsolatedFromAbove parent

// -----
// CHECK: //{{ }}-----

wsp.workload @w(%n: index) {
  wsp.yield %n : index
}

// CHECK: error: 'wsp.yield' op wsp.yield in a workload region yields no values

// -----
// CHECK: //{{ }}-----

wsp.workload @w(%n: index, %p: i1) {
  wsp.cond %p {
    wsp.yield %n : index
  }
}

// CHECK: error: 'wsp.yield' op wsp.yield in a workload region yields no values

// -----
// CHECK: //{{ }}-----

// Kernel parameter names.
wsp.kernel @k(a.b: index)

// CHECK: error: 'wsp.kernel' op kernel argument name 'a.b' is not an identifier

// -----
// CHECK: //{{ }}-----

wsp.kernel @k(x: index, X: in memref<4xf32>, x: f32)

// CHECK: error: 'wsp.kernel' op kernel argument name 'x' is used twice

// -----
// CHECK: //{{ }}-----

"wsp.kernel"() <{sym_name = "k", function_type = (index, index) -> (), arg_names = ["n"], access = ["", ""], exec_unit = "vector"}> ({
}) : () -> ()

// CHECK: error: 'wsp.kernel' op kernel has 2 arguments but 1 names

// -----
// CHECK: //{{ }}-----

// Access modes: every tensor parameter has one, no scalar parameter has one.
"wsp.kernel"() <{sym_name = "k", function_type = (index, index) -> (), arg_names = ["n", "m"], access = [""], exec_unit = "vector"}> ({
}) : () -> ()

// CHECK: error: 'wsp.kernel' op kernel needs one access entry per parameter

// -----
// CHECK: //{{ }}-----

wsp.kernel @k(n: index, A: memref<4xf32>)

// CHECK: error: 'wsp.kernel' op tensor parameter 'A' needs an access mode (in, out or inout)

// -----
// CHECK: //{{ }}-----

"wsp.kernel"() <{sym_name = "k", function_type = (memref<4xf32>) -> (), arg_names = ["B"], access = ["rw"], exec_unit = "vector"}> ({
}) : () -> ()

// CHECK: error: 'wsp.kernel' op tensor parameter 'B' needs an access mode (in, out or inout)

// -----
// CHECK: //{{ }}-----

wsp.kernel @k(n: in index)

// CHECK: error: 'wsp.kernel' op scalar parameter 'n' cannot have access mode 'in'

// -----
// CHECK: //{{ }}-----

wsp.kernel @k(A: in memref<4xf32>, alpha: inout f32)

// CHECK: error: 'wsp.kernel' op scalar parameter 'alpha' cannot have access mode 'inout'

// -----
// CHECK: //{{ }}-----

wsp.kernel @k() unit(scalar)

// CHECK: error: 'wsp.kernel' op exec unit must be one of vector, cube, got 'scalar'

// -----
// CHECK: //{{ }}-----

// Cost: a constant >= 0 or a region yielding one index, not both.
wsp.kernel @k() cost(-5)

// CHECK: error: 'wsp.kernel' op kernel cost must be >= 0, got -5

// -----
// CHECK: //{{ }}-----

"wsp.kernel"() <{sym_name = "k", function_type = (index) -> (), arg_names = ["n"], access = [""], exec_unit = "vector", cost = 4 : i64}> ({
^bb0(%n: index):
  "wsp.yield"(%n) : (index) -> ()
}) : () -> ()

// CHECK: error: 'wsp.kernel' op a kernel has a constant cost or a cost region, not both

// -----
// CHECK: //{{ }}-----

wsp.kernel @k(n: index, A: in memref<4xf32>) cost {
^bb0(%n: index):
  wsp.yield %n : index
}

// CHECK: error: 'wsp.kernel' op cost region arguments must match the kernel parameters

// -----
// CHECK: //{{ }}-----

wsp.kernel @k(n: index) cost {
^bb0(%n: i64):
  %c = arith.constant 1 : index
  wsp.yield %c : index
}

// CHECK: error: 'wsp.kernel' op cost region arguments must match the kernel parameters

// -----
// CHECK: //{{ }}-----

wsp.kernel @k(n: index) cost {
^bb0(%n: index):
  wsp.yield
}

// CHECK: error: 'wsp.yield' op a kernel's cost region must yield exactly one index

// -----
// CHECK: //{{ }}-----

wsp.kernel @k(n: index, m: i64) cost {
^bb0(%n: index, %m: i64):
  wsp.yield %m : i64
}

// CHECK: error: 'wsp.yield' op a kernel's cost region must yield exactly one index

// -----
// CHECK: //{{ }}-----

wsp.kernel @k(n: index) cost {
^bb0(%n: index):
  wsp.yield %n, %n : index, index
}

// CHECK: error: 'wsp.yield' op a kernel's cost region must yield exactly one index

// -----
// CHECK: //{{ }}-----

// Without a wsp.yield the block has no terminator.
wsp.kernel @k(n: index) cost {
^bb0(%n: index):
  %c = arith.constant 4 : index
}

// CHECK: error: 'arith.constant' op Operation arith.constant terminates block in single-block region but is not a terminator

// -----
// CHECK: //{{ }}-----

// The custom form cannot say this (a parse error: tests/lit/wsp/parse_robustness.mlir).
"wsp.kernel"() <{sym_name = "k", function_type = (index) -> (), arg_names = ["n"], access = [""], exec_unit = "vector"}> ({
^bb0(%n: index):
  "wsp.yield"(%n) : (index) -> ()
^bb1:
  "wsp.yield"(%n) : (index) -> ()
}) : () -> ()

// CHECK: error: 'wsp.kernel' op a kernel's cost region must have a single block

// -----
// CHECK: //{{ }}-----

"wsp.kernel"() <{sym_name = "k", function_type = () -> (), arg_names = [], access = [], exec_unit = "vector", impls = ["k.o"]}> ({
}) : () -> ()

// CHECK: error: 'wsp.kernel' op ["k.o"] should be of base attribute dictionary

// -----
// CHECK: //{{ }}-----

wsp.kernel @k(x: in memref<4xf32>) unit(vector) attributes {impls = {cpu = "m:f"}}
// CHECK: error: 'wsp.kernel' op impls names unknown target 'cpu' (targets: cpu_sim, aie, ascend)

// -----
// CHECK: //{{ }}-----

wsp.kernel @k(x: in memref<4xf32>) unit(vector) attributes {impls = {aie = 3 : i64}}
// CHECK: error: 'wsp.kernel' op impls entry 'aie' must be a string, got 3 : i64
