// What a tile kernel's body cannot map to on AIE: an error located at the op of the tile
// function, naming the kernel, the op and the reason; pto-opt exits non-zero.
//
// RUN: not pto-opt %s --split-input-file -t 'aie{device=npu1}' 2>&1 | FileCheck %s

// CHECK: errors.mlir:[[# @LINE + 5]]:8: error: 'pto.transpose' op tg-to-aie: kernel @k (tile function @k_tile): pto.transpose makes a tile with a dynamic valid shape ([32, ?]) whose sizes the AIE kernel cannot trace to the load or matmul that gives them
wsp.kernel @k(x: in memref<16x32xf32>, y: out memref<32x16xf32>) unit(vector) attributes {tile = @k_tile}
func.func @k_tile(%x: memref<16x32xf32>, %y: memref<32x16xf32>) attributes {pto.func_type = #pto.func_type<incore>} {
  %n = arith.constant 3 : index
  %t = pto.load %x valid(%n) : memref<16x32xf32> -> !pto.tile<16x32xf32, vec, valid = [?, 32]>
  %u = pto.transpose %t : !pto.tile<16x32xf32, vec, valid = [?, 32]> -> !pto.tile<32x16xf32, vec, valid = [32, ?]>
  pto.store %u, %y : !pto.tile<32x16xf32, vec, valid = [32, ?]>, memref<32x16xf32>
  func.return
}
wsp.workload @w(%T_x: memref<32x32xf32>, %T_y: memref<64x16xf32>) {
  %I = wsp.dense 2
  wsp.parallel_for %i in %I named("i") : !wsp.dense<2> {
    %c16 = arith.constant 16 : index
    %o16 = arith.muli %i, %c16 : index
    %c32 = arith.constant 32 : index
    %o32 = arith.muli %i, %c32 : index
    %v_x = wsp.view %T_x[%o16:+16] : memref<32x32xf32> -> memref<16x32xf32>
    %v_y = wsp.view %T_y[%o32:+32] : memref<64x16xf32> -> memref<32x16xf32>
    wsp.task @k() resources(%v_x, %v_y : memref<16x32xf32>, memref<32x16xf32>)
  }
}
sched.schedule @s for @w {
  sched.spatial_map grid(2)
  sched.layout "T_x" (shard(0), replicate)
  sched.layout "T_y" (shard(0), replicate)
}

// -----

// CHECK: errors.mlir:[[# @LINE + 1]]:1: error: 'wsp.kernel' op tg-to-aie: compute tile (0, 2) needs 73728 bytes of buffers (@T_x_0: 2 x 2048 B, @T_y_0: 2 x 2048 B, stack of @k: 65536 B of scratch), but it has 64512 (64 KiB less the stack)
wsp.kernel @k(x: in memref<16x32xf32>, y: out memref<16x32xf32>) unit(vector) attributes {tile = @k_tile}
func.func @k_tile(%x: memref<16x32xf32>, %y: memref<16x32xf32>) attributes {pto.func_type = #pto.func_type<incore>} {
  %big = pto.alloc : !pto.tile<128x128xf32, vec>
  %t = pto.load %x : memref<16x32xf32> -> !pto.tile<16x32xf32, vec>
  pto.store %t, %y : !pto.tile<16x32xf32, vec>, memref<16x32xf32>
  func.return
}
wsp.workload @w(%T_x: memref<32x32xf32>, %T_y: memref<32x32xf32>) {
  %I = wsp.dense 2
  wsp.parallel_for %i in %I named("i") : !wsp.dense<2> {
    %c16 = arith.constant 16 : index
    %o16 = arith.muli %i, %c16 : index
    %v_x = wsp.view %T_x[%o16:+16] : memref<32x32xf32> -> memref<16x32xf32>
    %v_y = wsp.view %T_y[%o16:+16] : memref<32x32xf32> -> memref<16x32xf32>
    wsp.task @k() resources(%v_x, %v_y : memref<16x32xf32>, memref<16x32xf32>)
  }
}
sched.schedule @s for @w {
  sched.spatial_map grid(2)
  sched.layout "T_x" (shard(0), replicate)
  sched.layout "T_y" (shard(0), replicate)
}

