// What .pto cannot say makes -t pto fail at the op, never print text that would read back
// as different IR.
// RUN: not pto-opt %s --split-input-file -t pto 2>&1 | filecheck %s

func.func @f() {
  func.return
}
// CHECK: export_errors.mlir:[[# @LINE - 3]]:1: error: 'func.func' op cannot print as .pto: func.func at module level

// -----
wsp.kernel @k(i: index) unit(vector)
wsp.workload @w(%n: index) {
  %c = arith.constant 1 : index
  %u = arith.cmpi ult, %n, %c : index
  wsp.cond %u {
    wsp.task @k(%n : index) resources()
  }
}
// CHECK: export_errors.mlir:[[# @LINE - 5]]:8: error: 'arith.cmpi' op cannot print as .pto: unsigned comparisons (.pto compares signed)

// -----
wsp.kernel @k(i: index) unit(vector)
wsp.workload @w(%n: index) {
  %d = wsp.dense_dyn %n
  wsp.parallel_for %b in %d named("b") : !wsp.dense_dyn {
    wsp.task @k(%b : index) resources() attributes {note = "hi"}
  }
}
// CHECK: export_errors.mlir:[[# @LINE - 3]]:5: error: 'wsp.task' op cannot print as .pto: the attribute(s) note of wsp.task

// -----
wsp.kernel @k(i: index) unit(vector)
wsp.workload @w(%n: index) {
  %d = wsp.dense_dyn %n
  wsp.parallel_for %b in %d named("n") : !wsp.dense_dyn {
    wsp.task @k(%n : index) resources()
  }
}
// CHECK: export_errors.mlir:[[# @LINE - 3]]:5: error: 'wsp.task' op cannot print as .pto: %n is shadowed here by another %n: .pto names values by their names

// -----
wsp.workload @w(%n: index, %l: memref<?xindex>) {
  %d = wsp.ragged %n, %l : memref<?xindex>
  wsp.parallel_for %b, %h in %d named("b", "h") : !wsp.ragged {
  }
}
sched.schedule @s for @w {
  sched.dispatch hash key(%x = "b", %y = "h") {
    sched.yield %x : index
  }
}
// CHECK: export_errors.mlir:[[# @LINE - 4]]:3: error: {{.*}}cannot print as .pto: a key over (b, h) that uses (b): .pto keys take their coordinates in order of first use

// -----
wsp.workload @w(%n: index) {
  %c = arith.constant 1 : index
  %s = arith.subi %n, %c : index
  %d = wsp.dense_dyn %s
  wsp.parallel_for %b in %d named("b") : !wsp.dense_dyn {
    scf.execute_region {
      scf.yield
    }
  }
}
// CHECK: export_errors.mlir:[[# @LINE - 5]]:5: error: 'scf.execute_region' op cannot print as .pto: scf.execute_region is not a .pto statement
