// A size bound beyond the machine's memory is an error line, not an internal error.
// RUN: not pto-opt %S/../../../../examples/scan.mlir -p 'wsp-to-tg,tg-materialize{bind="n=99999999999999"}' 2>&1 | FileCheck %s

// CHECK-NOT: internal error
// CHECK: pto-opt: error: out of memory (Unable to allocate {{.*}}); are the bound sizes (bind=...) what you meant?
// CHECK-NOT: Traceback
