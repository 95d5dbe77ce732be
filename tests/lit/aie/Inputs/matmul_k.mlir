// The whole-array matmul over K tiles: C[i,j] = sum_k A[i,k] @ B[k,j] on a 2x4 grid of cores.
// Core (i, j) owns C's block (i, j): it zeroes it, then accumulates one product per K tile
// into it (the tasks of a cell that write one output block, in order).
wsp.kernel @zero(c: out memref<32x16xf32>) unit(vector)
wsp.kernel @matmul(a: in memref<32x16xf32>, b: in memref<16x16xf32>, c: inout memref<32x16xf32>) unit(cube)
wsp.workload @mm(%A: memref<64x64xf32>, %B: memref<64x64xf32>, %C: memref<64x64xf32>) {
  %I = wsp.dense 2
  %J = wsp.dense 4
  %K = wsp.dense 4
  wsp.parallel_for %i in %I named("i") : !wsp.dense<2> {
    wsp.parallel_for %j in %J named("j") : !wsp.dense<4> {
      %c32 = arith.constant 32 : index
      %c16 = arith.constant 16 : index
      %io = arith.muli %i, %c32 : index
      %jo = arith.muli %j, %c16 : index
      %c = wsp.view %C[%io:+32, %jo:+16] : memref<64x64xf32> -> memref<32x16xf32>
      wsp.sequential {
        wsp.task @zero() resources(%c : memref<32x16xf32>)
        wsp.for_each %k in %K named("k") : !wsp.dense<4> {
          %ko = arith.muli %k, %c16 : index
          %a = wsp.view %A[%io:+32, %ko:+16] : memref<64x64xf32> -> memref<32x16xf32>
          %b = wsp.view %B[%ko:+16, %jo:+16] : memref<64x64xf32> -> memref<16x16xf32>
          wsp.task @matmul() resources(%a, %b, %c : memref<32x16xf32>, memref<16x16xf32>, memref<32x16xf32>)
        }
      }
    }
  }
}
sched.schedule @s for @mm {
  sched.spatial_map grid(2, 4)
  sched.layout "A" (shard(0), replicate)
  sched.layout "B" (replicate, shard(1))
  sched.layout "C" (shard(0), shard(1))
}
