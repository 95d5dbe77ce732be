// RUN: not pto-opt %s -p 'wsp-to-tg,tg-materialize' 2>&1 | FileCheck %s

// The static form holds finite scalars: an f16 infinity (0x7C00) as a task's arg is one
// error line, not a node whose text no parser reads back.

wsp.kernel @k(alpha: f16) unit(vector)
wsp.workload @w() {
  %a = arith.constant 0x7C00 : f16
  wsp.task @k(%a : f16) resources()
}

// CHECK-NOT: Traceback
// CHECK: pto-opt: error: tg-materialize: a task's f16 scalar is inf: the static form holds finite scalars
