// RUN: not pto-opt %s --split-input-file -p wsp-inline-calls 2>&1 | FileCheck %s
// RUN: pto-opt %s --split-input-file -p wsp-inline-calls --verify-diagnostics | FileCheck %s

// A call cycle cannot be inlined (it would never end): the pass fails at the call that
// closes the cycle and names the cycle. No Python traceback, no RecursionError.

// CHECK-NOT: Traceback

wsp.workload @main(%n: index) {
  wsp.call @a(%n : index)
}
wsp.workload @a(%n: index) level(npu) {
  wsp.call @b(%n : index)
}
wsp.workload @b(%n: index) level(npu) {
  wsp.call @a(%n : index)
}

// CHECK: {{.*}}recursion.mlir:[[# @LINE - 3]]:3: error: 'wsp.call' op wsp-inline-calls: recursive calls cannot be inlined: @a -> @b -> @a

// -----

wsp.workload @self(%n: index) {
  %d = wsp.dense 2
  wsp.parallel_for %i in %d : !wsp.dense<2> {
    wsp.call @self(%i : index)
  }
}

// CHECK: {{.*}}recursion.mlir:[[# @LINE - 4]]:5: error: 'wsp.call' op wsp-inline-calls: recursive calls cannot be inlined: @self -> @self

// CHECK-NOT: Traceback
