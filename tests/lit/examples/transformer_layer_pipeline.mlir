// The README's main-job pipeline: the layer's four calls (and attention's cross-level call to
// the npu-level attn_incore) are inlined, and the combine they stood in is flattened into the
// layer's body.
// RUN: pto-opt %S/../../../examples/transformer_layer.mlir -p wsp-inline-calls,wsp-canonicalize | FileCheck %s

// CHECK-LABEL: wsp.workload @transformer_layer(
// CHECK-NOT:   wsp.call
// CHECK-NOT:   wsp.combine
// CHECK:       wsp.parallel_for %{{.*}} named("b")
// CHECK:         wsp.task @rms_norm_kernel
// CHECK:       wsp.parallel_for %{{.*}} named("b")
// CHECK-NEXT:    wsp.parallel_for %{{.*}} named("h")
// CHECK:           wsp.task @attn_tile
// CHECK:       wsp.parallel_for %{{.*}} named("b")
// CHECK:         wsp.task @add_kernel
// CHECK:       wsp.parallel_for %{{.*}} named("b")
// CHECK:         wsp.task @ffn_kernel
// CHECK-NOT:   wsp.call
