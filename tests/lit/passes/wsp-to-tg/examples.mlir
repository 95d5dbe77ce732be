// Every example lowers with wsp-to-tg (workloads) and csp-to-tg (pipelines); the result
// verifies and round-trips.
// RUN: pto-opt %S/../../../../examples/attention.mlir -p wsp-to-tg | pto-opt | FileCheck %s --check-prefix=ATTENTION
// RUN: pto-opt %S/../../../../examples/attention_module.mlir -p wsp-to-tg,csp-to-tg 2>/dev/null | pto-opt | FileCheck %s --check-prefix=ATTENTION_MODULE
// RUN: pto-opt %S/../../../../examples/megakernel.mlir -p wsp-to-tg,csp-to-tg 2>/dev/null | pto-opt | FileCheck %s --check-prefix=MEGAKERNEL
// RUN: pto-opt %S/../../../../examples/moe.mlir -p wsp-to-tg | pto-opt | FileCheck %s --check-prefix=MOE
// RUN: pto-opt %S/../../../../examples/scan.mlir -p wsp-to-tg | pto-opt | FileCheck %s --check-prefix=SCAN
// RUN: pto-opt %S/../../../../examples/three_stage.mlir -p wsp-to-tg | pto-opt | FileCheck %s --check-prefix=THREE_STAGE
// RUN: pto-opt %S/../../../../examples/tiered.mlir -p wsp-to-tg | pto-opt | FileCheck %s --check-prefix=TIERED
// RUN: pto-opt %S/../../../../examples/transformer_layer.mlir -p wsp-to-tg | pto-opt | FileCheck %s --check-prefix=TRANSFORMER_LAYER
// RUN: pto-opt %S/../../../../examples/work_steal.mlir -p wsp-to-tg,csp-to-tg 2>/dev/null | pto-opt | FileCheck %s --check-prefix=WORK_STEAL

// ATTENTION: tg.program @attention(
// ATTENTION: tg.task @attention_kernel({{.*}}) at(b = %b, h = %h) pool(cube) target(%b) stream(
// ATTENTION_MODULE: tg.program @attention(%batch: index, %Q:
// ATTENTION_MODULE: tg.program @megakernel(
// ATTENTION_MODULE-NOT: csp.
// MEGAKERNEL: tg.program @megakernel(
// MEGAKERNEL: tg.queue @load_to_compute : !wsp.task capacity(2)
// MOE: tg.program @moe(
// MOE: tg.task @expert_kernel({{.*}}) at(b = %b, e = %e) pool(cube) stream(
// SCAN: tg.program @scan(
// SCAN: tg.order_point
// THREE_STAGE: tg.program @three_stage(
// THREE_STAGE-COUNT-2: tg.order_point
// TIERED: tg.program @tiered(
// TIERED: scf.if
// TRANSFORMER_LAYER: tg.program @transformer_layer(
// TRANSFORMER_LAYER-NOT: tg.call
// TRANSFORMER_LAYER: tg.task @ffn_kernel
// WORK_STEAL: tg.program @work_steal(
// WORK_STEAL: tg.process @worker replicas(4)
