// A generic op's name with a character that would be printed as it is and not read back
// (a control character, a quote, a backslash: written escaped) is refused at the name.
// RUN: not pto-opt %s --allow-unregistered-dialect --split-input-file 2>&1 | FileCheck %s

"\n"() : () -> ()

// CHECK-NOT: Traceback
// CHECK: unprintable_op_name.mlir:5:1: error: operation name '\n' has a character pto-wsp cannot print back (a quote, a backslash or one that is not printable)

// -----

"a\"b.op"() : () -> ()

// CHECK: unprintable_op_name.mlir:12:1: error: operation name 'a"b.op' has a character pto-wsp cannot print back

// -----

"dialect.op\\x"() : () -> ()

// CHECK: unprintable_op_name.mlir:18:1: error: operation name 'dialect.op\\x' has a character pto-wsp cannot print back
// CHECK-NOT: Traceback
