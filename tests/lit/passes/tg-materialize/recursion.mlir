// A program that calls itself, directly or through others, is refused at the tg.call
// closing the cycle, which is named (running it recursed until Python's stack ran out).
// The simulator (pto-run) and tg-to-runtime-calls share the check (dialects/tg_calls.py).
// RUN: not pto-opt %s -p 'tg-materialize{bind="n=3"}' 2>&1 | FileCheck %s
// RUN: not pto-run %s --bind n=3 --mode cycles 2>&1 | FileCheck %s --check-prefix=SIM
// RUN: not pto-opt %s -p tg-to-runtime-calls 2>&1 | FileCheck %s --check-prefix=CALLS

// CHECK-NOT: RecursionError
// CHECK: pto-opt: error: {{.*}}recursion.mlir:[[# @LINE + 13]]:3: recursive tg.call: @b -> @c -> @b (a program that calls itself never ends)
// SIM-NOT: RecursionError
// SIM: pto-run: error: {{.*}}recursion.mlir:[[# @LINE + 11]]:3: tg-to-runtime-calls: recursive tg.call cannot be inlined: @b -> @c -> @b
// CALLS: {{.*}}recursion.mlir:[[# @LINE + 10]]:3: error: 'tg.call' op tg-to-runtime-calls: recursive tg.call cannot be inlined: @b -> @c -> @b
wsp.kernel @k() unit(vector)
tg.program @a(%n: index) {
  tg.task @k() resources() pool(vector)
  tg.call @b(%n : index)
}
tg.program @b(%n: index) {
  tg.call @c(%n : index)
}
tg.program @c(%n: index) {
  tg.call @b(%n : index)
}
