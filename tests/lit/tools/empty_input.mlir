// An input of nothing but blanks and comments is an empty module, as mlir-opt reads it
// (this file, its RUN and CHECK lines being comments, is one). --no-implicit-module still
// asks for a top-level module.
// RUN: pto-opt %s | FileCheck %s
// RUN: printf '' | pto-opt | FileCheck %s
// RUN: pto-opt %s -p wsp-to-tg,csp-to-tg,tg-materialize | FileCheck %s
// RUN: not pto-opt --no-implicit-module %s 2>&1 | FileCheck %s --check-prefix=EXPLICIT

// CHECK:      builtin.module {
// CHECK-NEXT: }
// CHECK-NOT:  {{.}}

// EXPLICIT: error:
// EXPLICIT-NOT: Traceback
