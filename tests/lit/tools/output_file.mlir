// -o writes the result to a file, and a failing run writes nothing there.
// RUN: rm -f %t %t.bad
// RUN: pto-opt %S/Inputs/add.mlir -o %t | FileCheck %s --allow-empty --check-prefix=STDOUT
// RUN: FileCheck %s < %t
// RUN: not pto-opt %S/Inputs/verify_error.mlir -o %t.bad
// RUN: not cat %t.bad
// RUN: not pto-opt %S/Inputs/add.mlir -o %t.missing-dir/out.mlir 2>&1 | FileCheck %s --check-prefix=UNWRITABLE

// STDOUT-NOT: {{.}}

// CHECK: func.func @add
// CHECK: arith.addi

// UNWRITABLE: pto-opt: error: cannot write output file '{{.*}}missing-dir/out.mlir': No such file or directory
