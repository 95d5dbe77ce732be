// The 2x2 spatial matmul of ../aie/Inputs/matmul_2x2.mlir whose kernel has a tile function:
// loads into mat, moves to left/right, one matmul into acc, stored whole.
wsp.kernel @matmul(a: in memref<32x64xf32>, b: in memref<64x32xf32>, c: out memref<32x32xf32>) unit(cube) attributes {tile = @matmul_tile}
func.func @matmul_tile(%a: memref<32x64xf32>, %b: memref<64x32xf32>, %c: memref<32x32xf32>) attributes {pto.func_type = #pto.func_type<incore>} {
  %ta = pto.load %a : memref<32x64xf32> -> !pto.tile<32x64xf32, mat>
  %tb = pto.load %b : memref<64x32xf32> -> !pto.tile<64x32xf32, mat>
  %la = pto.move %ta : !pto.tile<32x64xf32, mat> -> !pto.tile<32x64xf32, left>
  %rb = pto.move %tb : !pto.tile<64x32xf32, mat> -> !pto.tile<64x32xf32, right>
  %tc = pto.matmul %la, %rb : !pto.tile<32x64xf32, left>, !pto.tile<64x32xf32, right> -> !pto.tile<32x32xf32, acc>
  pto.store %tc, %c : !pto.tile<32x32xf32, acc>, memref<32x32xf32>
  func.return
}
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
