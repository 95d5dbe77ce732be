// RUN: pto-opt %s --split-input-file --verify-diagnostics -t aie | FileCheck %s

// mlir-aie's rules in the AIE lowering (docs/targets/aie.md): a transfer or an objectfifo
// element that breaks one is a located error naming the tensor and the rule; 64-bit
// tensors travel as 32-bit words.

// 64-bit elements: the runtime sequence moves the same bytes as twice as many i32 words.
wsp.kernel @k(a: in memref<8x4xf64>, c: out memref<8x4xf64>) unit(vector)
wsp.workload @w(%A: memref<8x8xf64>, %C: memref<8x8xf64>) {
  %J = wsp.dense 2
  wsp.parallel_for %j in %J named("j") : !wsp.dense<2> {
    %cb = arith.constant 4 : index
    %jo = arith.muli %j, %cb : index
    %a = wsp.view %A[0:8, %jo:+4] : memref<8x8xf64> -> memref<8x4xf64>
    %c = wsp.view %C[0:8, %jo:+4] : memref<8x8xf64> -> memref<8x4xf64>
    wsp.task @k() resources(%a, %c : memref<8x4xf64>, memref<8x4xf64>)
  }
}
sched.schedule @s for @w {
  sched.spatial_map grid(2)
  sched.layout "A" (replicate, shard(0))
  sched.layout "C" (replicate, shard(0))
}

// CHECK: aie.objectfifo @A_0(%{{.*}}, 2 : i32) : !aie.objectfifo<memref<8x4xf64>>
// CHECK: aie.runtime_sequence(%A: memref<8x16xi32>, %C: memref<8x16xi32>)
// CHECK: aiex.npu.dma_memcpy_nd(%C[0, 0, 0, 0][1, 2, 8, 8][0, 8, 16, 1])
// CHECK: aiex.npu.dma_memcpy_nd(%A[0, 0, 0, 0][1, 2, 8, 8][0, 8, 16, 1])

// -----
// CHECK: //{{ }}-----

// i8 column blocks of 6 bytes: the shim cannot move 6-byte runs.
wsp.kernel @k(a: in memref<8x6xi8>, c: out memref<8x6xi8>) unit(vector)
wsp.workload @w(%A: memref<8x12xi8>, %C: memref<8x12xi8>) {
  %J = wsp.dense 2
  wsp.parallel_for %j in %J named("j") : !wsp.dense<2> {
    %cb = arith.constant 6 : index
    %jo = arith.muli %j, %cb : index
    %a = wsp.view %A[0:8, %jo:+6] : memref<8x12xi8> -> memref<8x6xi8>
    %c = wsp.view %C[0:8, %jo:+6] : memref<8x12xi8> -> memref<8x6xi8>
    wsp.task @k() resources(%a, %c : memref<8x6xi8>, memref<8x6xi8>)
  }
}
sched.schedule @s for @w {
  sched.spatial_map grid(2)
  sched.layout "A" (replicate, shard(0))
  sched.layout "C" (replicate, shard(0))
}

// CHECK: {{.*}}rules.mlir:{{[0-9]+}}:1: error: 'tg.program' op tg-to-aie: the transfer of A: the innermost size is 6 elements of 1 bytes = 6 bytes, not a multiple of 4 (verifyStridesWraps: 4-byte granularity)

// -----
// CHECK: //{{ }}-----

// An objectfifo element of 18 bytes (one i16 row of 18, split in two).
wsp.kernel @k(a: in memref<1x9xi16>, c: out memref<1x9xi16>) unit(vector)
wsp.workload @w(%A: memref<1x18xi16>, %C: memref<1x18xi16>) {
  %J = wsp.dense 2
  wsp.parallel_for %j in %J named("j") : !wsp.dense<2> {
    %cb = arith.constant 9 : index
    %jo = arith.muli %j, %cb : index
    %a = wsp.view %A[0:1, %jo:+9] : memref<1x18xi16> -> memref<1x9xi16>
    %c = wsp.view %C[0:1, %jo:+9] : memref<1x18xi16> -> memref<1x9xi16>
    wsp.task @k() resources(%a, %c : memref<1x9xi16>, memref<1x9xi16>)
  }
}
sched.schedule @s for @w {
  sched.spatial_map grid(2)
  sched.layout "A" (replicate, shard(0))
  sched.layout "C" (replicate, shard(0))
}

// CHECK: {{.*}}rules.mlir:{{[0-9]+}}:1: error: 'tg.program' op tg-to-aie: objectfifo @A_0 of memref<1x9xi16>: an element of 18 bytes is not a whole number of 32-bit words; a buffer descriptor moves multiples of 4 bytes (DMABDOp::verify: transfer length)
