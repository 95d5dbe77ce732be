// --split-input-file processes each chunk between separator lines on its own: output chunks
// are separated by the separator too, a failing chunk does not stop the others, errors carry
// the line numbers of the whole file, and the run fails if any chunk failed. (CHECK lines
// spell the separator as a regex: written out, it would split this file.)
// RUN: not pto-opt %s --split-input-file 2>%t.stderr | FileCheck %s
// RUN: FileCheck %s --check-prefix=ERROR < %t.stderr
// RUN: PTO_VERIFY_DIAG --check-prefix=DIAG

func.func @first() {
  func.return
}

// -----

func.func @second(%a: i32) -> i32 {
  func.return
}

// -----

func.func @third() {
  func.return
}

// CHECK:      func.func @first()
// CHECK:      // {{-----}}
// CHECK-NEXT: // {{-----}}
// CHECK-NEXT: builtin.module {
// CHECK-NEXT:   func.func @third()

// ERROR: split_input_file.mlir:16:3: error: 'func.return' op Expected arguments to have the same types as the function output types: expected [i32], got []
// ERROR-NOT: error:

// DIAG:      func.func @first()
// DIAG:      // {{-----}}
// DIAG-NEXT: split_input_file.mlir:16:3: error: 'func.return' op Expected arguments
// DIAG:      // {{-----}}
// DIAG-NEXT: builtin.module {
// DIAG-NEXT:   func.func @third()
