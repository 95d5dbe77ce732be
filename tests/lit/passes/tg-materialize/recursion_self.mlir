// A program calling itself inside a loop: the same refusal, at the call.
// RUN: not pto-opt %s -p 'tg-materialize{bind="n=3"}' 2>&1 | FileCheck %s

// CHECK: pto-opt: error: {{.*}}recursion_self.mlir:[[# @LINE + 5]]:5: recursive tg.call: @self -> @self
tg.program @self(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    tg.call @self(%i : index)
  }
}
