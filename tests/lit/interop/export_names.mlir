// .pto writes names as identifiers: -t pto refuses a symbol MLIR must quote (@"k-1"), at the
// op, rather than write text the reader rejects.
// RUN: not pto-opt %s --split-input-file -t pto 2>&1 | filecheck %s
// CHECK-NOT: internal error

wsp.kernel @"k-1"(i: index) unit(vector)
// CHECK: export_names.mlir:[[# @LINE - 1]]:1: error: 'wsp.kernel' op cannot print as .pto: the name "k-1" is not a .pto identifier

// -----
wsp.kernel @k(i: index) unit(vector)
wsp.workload @"my w"(%n: index) {
  wsp.task @k(%n : index) resources()
}
// CHECK: export_names.mlir:[[# @LINE - 3]]:1: error: 'wsp.workload' op cannot print as .pto: the name "my w" is not a .pto identifier

// -----
wsp.kernel @k(i: index) unit(vector)
wsp.workload @w(%n: index) {
  wsp.task @k(%n : index) resources()
}
sched.schedule @"s.1" for @w {
  sched.streams 2
}
// CHECK: export_names.mlir:[[# @LINE - 3]]:1: error: 'sched.schedule' op cannot print as .pto: the name "s.1" is not a .pto identifier
