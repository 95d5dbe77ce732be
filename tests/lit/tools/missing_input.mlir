// A missing input file is a one-line error.
// RUN: not pto-opt %t.does-not-exist.mlir 2>&1 | FileCheck %s

// CHECK-NOT: Traceback
// CHECK: pto-opt: error: cannot open input file '{{.*}}does-not-exist.mlir': No such file or directory
// CHECK-NOT: Traceback
