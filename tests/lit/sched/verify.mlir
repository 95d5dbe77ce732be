// RUN: pto-opt %s --split-input-file --verify-diagnostics | FileCheck %s

// One chunk per verifier rule of the sched dialect; each chunk binds to a small workload @w
// whose task coordinates are b and h and whose only tensor is Q (rank 2).

// The target must resolve.
wsp.workload @w(%n: index, %Q: memref<?x8xf32>) {
  %ax = wsp.dense_dyn %n
  wsp.parallel_for %b in %ax named("b") : !wsp.dense_dyn {
    wsp.parallel_for %h in %ax named("h") : !wsp.dense_dyn {
    }
  }
}
// CHECK: verify.mlir:[[# @LINE + 1]]:1: error: 'sched.schedule' op schedule @s is bound to unknown workload @nope
sched.schedule @s for @nope {
}

// -----

// A kernel is not a workload.
wsp.workload @w(%n: index, %Q: memref<?x8xf32>) {
  %ax = wsp.dense_dyn %n
  wsp.parallel_for %b in %ax named("b") : !wsp.dense_dyn {
    wsp.parallel_for %h in %ax named("h") : !wsp.dense_dyn {
    }
  }
}
wsp.kernel @k(i: index)
// CHECK: verify.mlir:[[# @LINE + 1]]:1: error: 'sched.schedule' op schedule @s is bound to unknown workload @k
sched.schedule @s for @k {
}

// -----

// At most one directive of each kind.
wsp.workload @w(%n: index, %Q: memref<?x8xf32>) {
  %ax = wsp.dense_dyn %n
  wsp.parallel_for %b in %ax named("b") : !wsp.dense_dyn {
    wsp.parallel_for %h in %ax named("h") : !wsp.dense_dyn {
    }
  }
}
// CHECK: verify.mlir:[[# @LINE + 1]]:1: error: 'sched.schedule' op schedule @s has more than one sched.dispatch directive
sched.schedule @s for @w {
  sched.dispatch round_robin(2)
  sched.dispatch work_steal
}

// -----

wsp.workload @w(%n: index, %Q: memref<?x8xf32>) {
  %ax = wsp.dense_dyn %n
  wsp.parallel_for %b in %ax named("b") : !wsp.dense_dyn {
    wsp.parallel_for %h in %ax named("h") : !wsp.dense_dyn {
    }
  }
}
// CHECK: verify.mlir:[[# @LINE + 1]]:1: error: 'sched.schedule' op schedule @s has more than one sched.layout directive
sched.schedule @s for @w {
  sched.spatial_map grid(2)
  sched.layout "Q" (shard(0), replicate)
  sched.layout "Q" (replicate, shard(0))
}

// -----

// Directives live in a schedule.
wsp.workload @w(%n: index, %Q: memref<?x8xf32>) {
  %ax = wsp.dense_dyn %n
  wsp.parallel_for %b in %ax named("b") : !wsp.dense_dyn {
    wsp.parallel_for %h in %ax named("h") : !wsp.dense_dyn {
    }
  }
}
// CHECK: verify.mlir:[[# @LINE + 1]]:1: error: 'sched.streams' op 'sched.streams' expects parent op 'sched.schedule'
sched.streams 2

// -----

wsp.workload @w(%n: index, %Q: memref<?x8xf32>) {
  %ax = wsp.dense_dyn %n
  wsp.parallel_for %b in %ax named("b") : !wsp.dense_dyn {
    wsp.parallel_for %h in %ax named("h") : !wsp.dense_dyn {
    }
  }
}
// CHECK: verify.mlir:[[# @LINE + 1]]:1: error: 'sched.schedule' op the body of schedule @s takes no arguments
"sched.schedule"() <{sym_name = "s", workload = @w}> ({
^bb0(%x: index):
}) : () -> ()

// -----

// Dispatch policies and their arguments.
wsp.workload @w(%n: index, %Q: memref<?x8xf32>) {
  %ax = wsp.dense_dyn %n
  wsp.parallel_for %b in %ax named("b") : !wsp.dense_dyn {
    wsp.parallel_for %h in %ax named("h") : !wsp.dense_dyn {
    }
  }
}
sched.schedule @s for @w {
  // CHECK: verify.mlir:[[# @LINE + 1]]:3: error: 'sched.dispatch' op dispatch policy must be one of round_robin, affinity, hash, range, work_steal, dispatch_by, got 'random'
  sched.dispatch random
}

// -----

wsp.workload @w(%n: index, %Q: memref<?x8xf32>) {
  %ax = wsp.dense_dyn %n
  wsp.parallel_for %b in %ax named("b") : !wsp.dense_dyn {
    wsp.parallel_for %h in %ax named("h") : !wsp.dense_dyn {
    }
  }
}
sched.schedule @s for @w {
  // CHECK: verify.mlir:[[# @LINE + 1]]:3: error: 'sched.dispatch' op round_robin count must be > 0, got 0
  sched.dispatch round_robin(0)
}

// -----

wsp.workload @w(%n: index, %Q: memref<?x8xf32>) {
  %ax = wsp.dense_dyn %n
  wsp.parallel_for %b in %ax named("b") : !wsp.dense_dyn {
    wsp.parallel_for %h in %ax named("h") : !wsp.dense_dyn {
    }
  }
}
sched.schedule @s for @w {
  // CHECK: verify.mlir:[[# @LINE + 1]]:3: error: 'sched.dispatch' op range count must be > 0, got -1
  sched.dispatch range("b", -1)
}

// -----

wsp.workload @w(%n: index, %Q: memref<?x8xf32>) {
  %ax = wsp.dense_dyn %n
  wsp.parallel_for %b in %ax named("b") : !wsp.dense_dyn {
    wsp.parallel_for %h in %ax named("h") : !wsp.dense_dyn {
    }
  }
}
sched.schedule @s for @w {
  // CHECK: verify.mlir:[[# @LINE + 1]]:3: error: 'sched.dispatch' op dispatch policy round_robin needs a count
  sched.dispatch round_robin
}

// -----

wsp.workload @w(%n: index, %Q: memref<?x8xf32>) {
  %ax = wsp.dense_dyn %n
  wsp.parallel_for %b in %ax named("b") : !wsp.dense_dyn {
    wsp.parallel_for %h in %ax named("h") : !wsp.dense_dyn {
    }
  }
}
sched.schedule @s for @w {
  // CHECK: verify.mlir:[[# @LINE + 1]]:3: error: 'sched.dispatch' op dispatch policy range needs an axis name
  sched.dispatch range(4)
}

// -----

wsp.workload @w(%n: index, %Q: memref<?x8xf32>) {
  %ax = wsp.dense_dyn %n
  wsp.parallel_for %b in %ax named("b") : !wsp.dense_dyn {
    wsp.parallel_for %h in %ax named("h") : !wsp.dense_dyn {
    }
  }
}
sched.schedule @s for @w {
  // CHECK: verify.mlir:[[# @LINE + 1]]:3: error: 'sched.dispatch' op dispatch policy affinity takes no count
  sched.dispatch affinity("b", 4)
}

// -----

wsp.workload @w(%n: index, %Q: memref<?x8xf32>) {
  %ax = wsp.dense_dyn %n
  wsp.parallel_for %b in %ax named("b") : !wsp.dense_dyn {
    wsp.parallel_for %h in %ax named("h") : !wsp.dense_dyn {
    }
  }
}
sched.schedule @s for @w {
  // CHECK: verify.mlir:[[# @LINE + 1]]:3: error: 'sched.dispatch' op dispatch policy round_robin takes no axis name
  sched.dispatch round_robin("b", 4)
}

// -----

wsp.workload @w(%n: index, %Q: memref<?x8xf32>) {
  %ax = wsp.dense_dyn %n
  wsp.parallel_for %b in %ax named("b") : !wsp.dense_dyn {
    wsp.parallel_for %h in %ax named("h") : !wsp.dense_dyn {
    }
  }
}
sched.schedule @s for @w {
  // CHECK: verify.mlir:[[# @LINE + 1]]:3: error: 'sched.dispatch' op dispatch policy work_steal takes no key region
  sched.dispatch work_steal key(%b = "b") {
    sched.yield %b : index
  }
}

// -----

wsp.workload @w(%n: index, %Q: memref<?x8xf32>) {
  %ax = wsp.dense_dyn %n
  wsp.parallel_for %b in %ax named("b") : !wsp.dense_dyn {
    wsp.parallel_for %h in %ax named("h") : !wsp.dense_dyn {
    }
  }
}
sched.schedule @s for @w {
  // CHECK: verify.mlir:[[# @LINE + 1]]:3: error: 'sched.dispatch' op dispatch policy hash needs a key region
  sched.dispatch hash
}

// -----

// Coordinate names are the loop names of the workload.
wsp.workload @w(%n: index, %Q: memref<?x8xf32>) {
  %ax = wsp.dense_dyn %n
  wsp.parallel_for %b in %ax named("b") : !wsp.dense_dyn {
    wsp.parallel_for %h in %ax named("h") : !wsp.dense_dyn {
    }
  }
}
sched.schedule @s for @w {
  // CHECK: verify.mlir:[[# @LINE + 1]]:3: error: 'sched.dispatch' op unknown task coordinate 'x' (coordinates of @w: b, h)
  sched.dispatch affinity("x")
}

// -----

// `replica` is a coordinate of pipelines only.
wsp.workload @w(%n: index, %Q: memref<?x8xf32>) {
  %ax = wsp.dense_dyn %n
  wsp.parallel_for %b in %ax named("b") : !wsp.dense_dyn {
    wsp.parallel_for %h in %ax named("h") : !wsp.dense_dyn {
    }
  }
}
sched.schedule @s for @w {
  // CHECK: verify.mlir:[[# @LINE + 1]]:3: error: 'sched.dispatch' op unknown task coordinate 'replica' (coordinates of @w: b, h)
  sched.dispatch range("replica", 2)
}

// -----

wsp.workload @w(%n: index, %Q: memref<?x8xf32>) {
  %ax = wsp.dense_dyn %n
  wsp.parallel_for %b in %ax named("b") : !wsp.dense_dyn {
    wsp.parallel_for %h in %ax named("h") : !wsp.dense_dyn {
    }
  }
}
sched.schedule @s for @w {
  // CHECK: verify.mlir:[[# @LINE + 1]]:3: error: 'sched.dispatch' op unknown task coordinate 'q' (coordinates of @w: b, h)
  sched.dispatch dispatch_by key(%b = "b", %q = "q") {
    sched.yield %b : index
  }
}

// -----

// Workload arguments are not task coordinates.
wsp.workload @w(%n: index, %Q: memref<?x8xf32>) {
  %ax = wsp.dense_dyn %n
  wsp.parallel_for %b in %ax named("b") : !wsp.dense_dyn {
    wsp.parallel_for %h in %ax named("h") : !wsp.dense_dyn {
    }
  }
}
sched.schedule @s for @w {
  // CHECK: verify.mlir:[[# @LINE + 1]]:3: error: 'sched.dispatch_threshold' op unknown task coordinate 'n' (coordinates of @w: b, h)
  sched.dispatch_threshold 4 below(vector) above(cube) key(%n = "n") {
    sched.yield %n : index
  }
}

// -----

// Streams, issue, timing.
wsp.workload @w(%n: index, %Q: memref<?x8xf32>) {
  %ax = wsp.dense_dyn %n
  wsp.parallel_for %b in %ax named("b") : !wsp.dense_dyn {
    wsp.parallel_for %h in %ax named("h") : !wsp.dense_dyn {
    }
  }
}
sched.schedule @s for @w {
  // CHECK: verify.mlir:[[# @LINE + 1]]:3: error: 'sched.streams' op sched.streams count must be > 0, got 0
  sched.streams 0
}

// -----

wsp.workload @w(%n: index, %Q: memref<?x8xf32>) {
  %ax = wsp.dense_dyn %n
  wsp.parallel_for %b in %ax named("b") : !wsp.dense_dyn {
    wsp.parallel_for %h in %ax named("h") : !wsp.dense_dyn {
    }
  }
}
sched.schedule @s for @w {
  // CHECK: verify.mlir:[[# @LINE + 1]]:3: error: 'sched.stream_by' op sched.stream_by needs a sched.streams directive in schedule @s
  sched.stream_by key(%b = "b") {
    sched.yield %b : index
  }
}

// -----

wsp.workload @w(%n: index, %Q: memref<?x8xf32>) {
  %ax = wsp.dense_dyn %n
  wsp.parallel_for %b in %ax named("b") : !wsp.dense_dyn {
    wsp.parallel_for %h in %ax named("h") : !wsp.dense_dyn {
    }
  }
}
sched.schedule @s for @w {
  sched.streams 2
  // CHECK: verify.mlir:[[# @LINE + 1]]:3: error: 'sched.stream_by' op sched.stream_by needs a key region
  "sched.stream_by"() ({
  }) : () -> ()
}

// -----

wsp.workload @w(%n: index, %Q: memref<?x8xf32>) {
  %ax = wsp.dense_dyn %n
  wsp.parallel_for %b in %ax named("b") : !wsp.dense_dyn {
    wsp.parallel_for %h in %ax named("h") : !wsp.dense_dyn {
    }
  }
}
sched.schedule @s for @w {
  // CHECK: verify.mlir:[[# @LINE + 1]]:3: error: 'sched.issue' op issue policy must be one of fifo, priority, got 'lifo'
  sched.issue lifo
}

// -----

wsp.workload @w(%n: index, %Q: memref<?x8xf32>) {
  %ax = wsp.dense_dyn %n
  wsp.parallel_for %b in %ax named("b") : !wsp.dense_dyn {
    wsp.parallel_for %h in %ax named("h") : !wsp.dense_dyn {
    }
  }
}
sched.schedule @s for @w {
  // CHECK: verify.mlir:[[# @LINE + 1]]:3: error: 'sched.issue' op issue policy fifo takes no key region
  sched.issue fifo key(%b = "b") {
    sched.yield %b : index
  }
}

// -----

wsp.workload @w(%n: index, %Q: memref<?x8xf32>) {
  %ax = wsp.dense_dyn %n
  wsp.parallel_for %b in %ax named("b") : !wsp.dense_dyn {
    wsp.parallel_for %h in %ax named("h") : !wsp.dense_dyn {
    }
  }
}
sched.schedule @s for @w {
  // CHECK: verify.mlir:[[# @LINE + 1]]:3: error: 'sched.issue' op issue policy priority needs a key region
  sched.issue priority
}

// -----

wsp.workload @w(%n: index, %Q: memref<?x8xf32>) {
  %ax = wsp.dense_dyn %n
  wsp.parallel_for %b in %ax named("b") : !wsp.dense_dyn {
    wsp.parallel_for %h in %ax named("h") : !wsp.dense_dyn {
    }
  }
}
sched.schedule @s for @w {
  // CHECK: verify.mlir:[[# @LINE + 1]]:3: error: 'sched.timing' op timing policy must be one of immediate, batched, interleaved, rate_limit, got 'eager'
  sched.timing eager
}

// -----

wsp.workload @w(%n: index, %Q: memref<?x8xf32>) {
  %ax = wsp.dense_dyn %n
  wsp.parallel_for %b in %ax named("b") : !wsp.dense_dyn {
    wsp.parallel_for %h in %ax named("h") : !wsp.dense_dyn {
    }
  }
}
sched.schedule @s for @w {
  // CHECK: verify.mlir:[[# @LINE + 1]]:3: error: 'sched.timing' op batched count must be > 0, got 0
  sched.timing batched(0)
}

// -----

wsp.workload @w(%n: index, %Q: memref<?x8xf32>) {
  %ax = wsp.dense_dyn %n
  wsp.parallel_for %b in %ax named("b") : !wsp.dense_dyn {
    wsp.parallel_for %h in %ax named("h") : !wsp.dense_dyn {
    }
  }
}
sched.schedule @s for @w {
  // CHECK: verify.mlir:[[# @LINE + 1]]:3: error: 'sched.timing' op interleaved count must be > 0, got -2
  sched.timing interleaved(-2)
}

// -----

wsp.workload @w(%n: index, %Q: memref<?x8xf32>) {
  %ax = wsp.dense_dyn %n
  wsp.parallel_for %b in %ax named("b") : !wsp.dense_dyn {
    wsp.parallel_for %h in %ax named("h") : !wsp.dense_dyn {
    }
  }
}
sched.schedule @s for @w {
  // CHECK: verify.mlir:[[# @LINE + 1]]:3: error: 'sched.timing' op rate_limit count must be > 0, got 0
  sched.timing rate_limit(0)
}

// -----

wsp.workload @w(%n: index, %Q: memref<?x8xf32>) {
  %ax = wsp.dense_dyn %n
  wsp.parallel_for %b in %ax named("b") : !wsp.dense_dyn {
    wsp.parallel_for %h in %ax named("h") : !wsp.dense_dyn {
    }
  }
}
sched.schedule @s for @w {
  // CHECK: verify.mlir:[[# @LINE + 1]]:3: error: 'sched.timing' op timing policy batched needs a count
  sched.timing batched
}

// -----

wsp.workload @w(%n: index, %Q: memref<?x8xf32>) {
  %ax = wsp.dense_dyn %n
  wsp.parallel_for %b in %ax named("b") : !wsp.dense_dyn {
    wsp.parallel_for %h in %ax named("h") : !wsp.dense_dyn {
    }
  }
}
sched.schedule @s for @w {
  // CHECK: verify.mlir:[[# @LINE + 1]]:3: error: 'sched.timing' op timing policy immediate takes no count
  sched.timing immediate(3)
}

// -----

// Spatial map and layout.
wsp.workload @w(%n: index, %Q: memref<?x8xf32>) {
  %ax = wsp.dense_dyn %n
  wsp.parallel_for %b in %ax named("b") : !wsp.dense_dyn {
    wsp.parallel_for %h in %ax named("h") : !wsp.dense_dyn {
    }
  }
}
sched.schedule @s for @w {
  // CHECK: verify.mlir:[[# @LINE + 1]]:3: error: 'sched.spatial_map' op spatial grid dimension 1 must be > 0, got 0
  sched.spatial_map grid(4, 0)
}

// -----

wsp.workload @w(%n: index, %Q: memref<?x8xf32>) {
  %ax = wsp.dense_dyn %n
  wsp.parallel_for %b in %ax named("b") : !wsp.dense_dyn {
    wsp.parallel_for %h in %ax named("h") : !wsp.dense_dyn {
    }
  }
}
"sched.schedule"() <{sym_name = "s", workload = @w}> ({
  // CHECK: verify.mlir:[[# @LINE + 1]]:3: error: 'sched.spatial_map' op a spatial grid needs at least one dimension
  "sched.spatial_map"() <{grid = array<i64>}> : () -> ()
}) : () -> ()

// -----

wsp.workload @w(%n: index, %Q: memref<?x8xf32>) {
  %ax = wsp.dense_dyn %n
  wsp.parallel_for %b in %ax named("b") : !wsp.dense_dyn {
    wsp.parallel_for %h in %ax named("h") : !wsp.dense_dyn {
    }
  }
}
sched.schedule @s for @w {
  // CHECK: verify.mlir:[[# @LINE + 1]]:3: error: 'sched.layout' op sched.layout needs a sched.spatial_map directive in schedule @s
  sched.layout "Q" (shard(0), replicate)
}

// -----

wsp.workload @w(%n: index, %Q: memref<?x8xf32>) {
  %ax = wsp.dense_dyn %n
  wsp.parallel_for %b in %ax named("b") : !wsp.dense_dyn {
    wsp.parallel_for %h in %ax named("h") : !wsp.dense_dyn {
    }
  }
}
sched.schedule @s for @w {
  sched.spatial_map grid(2)
  // CHECK: verify.mlir:[[# @LINE + 1]]:3: error: 'sched.layout' op layout tensor 'K' is not a tensor argument of @w (tensor arguments: Q)
  sched.layout "K" (shard(0), replicate)
}

// -----

wsp.workload @w(%n: index, %Q: memref<?x8xf32>) {
  %ax = wsp.dense_dyn %n
  wsp.parallel_for %b in %ax named("b") : !wsp.dense_dyn {
    wsp.parallel_for %h in %ax named("h") : !wsp.dense_dyn {
    }
  }
}
sched.schedule @s for @w {
  sched.spatial_map grid(2)
  // CHECK: verify.mlir:[[# @LINE + 1]]:3: error: 'sched.layout' op layout tensor 'n' is not a tensor argument of @w (tensor arguments: Q)
  sched.layout "n" (shard(0))
}

// -----

wsp.workload @w(%n: index, %Q: memref<?x8xf32>) {
  %ax = wsp.dense_dyn %n
  wsp.parallel_for %b in %ax named("b") : !wsp.dense_dyn {
    wsp.parallel_for %h in %ax named("h") : !wsp.dense_dyn {
    }
  }
}
sched.schedule @s for @w {
  sched.spatial_map grid(2, 2)
  // CHECK: verify.mlir:[[# @LINE + 1]]:3: error: 'sched.layout' op layout of 'Q' has 3 entries but the tensor has rank 2
  sched.layout "Q" (shard(0), replicate, shard(1))
}

// -----

wsp.workload @w(%n: index, %Q: memref<?x8xf32>) {
  %ax = wsp.dense_dyn %n
  wsp.parallel_for %b in %ax named("b") : !wsp.dense_dyn {
    wsp.parallel_for %h in %ax named("h") : !wsp.dense_dyn {
    }
  }
}
sched.schedule @s for @w {
  sched.spatial_map grid(2, 2)
  // CHECK: verify.mlir:[[# @LINE + 1]]:3: error: 'sched.layout' op layout of 'Q': shard(2) names a grid axis, but the spatial grid has rank 2
  sched.layout "Q" (shard(2), replicate)
}

// -----

wsp.workload @w(%n: index, %Q: memref<?x8xf32>) {
  %ax = wsp.dense_dyn %n
  wsp.parallel_for %b in %ax named("b") : !wsp.dense_dyn {
    wsp.parallel_for %h in %ax named("h") : !wsp.dense_dyn {
    }
  }
}
sched.schedule @s for @w {
  sched.spatial_map grid(2, 2)
  // CHECK: verify.mlir:[[# @LINE + 1]]:3: error: 'sched.layout' op layout of 'Q' shards grid axis 0 twice
  sched.layout "Q" (shard(0), shard(0))
}

// -----

wsp.workload @w(%n: index, %Q: memref<?x8xf32>) {
  %ax = wsp.dense_dyn %n
  wsp.parallel_for %b in %ax named("b") : !wsp.dense_dyn {
    wsp.parallel_for %h in %ax named("h") : !wsp.dense_dyn {
    }
  }
}
"sched.schedule"() <{sym_name = "s", workload = @w}> ({
  "sched.spatial_map"() <{grid = array<i64: 2>}> : () -> ()
  // CHECK: verify.mlir:[[# @LINE + 1]]:3: error: 'sched.layout' op layout of 'Q': grid axis -2 is negative
  "sched.layout"() <{tensor = "Q", dims = array<i64: -2, -1>}> : () -> ()
}) : () -> ()

// -----

// Pools and limits.
wsp.workload @w(%n: index, %Q: memref<?x8xf32>) {
  %ax = wsp.dense_dyn %n
  wsp.parallel_for %b in %ax named("b") : !wsp.dense_dyn {
    wsp.parallel_for %h in %ax named("h") : !wsp.dense_dyn {
    }
  }
}
sched.schedule @s for @w {
  // CHECK: verify.mlir:[[# @LINE + 1]]:3: error: 'sched.dispatch_threshold' op dispatch_threshold must be >= 0, got -1
  sched.dispatch_threshold -1 below(vector) above(cube) key(%b = "b") {
    sched.yield %b : index
  }
}

// -----

wsp.workload @w(%n: index, %Q: memref<?x8xf32>) {
  %ax = wsp.dense_dyn %n
  wsp.parallel_for %b in %ax named("b") : !wsp.dense_dyn {
    wsp.parallel_for %h in %ax named("h") : !wsp.dense_dyn {
    }
  }
}
sched.schedule @s for @w {
  // CHECK: verify.mlir:[[# @LINE + 1]]:3: error: 'sched.dispatch_threshold' op the below pool must be one of vector, cube, got 'scalar'
  sched.dispatch_threshold 8 below(scalar) above(cube) key(%b = "b") {
    sched.yield %b : index
  }
}

// -----

wsp.workload @w(%n: index, %Q: memref<?x8xf32>) {
  %ax = wsp.dense_dyn %n
  wsp.parallel_for %b in %ax named("b") : !wsp.dense_dyn {
    wsp.parallel_for %h in %ax named("h") : !wsp.dense_dyn {
    }
  }
}
sched.schedule @s for @w {
  // CHECK: verify.mlir:[[# @LINE + 1]]:3: error: 'sched.dispatch_threshold' op the above pool must be one of vector, cube, got 'aicpu'
  sched.dispatch_threshold 8 below(vector) above(aicpu) key(%b = "b") {
    sched.yield %b : index
  }
}

// -----

wsp.workload @w(%n: index, %Q: memref<?x8xf32>) {
  %ax = wsp.dense_dyn %n
  wsp.parallel_for %b in %ax named("b") : !wsp.dense_dyn {
    wsp.parallel_for %h in %ax named("h") : !wsp.dense_dyn {
    }
  }
}
"sched.schedule"() <{sym_name = "s", workload = @w}> ({
  // CHECK: verify.mlir:[[# @LINE + 1]]:3: error: 'sched.dispatch_threshold' op sched.dispatch_threshold needs a key region
  "sched.dispatch_threshold"() <{threshold = 8 : i64, below = "vector", above = "cube"}> ({
  }) : () -> ()
}) : () -> ()

// -----

wsp.workload @w(%n: index, %Q: memref<?x8xf32>) {
  %ax = wsp.dense_dyn %n
  wsp.parallel_for %b in %ax named("b") : !wsp.dense_dyn {
    wsp.parallel_for %h in %ax named("h") : !wsp.dense_dyn {
    }
  }
}
sched.schedule @s for @w {
  // CHECK: verify.mlir:[[# @LINE + 1]]:3: error: 'sched.pipeline_depth' op pipeline depth must be > 0, got 0
  sched.pipeline_depth 0 scope(global)
}

// -----

wsp.workload @w(%n: index, %Q: memref<?x8xf32>) {
  %ax = wsp.dense_dyn %n
  wsp.parallel_for %b in %ax named("b") : !wsp.dense_dyn {
    wsp.parallel_for %h in %ax named("h") : !wsp.dense_dyn {
    }
  }
}
sched.schedule @s for @w {
  // CHECK: verify.mlir:[[# @LINE + 1]]:3: error: 'sched.pipeline_depth' op pipeline_depth scope must be one of global, per_stream, per_pool, got 'per_core'
  sched.pipeline_depth 2 scope(per_core)
}

// -----

wsp.workload @w(%n: index, %Q: memref<?x8xf32>) {
  %ax = wsp.dense_dyn %n
  wsp.parallel_for %b in %ax named("b") : !wsp.dense_dyn {
    wsp.parallel_for %h in %ax named("h") : !wsp.dense_dyn {
    }
  }
}
sched.schedule @s for @w {
  // CHECK: verify.mlir:[[# @LINE + 1]]:3: error: 'sched.task_window' op task window size must be > 0, got 0
  sched.task_window 0 overflow(stall)
}

// -----

wsp.workload @w(%n: index, %Q: memref<?x8xf32>) {
  %ax = wsp.dense_dyn %n
  wsp.parallel_for %b in %ax named("b") : !wsp.dense_dyn {
    wsp.parallel_for %h in %ax named("h") : !wsp.dense_dyn {
    }
  }
}
sched.schedule @s for @w {
  // CHECK: verify.mlir:[[# @LINE + 1]]:3: error: 'sched.task_window' op task_window overflow must be one of stall, abort, got 'drop'
  sched.task_window 64 overflow(drop)
}

// -----

wsp.workload @w(%n: index, %Q: memref<?x8xf32>) {
  %ax = wsp.dense_dyn %n
  wsp.parallel_for %b in %ax named("b") : !wsp.dense_dyn {
    wsp.parallel_for %h in %ax named("h") : !wsp.dense_dyn {
    }
  }
}
sched.schedule @s for @w {
  // CHECK: verify.mlir:[[# @LINE + 1]]:3: error: 'sched.batch_deps' op sched.batch_deps count must be > 0, got 0
  sched.batch_deps 0
}

// -----

// Key regions.
wsp.workload @w(%n: index, %Q: memref<?x8xf32>) {
  %ax = wsp.dense_dyn %n
  wsp.parallel_for %b in %ax named("b") : !wsp.dense_dyn {
    wsp.parallel_for %h in %ax named("h") : !wsp.dense_dyn {
    }
  }
}
"sched.schedule"() <{sym_name = "s", workload = @w}> ({
  "sched.streams"() <{count = 2 : i64}> : () -> ()
  // CHECK: verify.mlir:[[# @LINE + 1]]:3: error: 'sched.stream_by' op key argument #0 of sched.stream_by must be index, got i32
  "sched.stream_by"() <{key_names = ["b"]}> ({
  ^bb0(%b: i32):
    %c = "arith.constant"() <{value = 0 : index}> : () -> index
    "sched.yield"(%c) : (index) -> ()
  }) : () -> ()
}) : () -> ()

// -----

wsp.workload @w(%n: index, %Q: memref<?x8xf32>) {
  %ax = wsp.dense_dyn %n
  wsp.parallel_for %b in %ax named("b") : !wsp.dense_dyn {
    wsp.parallel_for %h in %ax named("h") : !wsp.dense_dyn {
    }
  }
}
"sched.schedule"() <{sym_name = "s", workload = @w}> ({
  // CHECK: verify.mlir:[[# @LINE + 1]]:3: error: 'sched.issue' op the key of sched.issue has 1 argument(s) but 2 name(s)
  "sched.issue"() <{policy = "priority", key_names = ["b", "h"]}> ({
  ^bb0(%b: index):
    "sched.yield"(%b) : (index) -> ()
  }) : () -> ()
}) : () -> ()

// -----

wsp.workload @w(%n: index, %Q: memref<?x8xf32>) {
  %ax = wsp.dense_dyn %n
  wsp.parallel_for %b in %ax named("b") : !wsp.dense_dyn {
    wsp.parallel_for %h in %ax named("h") : !wsp.dense_dyn {
    }
  }
}
"sched.schedule"() <{sym_name = "s", workload = @w}> ({
  // CHECK: verify.mlir:[[# @LINE + 1]]:3: error: 'sched.dispatch' op sched.dispatch has key names but no key region
  "sched.dispatch"() <{policy = "work_steal", key_names = ["b"]}> ({
  }) : () -> ()
}) : () -> ()

// -----

wsp.workload @w(%n: index, %Q: memref<?x8xf32>) {
  %ax = wsp.dense_dyn %n
  wsp.parallel_for %b in %ax named("b") : !wsp.dense_dyn {
    wsp.parallel_for %h in %ax named("h") : !wsp.dense_dyn {
    }
  }
}
"sched.schedule"() <{sym_name = "s", workload = @w}> ({
  // CHECK: verify.mlir:[[# @LINE + 1]]:3: error: 'sched.dispatch' op the key region of sched.dispatch must have exactly one block
  "sched.dispatch"() <{policy = "hash", key_names = ["b"]}> ({
  ^bb0(%b: index):
    "sched.yield"(%b) : (index) -> ()
  ^bb1:
    %c = "arith.constant"() <{value = 0 : index}> : () -> index
    "sched.yield"(%c) : (index) -> ()
  }) : () -> ()
}) : () -> ()

// -----

wsp.workload @w(%n: index, %Q: memref<?x8xf32>) {
  %ax = wsp.dense_dyn %n
  wsp.parallel_for %b in %ax named("b") : !wsp.dense_dyn {
    wsp.parallel_for %h in %ax named("h") : !wsp.dense_dyn {
    }
  }
}
sched.schedule @s for @w {
  // CHECK: verify.mlir:[[# @LINE + 1]]:3: error: 'sched.dispatch' op the key of sched.dispatch names a coordinate twice
  sched.dispatch hash key(%x = "b", %y = "b") {
    sched.yield %x : index
  }
}

// -----

wsp.workload @w(%n: index, %Q: memref<?x8xf32>) {
  %ax = wsp.dense_dyn %n
  wsp.parallel_for %b in %ax named("b") : !wsp.dense_dyn {
    wsp.parallel_for %h in %ax named("h") : !wsp.dense_dyn {
    }
  }
}
sched.schedule @s for @w {
  // CHECK: verify.mlir:[[# @LINE + 1]]:3: error: 'sched.issue' op the key region of sched.issue must end with sched.yield, got wsp.yield
  sched.issue priority key(%b = "b") {
    wsp.yield
  }
}

// -----

// xDSL itself rejects a key without a terminator.
wsp.workload @w(%n: index, %Q: memref<?x8xf32>) {
  %ax = wsp.dense_dyn %n
  wsp.parallel_for %b in %ax named("b") : !wsp.dense_dyn {
    wsp.parallel_for %h in %ax named("h") : !wsp.dense_dyn {
    }
  }
}
sched.schedule @s for @w {
  sched.issue priority key(%b = "b") {
    // CHECK: verify.mlir:[[# @LINE + 1]]:10: error: 'arith.addi' op Operation arith.addi terminates block in single-block region but is not a terminator
    %p = arith.addi %b, %b : index
  }
}

// -----

wsp.workload @w(%n: index, %Q: memref<?x8xf32>) {
  %ax = wsp.dense_dyn %n
  wsp.parallel_for %b in %ax named("b") : !wsp.dense_dyn {
    wsp.parallel_for %h in %ax named("h") : !wsp.dense_dyn {
    }
  }
}
sched.schedule @s for @w {
  sched.issue priority key(%b = "b", %h = "h") {
    // CHECK: verify.mlir:[[# @LINE + 1]]:5: error: 'sched.yield' op a key yields exactly one index, got index, index
    sched.yield %b, %h : index, index
  }
}

// -----

wsp.workload @w(%n: index, %Q: memref<?x8xf32>) {
  %ax = wsp.dense_dyn %n
  wsp.parallel_for %b in %ax named("b") : !wsp.dense_dyn {
    wsp.parallel_for %h in %ax named("h") : !wsp.dense_dyn {
    }
  }
}
sched.schedule @s for @w {
  sched.issue priority key(%b = "b") {
    %c = arith.constant 1 : i32
    // CHECK: verify.mlir:[[# @LINE + 1]]:5: error: 'sched.yield' op a key yields exactly one index, got i32
    sched.yield %c : i32
  }
}

// -----

wsp.workload @w(%n: index, %Q: memref<?x8xf32>) {
  %ax = wsp.dense_dyn %n
  wsp.parallel_for %b in %ax named("b") : !wsp.dense_dyn {
    wsp.parallel_for %h in %ax named("h") : !wsp.dense_dyn {
    }
  }
}
sched.schedule @s for @w {
  sched.issue priority key(%b = "b") {
    // CHECK: verify.mlir:[[# @LINE + 1]]:5: error: 'sched.yield' op a key yields exactly one index, got nothing
    sched.yield
  }
}

// -----

wsp.workload @w(%n: index, %Q: memref<?x8xf32>) {
  %ax = wsp.dense_dyn %n
  wsp.parallel_for %b in %ax named("b") : !wsp.dense_dyn {
    wsp.parallel_for %h in %ax named("h") : !wsp.dense_dyn {
    }
  }
}
sched.schedule @s for @w {
  sched.batch_deps 4
  // CHECK: verify.mlir:[[# @LINE + 1]]:3: error: 'sched.yield' op sched.yield must terminate a key region
  sched.yield
}

// -----

// A key is a function of the coordinates only.
wsp.workload @w(%n: index, %Q: memref<?x8xf32>) {
  %ax = wsp.dense_dyn %n
  wsp.parallel_for %b in %ax named("b") : !wsp.dense_dyn {
    wsp.parallel_for %h in %ax named("h") : !wsp.dense_dyn {
    }
  }
}
sched.schedule @s for @w {
  %c = arith.constant 3 : index
  // CHECK: verify.mlir:[[# @LINE + 1]]:3: error: 'sched.issue' op Operation using value defined out of its IsolatedFromAbove parent: YieldOp(sched.yield %c : index)
  sched.issue priority key(%b = "b") {
    sched.yield %c : index
  }
}

// -----

// The coordinates of a pipeline: the loop names in its processes, and `replica`.
wsp.kernel @k(b: index)
csp.pipeline @p(%n: index, %Q: memref<?x8xf32>) {
  csp.channel @c : !wsp.task capacity(4)
  csp.process @producer produces(@c) {
    %ax = wsp.dense_dyn %n
    wsp.parallel_for %b in %ax named("b") : !wsp.dense_dyn {
      csp.send @c {
        wsp.task @k(%b : index) resources()
      }
    }
  }
  csp.process @consumer consumes(@c) replicas(2) {
    csp.consume @c as %t : !wsp.task {
    }
  }
}
sched.schedule @s for @p {
  sched.dispatch affinity("replica")
  sched.streams 2
  // CHECK: verify.mlir:[[# @LINE + 1]]:3: error: 'sched.stream_by' op unknown task coordinate 'x' (coordinates of @p: b, replica)
  sched.stream_by key(%x = "x") {
    sched.yield %x : index
  }
}

// -----

// A layout names a tensor argument of the pipeline.
csp.pipeline @p(%n: index, %Q: memref<?x8xf32>) {
}
sched.schedule @s for @p {
  sched.spatial_map grid(2)
  // CHECK: verify.mlir:[[# @LINE + 1]]:3: error: 'sched.layout' op layout of 'Q' has 1 entries but the tensor has rank 2
  sched.layout "Q" (shard(0))
}
