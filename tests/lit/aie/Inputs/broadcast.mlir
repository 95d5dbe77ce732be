// A broadcast: every core of a 4-core grid gets the whole weight vector W (replicated),
// its own row of X (Shard(0)) and writes its row of Y (Shard(0)).
wsp.kernel @scale(w: in memref<256xi32>, x: in memref<256xi32>, y: out memref<256xi32>) unit(vector)
wsp.workload @rows(%W: memref<256xi32>, %X: memref<4x256xi32>, %Y: memref<4x256xi32>) {
  %R = wsp.dense 4
  wsp.parallel_for %r in %R named("r") : !wsp.dense<4> {
    %w = wsp.view %W[0:256] : memref<256xi32> -> memref<256xi32>
    %x = wsp.view %X[%r] : memref<4x256xi32> -> memref<256xi32>
    %y = wsp.view %Y[%r] : memref<4x256xi32> -> memref<256xi32>
    wsp.task @scale() resources(%w, %x, %y : memref<256xi32>, memref<256xi32>, memref<256xi32>)
  }
}
sched.schedule @s for @rows {
  sched.spatial_map grid(4)
  sched.layout "W" (replicate)
  sched.layout "X" (shard(0), replicate)
  sched.layout "Y" (shard(0), replicate)
}
