// A string holding non-ASCII text prints with escapes ("é" as "\C3\A9", as mlir-opt
// prints it) and reads back as the same string, in custom syntax and in attributes
// (xDSL read it back as bytes: "string literal expected", or a bytes attribute where a
// string was). Bytes that are no UTF-8 stay a bytes literal.
// RUN: pto-opt %s | FileCheck %s
// RUN: pto-opt %s | pto-opt | FileCheck %s
// RUN: pto-opt %s --print-op-generic | pto-opt | FileCheck %s

// CHECK-LABEL: tg.program @p
// CHECK-NEXT:    tg.task @k() resources() pool(vector)
// CHECK-NEXT:    tg.event_record "\C3\A9v\0A"
// CHECK-NEXT:    tg.event_wait "\C3\A9v\0A"
wsp.kernel @k() unit(vector)
tg.program @p() {
  tg.task @k() resources() pool(vector)
  tg.event_record "év\0A"
  tg.event_wait "\C3\A9v\0A"
}

// CHECK: "test.op"() {a = "\C3\A9", b = ["\E2\82\AC"], c = "\FF"} : () -> ()
"test.op"() {a = "é", b = ["\E2\82\AC"], c = "\FF"} : () -> ()
