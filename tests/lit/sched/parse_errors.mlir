// RUN: pto-opt %s --split-input-file --parsing-diagnostics | FileCheck %s

// Errors the custom syntax reports while parsing.

wsp.workload @w(%n: index, %Q: memref<?x8xf32>) {
}
sched.schedule @s for @w {
  sched.spatial_map grid(2)
  // CHECK: parse_errors.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: shard(-1): grid axis must be >= 0
  sched.layout "Q" (shard(-1), replicate)
}

// -----

wsp.workload @w(%n: index, %Q: memref<?x8xf32>) {
}
sched.schedule @s for @w {
  sched.spatial_map grid(2)
  // CHECK: parse_errors.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: expected shard(g) or replicate
  sched.layout "Q" (split(0), replicate)
}

// -----

wsp.workload @w(%n: index) {
}
sched.schedule @s for @w {
  sched.streams 2
  // CHECK: parse_errors.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: sched.stream_by expects key(...) { ... }
  sched.stream_by {
  }
}

// -----

wsp.workload @w(%n: index) {
}
sched.schedule @s for @w {
  // CHECK: parse_errors.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: sched.dispatch_threshold expects key(...) { ... }
  sched.dispatch_threshold 8 below(vector) above(cube)
}

// -----

wsp.workload @w(%n: index) {
}
sched.schedule @s for @w {
  // CHECK: parse_errors.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: string literal expected (the coordinate name)
  sched.issue priority key(%b = b) {
    sched.yield %b : index
  }
}
