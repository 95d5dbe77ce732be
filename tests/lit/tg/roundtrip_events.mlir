// RUN: pto-opt %s | FileCheck %s
// RUN: pto-opt %s | pto-opt | FileCheck %s
// RUN: pto-opt %s --print-op-generic | pto-opt | FileCheck %s

// Events of a task-generation program: record on a stream or after every task, wait on a
// stream or for every later task, query.

wsp.kernel @k(i: index)

tg.program @p(%n: index) {
  %c0 = arith.constant 0 : index
  tg.task @k(%c0 : index) resources() pool(vector) stream(%c0)
  tg.event_record "e" stream(0)
  tg.event_wait "e" stream(1)
  tg.event_record "all"
  %q = tg.event_query "e"
  tg.event_wait "all"
}

// CHECK:      tg.event_record "e" stream(0)
// CHECK-NEXT: tg.event_wait "e" stream(1)
// CHECK-NEXT: tg.event_record "all"
// CHECK-NEXT: %q = tg.event_query "e"
// CHECK-NEXT: tg.event_wait "all"
