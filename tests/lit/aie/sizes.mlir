// A bound size the AIE mapping cannot enumerate is refused before any task is walked (each
// of these runs in well under a second); a value beyond 64 bits is refused as a binding.
// RUN: not pto-opt %S/../../../examples/megakernel.mlir -t 'aie{bind="num_tiles=65537"}' 2>&1 | FileCheck %s --check-prefix=JUST
// RUN: not pto-opt %S/../../../examples/megakernel.mlir -t 'aie{bind="num_tiles=9223372036854775807"}' 2>&1 | FileCheck %s --check-prefix=MAX
// RUN: not pto-opt %S/../../../examples/megakernel.mlir -t 'aie{bind="num_tiles=1000000000000000000000000000000"}' 2>&1 | FileCheck %s --check-prefix=WIDE
// RUN: not pto-opt %s -t 'aie{bind="n=100000000"}' 2>&1 | FileCheck %s --check-prefix=SPATIAL
// RUN: pto-opt %s -t 'aie{bind="n=1000"}' | FileCheck %s --check-prefix=SPATIAL-OK

// JUST: megakernel.mlir:21:9: error: 'tg.task' op tg-to-aie: process @loader runs 65,537 tasks, more than 65,536; the AIE mapping enumerates them to derive its transfers
// MAX: process @loader runs 9,223,372,036,854,775,807 tasks, more than 65,536
// WIDE: pto-opt: error: tg-to-aie: num_tiles is an index: 1000000000000000000000000000000 does not fit in 64 bits

// A spatial program's loops are enumerated to find its tasks, also where an iteration creates
// none: more than 2^20 iterations are refused before the walk.
wsp.kernel @k(x: in memref<16xi32>, y: out memref<16xi32>) unit(vector)
wsp.workload @w(%X: memref<2x16xi32>, %Y: memref<2x16xi32>, %n: index) {
  %R = wsp.dense_dyn %n
  %c2 = arith.constant 2 : index
  wsp.parallel_for %r in %R named("r") : !wsp.dense_dyn {
    %p = arith.cmpi ult, %r, %c2 : index
    wsp.cond %p {
      %x = wsp.view %X[%r] : memref<2x16xi32> -> memref<16xi32>
      %y = wsp.view %Y[%r] : memref<2x16xi32> -> memref<16xi32>
      wsp.task @k() resources(%x, %y : memref<16xi32>, memref<16xi32>)
    } else {
    }
  }
}
sched.schedule @s for @w {
  sched.spatial_map grid(2)
  sched.layout "X" (shard(0), replicate)
  sched.layout "Y" (shard(0), replicate)
}

// SPATIAL: sizes.mlir:[[# @LINE - 16]]:3: error: 'scf.for' op tg-to-aie: @w runs its loops more than 1,048,576 times; the mapping enumerates them to place the tasks
// SPATIAL-OK: aie.device
