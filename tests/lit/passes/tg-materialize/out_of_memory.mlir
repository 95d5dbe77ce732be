// A size bound beyond the machine's memory is an error line, not an internal error, and it
// comes before the tasks are made: a loop creating a task per iteration has its trip count
// checked against the available memory at the least a static graph's node takes (4 KiB)
// before it runs.
// RUN: not pto-opt %S/../../../../examples/scan.mlir -p 'wsp-to-tg,tg-materialize{bind="n=99999999999999"}' 2>&1 | FileCheck %s
// RUN: not pto-opt %s -p 'wsp-to-tg,tg-materialize{bind="n=1,lengths=[2147483648]"}' 2>&1 | FileCheck %s --check-prefix=RAGGED

wsp.kernel @k(r: index, j: index) unit(vector)
wsp.workload @w(%n: index, %lengths: memref<?xindex>) {
  %rows = wsp.ragged %n, %lengths : memref<?xindex>
  wsp.parallel_for %r, %j in %rows named("r", "j") : !wsp.ragged {
    wsp.task @k(%r, %j : index, index) resources()
  }
}

// CHECK-NOT: internal error
// CHECK: pto-opt: error: out of memory (a static graph of 99,999,999,999,999 tasks, more than the {{.*}} GiB this machine has available could hold at 4,096 bytes a task); are the bound sizes (bind=...) what you meant?
// CHECK-NOT: Traceback

// RAGGED: pto-opt: error: out of memory (a static graph of 2,147,483,648 tasks, more than the {{.*}} GiB this machine has available could hold at 4,096 bytes a task); are the bound sizes (bind=...) what you meant?
