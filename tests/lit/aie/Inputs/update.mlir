// An update in place: each core of a 1-D grid adds its row of X into its row of Y (inout),
// Y's old value coming from the host.
wsp.kernel @acc(x: in memref<16xf32>, y: inout memref<16xf32>) unit(vector)
wsp.workload @w(%X: memref<2x16xf32>, %Y: memref<2x16xf32>) {
  %R = wsp.dense 2
  wsp.parallel_for %r in %R named("r") : !wsp.dense<2> {
    %x = wsp.view %X[%r] : memref<2x16xf32> -> memref<16xf32>
    %y = wsp.view %Y[%r] : memref<2x16xf32> -> memref<16xf32>
    wsp.task @acc() resources(%x, %y : memref<16xf32>, memref<16xf32>)
  }
}
sched.schedule @s for @w {
  sched.spatial_map grid(2)
  sched.layout "X" (shard(0), replicate)
  sched.layout "Y" (shard(0), replicate)
}
