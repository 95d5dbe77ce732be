// Source locations: --print-debuginfo prints each op's and block argument's loc(...), and
// reads them back, in our dialects' custom syntax and in scf.while (whose xDSL printer put
// the location before its regions).
// RUN: pto-opt --print-debuginfo %s | FileCheck %s
// RUN: pto-opt --print-debuginfo %s | pto-opt --print-debuginfo | FileCheck %s
// mlir-opt's spelling of the flag is accepted, and its output reads back to the same text.
// RUN: pto-opt --mlir-print-debuginfo %s > %t.1.mlir
// RUN: pto-opt --mlir-print-debuginfo %t.1.mlir > %t.2.mlir
// RUN: diff %t.1.mlir %t.2.mlir
// RUN: pto-opt --mlir-print-debuginfo %s | FileCheck %s

wsp.kernel @k(i: index, x: in memref<16xf32>)
// CHECK: wsp.workload @w(%b: !wsp.dense<4> loc("traced.py":3:0), %X: memref<16xf32> loc("traced.py":3:0)) {
// CHECK: wsp.task @k(%i : index) resources(%X : memref<16xf32>) loc("traced.py":5:0)
// CHECK: } loc("traced.py":9:0)
wsp.workload @w(%b: !wsp.dense<4> loc("traced.py":3:0), %X: memref<16xf32> loc("traced.py":3:0)) {
  wsp.parallel_for %i in %b : !wsp.dense<4> {
    wsp.task @k(%i : index) resources(%X : memref<16xf32>) loc("traced.py":5:0)
  } loc("traced.py":4:0)
} loc("traced.py":9:0)

// CHECK: %r = scf.while (%a = %c0) : (index) -> index {
// CHECK: } loc("kernel.py":12:0)
func.func @f(%c0: index, %c4: index) -> index {
  %r = scf.while (%a = %c0) : (index) -> index {
    %go = arith.cmpi slt, %a, %c4 : index
    scf.condition(%go) %a : index
  } do {
  ^bb0(%b: index):
    scf.yield %b : index
  } loc("kernel.py":12:0)
  func.return %r : index
}
