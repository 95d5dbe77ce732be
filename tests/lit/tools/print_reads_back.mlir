// What pto-opt prints, it reads back as the same IR: scf.execute_region keeps its
// terminators (xDSL's printer drops them, and its parser does not put them back) and its
// attributes (xDSL's parser dropped them).
// RUN: pto-opt %s | FileCheck %s
// RUN: pto-opt %s | pto-opt | FileCheck %s
// RUN: pto-opt %s --print-op-generic | pto-opt | FileCheck %s

// CHECK-LABEL: func.func @empty
// CHECK-NEXT:    scf.execute_region {
// CHECK-NEXT:      scf.yield
// CHECK-NEXT:    }
func.func @empty() {
  scf.execute_region {
    scf.yield
  }
  func.return
}

// CHECK-LABEL: func.func @blocks
// CHECK-NEXT:    scf.execute_region {
// CHECK-NEXT:      cf.br ^[[BB:bb[0-9]+]]
// CHECK-NEXT:    ^[[BB]]:
// CHECK-NEXT:      scf.yield
// CHECK-NEXT:    }
func.func @blocks() {
  scf.execute_region {
    cf.br ^bb1
  ^bb1:
    scf.yield
  }
  func.return
}

// CHECK-LABEL: func.func @attributes
// CHECK-NEXT:    scf.execute_region {
// CHECK-NEXT:      scf.yield
// CHECK-NEXT:    } {note = "kept"}
func.func @attributes() {
  scf.execute_region {
    scf.yield
  } {note = "kept"}
  func.return
}

// CHECK-LABEL: func.func @results
// CHECK-NEXT:    %{{.*}} = scf.execute_region -> (index) {
// CHECK-NEXT:      %{{.*}} = arith.constant 1 : index
// CHECK-NEXT:      scf.yield %{{.*}} : index
// CHECK-NEXT:    }
func.func @results() -> index {
  %r = scf.execute_region -> (index) {
    %c = arith.constant 1 : index
    scf.yield %c : index
  }
  func.return %r : index
}
