// RUN: pto-opt %s --split-input-file --verify-diagnostics | FileCheck %s

// Every rule of keys over task data: a parameter is a scalar, a tensor a memref argument of
// the workload of the same type, each named once, one source per name.

wsp.workload @w(%n: index, %L: memref<?xi64>) {
  %ax = wsp.dense_dyn %n
  wsp.parallel_for %b in %ax named("b") : !wsp.dense_dyn {
  }
}
sched.schedule @s for @w {
  // CHECK: keys_verify.mlir:[[# @LINE + 1]]:3: error: 'sched.dispatch' op key argument #0 of sched.dispatch (a parameter) must be a scalar, got memref<?xi64>
  sched.dispatch dispatch_by key(%x = param("n") : memref<?xi64>) {
    %c0 = arith.constant 0 : index
    sched.yield %c0 : index
  }
}

// -----

wsp.workload @w(%n: index, %L: memref<?xi64>) {
  %ax = wsp.dense_dyn %n
  wsp.parallel_for %b in %ax named("b") : !wsp.dense_dyn {
  }
}
sched.schedule @s for @w {
  // CHECK: keys_verify.mlir:[[# @LINE + 1]]:3: error: 'sched.dispatch' op key argument #0 of sched.dispatch (a tensor) must be a memref, got index
  sched.dispatch dispatch_by key(%x = tensor("L") : index) {
    sched.yield %x : index
  }
}

// -----

wsp.workload @w(%n: index, %L: memref<?xi64>) {
  %ax = wsp.dense_dyn %n
  wsp.parallel_for %b in %ax named("b") : !wsp.dense_dyn {
  }
}
sched.schedule @s for @w {
  // CHECK: keys_verify.mlir:[[# @LINE + 1]]:3: error: 'sched.issue' op the key reads tensor 'M', which @w does not take
  sched.issue priority key(%x = tensor("M") : memref<?xi64>) {
    %c0 = arith.constant 0 : index
    sched.yield %c0 : index
  }
}

// -----

wsp.workload @w(%n: index, %L: memref<?xi64>) {
  %ax = wsp.dense_dyn %n
  wsp.parallel_for %b in %ax named("b") : !wsp.dense_dyn {
  }
}
sched.schedule @s for @w {
  // CHECK: keys_verify.mlir:[[# @LINE + 1]]:3: error: 'sched.issue' op the key reads tensor 'L' as memref<?xindex>, but @w takes it as memref<?xi64>
  sched.issue priority key(%x = tensor("L") : memref<?xindex>) {
    %c0 = arith.constant 0 : index
    sched.yield %c0 : index
  }
}

// -----

wsp.workload @w(%n: index) {
  %ax = wsp.dense_dyn %n
  wsp.parallel_for %b in %ax named("b") : !wsp.dense_dyn {
  }
}
sched.schedule @s for @w {
  sched.streams 2
  // CHECK: keys_verify.mlir:[[# @LINE + 1]]:3: error: 'sched.stream_by' op the key of sched.stream_by names a parameter twice
  sched.stream_by key(%x = param("n") : index, %y = param("n") : index) {
    sched.yield %x : index
  }
}

// -----

wsp.workload @w(%n: index) {
  %ax = wsp.dense_dyn %n
  wsp.parallel_for %b in %ax named("b") : !wsp.dense_dyn {
  }
}
sched.schedule @s for @w {
  // CHECK: keys_verify.mlir:[[# @LINE + 1]]:3: error: 'sched.dispatch_threshold' op the source of key argument #0 of sched.dispatch_threshold must be one of coord, param, tensor, got 'loop'
  "sched.dispatch_threshold"() <{threshold = 4 : i64, below = "vector", above = "cube", key_names = ["b"], key_sources = ["loop"]}> ({
  ^bb0(%b: index):
    "sched.yield"(%b) : (index) -> ()
  }) : () -> ()
}

// -----

wsp.workload @w(%n: index) {
  %ax = wsp.dense_dyn %n
  wsp.parallel_for %b in %ax named("b") : !wsp.dense_dyn {
  }
}
sched.schedule @s for @w {
  // CHECK: keys_verify.mlir:[[# @LINE + 1]]:3: error: 'sched.dispatch' op the key of sched.dispatch has 1 name(s) but 2 source(s)
  "sched.dispatch"() <{policy = "hash", key_names = ["b"], key_sources = ["coord", "param"]}> ({
  ^bb0(%b: index):
    "sched.yield"(%b) : (index) -> ()
  }) : () -> ()
}
