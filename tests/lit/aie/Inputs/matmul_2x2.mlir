// A 2x2 spatial matmul (seed 004 §4.3-4.4): C[i,j] = A[i,:] @ B[:,j] on a 2x2 grid of cores,
// A sharded by rows (Shard(0)), B by columns (Shard(1)), C by both.
wsp.kernel @matmul(a: in memref<32x64xf32>, b: in memref<64x32xf32>, c: out memref<32x32xf32>) unit(cube)
wsp.workload @mm(%A: memref<64x64xf32>, %B: memref<64x64xf32>, %C: memref<64x64xf32>) {
  %I = wsp.dense 2
  %J = wsp.dense 2
  wsp.parallel_for %i in %I named("i") : !wsp.dense<2> {
    wsp.parallel_for %j in %J named("j") : !wsp.dense<2> {
      %c32 = arith.constant 32 : index
      %io = arith.muli %i, %c32 : index
      %jo = arith.muli %j, %c32 : index
      %a = wsp.view %A[%io:+32] : memref<64x64xf32> -> memref<32x64xf32>
      %b = wsp.view %B[0:64, %jo:+32] : memref<64x64xf32> -> memref<64x32xf32>
      %c = wsp.view %C[%io:+32, %jo:+32] : memref<64x64xf32> -> memref<32x32xf32>
      wsp.task @matmul() resources(%a, %b, %c : memref<32x64xf32>, memref<64x32xf32>, memref<32x32xf32>)
    }
  }
}
sched.schedule @s for @mm {
  sched.spatial_map grid(2, 2)
  sched.layout "A" (shard(0), replicate)
  sched.layout "B" (replicate, shard(1))
  sched.layout "C" (shard(0), shard(1))
}
