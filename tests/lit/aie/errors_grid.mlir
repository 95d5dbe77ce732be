// RUN: pto-opt %s --split-input-file --verify-diagnostics -t 'aie{device=npu1}' | FileCheck %s

// Grids whose cores run several tasks, or whose tensors need per-column staging, that the
// AIE target cannot map: each error names the construct and the rule.
// Each chunk's checks start at the separator line pto-opt prints between chunks.

// A task taking two regions of one tensor: a core takes one element of a fifo per task.
wsp.kernel @add(a: in memref<8xf32>, b: in memref<8xf32>, y: out memref<8xf32>) unit(vector)
wsp.workload @w(%X: memref<2x16xf32>, %Y: memref<2x8xf32>) {
  %R = wsp.dense 2
  wsp.parallel_for %r in %R named("r") : !wsp.dense<2> {
    %a = wsp.view %X[%r, 0:+8] : memref<2x16xf32> -> memref<8xf32>
    %b = wsp.view %X[%r, 8:+8] : memref<2x16xf32> -> memref<8xf32>
    %y = wsp.view %Y[%r] : memref<2x8xf32> -> memref<8xf32>
    wsp.task @add() resources(%a, %b, %y : memref<8xf32>, memref<8xf32>, memref<8xf32>)
  }
}
sched.schedule @s for @w {
  sched.spatial_map grid(2)
  sched.layout "X" (shard(0), replicate)
  sched.layout "Y" (shard(0), replicate)
}

// CHECK: errors_grid.mlir:15:5: error: 'tg.task' op tg-to-aie: @add on core (0,) takes two regions of X; a core takes one element of a tensor's objectfifo per task

// -----
// CHECK: //{{ }}-----

// Cores taking different numbers of elements of one tensor per run (core r: r + 1 tiles).
wsp.kernel @zero(y: out memref<8xf32>) unit(vector)
wsp.kernel @acc(x: in memref<8xf32>, y: inout memref<8xf32>) unit(vector)
wsp.workload @w(%X: memref<2x16xf32>, %Y: memref<2x8xf32>) {
  %R = wsp.dense 2
  wsp.parallel_for %r in %R named("r") : !wsp.dense<2> {
    %y = wsp.view %Y[%r] : memref<2x8xf32> -> memref<8xf32>
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %n = arith.addi %r, %c1 : index
    %K = wsp.dense_dyn %n
    wsp.sequential {
      wsp.task @zero() resources(%y : memref<8xf32>)
      wsp.for_each %k in %K named("k") : !wsp.dense_dyn {
        %ko = arith.muli %k, %c8 : index
        %x = wsp.view %X[%r, %ko:+8] : memref<2x16xf32> -> memref<8xf32>
        wsp.task @acc() resources(%x, %y : memref<8xf32>, memref<8xf32>)
      }
    }
  }
}
sched.schedule @s for @w {
  sched.spatial_map grid(2)
  sched.layout "X" (shard(0), replicate)
  sched.layout "Y" (shard(0), replicate)
}

// CHECK: errors_grid.mlir:32:1: error: 'tg.program' op tg-to-aie: the cores take different numbers of X regions per run (core (0,): 1, core (1,): 2); a memtile link hands each of its objectfifos one element per step

// -----
// CHECK: //{{ }}-----

// A 4x4 grid writing two outputs: one memtile would receive 32 blocks; one memtile per column
// still receives X's share and 4 + 4 output blocks, more than its 6 S2MM channels.
wsp.kernel @split(x: in memref<16x16xf32>, y: out memref<16x16xf32>, z: out memref<16x16xf32>) unit(vector)
wsp.workload @w(%X: memref<64x64xf32>, %Y: memref<64x64xf32>, %Z: memref<64x64xf32>) {
  %I = wsp.dense 4
  %J = wsp.dense 4
  wsp.parallel_for %i in %I named("i") : !wsp.dense<4> {
    wsp.parallel_for %j in %J named("j") : !wsp.dense<4> {
      %c16 = arith.constant 16 : index
      %io = arith.muli %i, %c16 : index
      %jo = arith.muli %j, %c16 : index
      %x = wsp.view %X[%io:+16, %jo:+16] : memref<64x64xf32> -> memref<16x16xf32>
      %y = wsp.view %Y[%io:+16, %jo:+16] : memref<64x64xf32> -> memref<16x16xf32>
      %z = wsp.view %Z[%io:+16, %jo:+16] : memref<64x64xf32> -> memref<16x16xf32>
      wsp.task @split() resources(%x, %y, %z : memref<16x16xf32>, memref<16x16xf32>, memref<16x16xf32>)
    }
  }
}
sched.schedule @s for @w {
  sched.spatial_map grid(4, 4)
  sched.layout "X" (shard(0), shard(1))
  sched.layout "Y" (shard(0), shard(1))
  sched.layout "Z" (shard(0), shard(1))
}

// CHECK: errors_grid.mlir:64:1: error: 'tg.program' op tg-to-aie: the grid's tensors fit neither one memtile each (no column has the shim and memtile DMA channels left for X (2 per shim tile, 6 per memtile, 4 columns)) nor one memtile per column (memtile (0, 1) receives 7 objectfifos (@X_col0, @Y_0_0, @Y_1_0, @Y_2_0, @Y_3_0, @Z_0_0, @Z_1_0), but a memtile has 6 S2MM DMA channels)
