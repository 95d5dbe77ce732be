// Every example of examples/ fits .pto: printed, read back and printed again gives the same
// text (tests/test_interop_pto.py checks that the IR read back is the example's IR).
// RUN: pto-opt %S/../../../examples/attention.mlir -t pto > %t.attention.pto && pto-opt %t.attention.pto -t pto | diff %t.attention.pto -
// RUN: pto-opt %S/../../../examples/attention_module.mlir -t pto > %t.attention_module.pto && pto-opt %t.attention_module.pto -t pto | diff %t.attention_module.pto -
// RUN: pto-opt %S/../../../examples/megakernel.mlir -t pto > %t.megakernel.pto && pto-opt %t.megakernel.pto -t pto | diff %t.megakernel.pto -
// RUN: pto-opt %S/../../../examples/moe.mlir -t pto > %t.moe.pto && pto-opt %t.moe.pto -t pto | diff %t.moe.pto -
// RUN: pto-opt %S/../../../examples/scan.mlir -t pto > %t.scan.pto && pto-opt %t.scan.pto -t pto | diff %t.scan.pto -
// RUN: pto-opt %S/../../../examples/three_stage.mlir -t pto > %t.three_stage.pto && pto-opt %t.three_stage.pto -t pto | diff %t.three_stage.pto -
// RUN: pto-opt %S/../../../examples/tiered.mlir -t pto > %t.tiered.pto && pto-opt %t.tiered.pto -t pto | diff %t.tiered.pto -
// RUN: pto-opt %S/../../../examples/transformer_layer.mlir -t pto > %t.transformer_layer.pto && pto-opt %t.transformer_layer.pto -t pto | diff %t.transformer_layer.pto -
// RUN: pto-opt %S/../../../examples/work_steal.mlir -t pto > %t.work_steal.pto && pto-opt %t.work_steal.pto -t pto | diff %t.work_steal.pto -
// And the printed form of one of them, in full:
// RUN: pto-opt %S/../../../examples/tiered.mlir -t pto | filecheck %s

// CHECK:      // PTO Module: module
// CHECK-NEXT: // Version: 9.0
// CHECK-NEXT: // Target: cpu_sim
// CHECK-EMPTY:
// CHECK-NEXT: @kernel attn_2k(b: index, len: index, X: inout memref<2048x64xf32>) unit(cube) cost(1000)
// CHECK-EMPTY:
// CHECK-NEXT: @kernel attn_8k(b: index, len: index, X: inout memref<8192x64xf32>) unit(cube) cost(4000)
// CHECK-EMPTY:
// CHECK-NEXT: @kernel attn_32k(b: index, len: index, X: inout memref<32768x64xf32>) unit(cube) cost(16000)
// CHECK-EMPTY:
// CHECK-NEXT: @workload tiered(%X: memref<?x32768x64xf32>, %seq_lens: memref<?xindex>, %batch_size: index) {
// CHECK-NEXT:   parallel_for %b in DenseDyn(%batch_size) {
// CHECK-NEXT:     cond %seq_lens[%b] <= 2048 {
// CHECK-NEXT:       task @attn_2k(%b, %seq_lens[%b]) resources(%X[%b][0:2048])
// CHECK-NEXT:     } else {
// CHECK-NEXT:       cond %seq_lens[%b] <= 8192 {
// CHECK-NEXT:         task @attn_8k(%b, %seq_lens[%b]) resources(%X[%b][0:8192])
// CHECK-NEXT:       } else {
// CHECK-NEXT:         task @attn_32k(%b, %seq_lens[%b]) resources(%X[%b])
// CHECK-NEXT:       }
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT: }
