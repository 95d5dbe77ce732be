// Every example, and what wsp-to-tg and csp-to-tg make of it, goes through upstream MLIR
// (the `mlir` extra): our dialects loaded from their IRDL, the generic form parsed and
// verified upstream, upstream's output read back by xDSL as the same IR.
// RUN: pto-opt %S/../../../examples/attention.mlir --print-op-generic | PTO_UPSTREAM
// RUN: pto-opt %S/../../../examples/attention.mlir -p wsp-to-tg,csp-to-tg --print-op-generic | PTO_UPSTREAM
// RUN: pto-opt %S/../../../examples/attention_module.mlir --print-op-generic | PTO_UPSTREAM
// RUN: pto-opt %S/../../../examples/attention_module.mlir -p wsp-to-tg,csp-to-tg --print-op-generic | PTO_UPSTREAM
// RUN: pto-opt %S/../../../examples/megakernel.mlir --print-op-generic | PTO_UPSTREAM
// RUN: pto-opt %S/../../../examples/megakernel.mlir -p wsp-to-tg,csp-to-tg --print-op-generic | PTO_UPSTREAM
// RUN: pto-opt %S/../../../examples/moe.mlir --print-op-generic | PTO_UPSTREAM
// RUN: pto-opt %S/../../../examples/moe.mlir -p wsp-to-tg,csp-to-tg --print-op-generic | PTO_UPSTREAM
// RUN: pto-opt %S/../../../examples/scan.mlir --print-op-generic | PTO_UPSTREAM
// RUN: pto-opt %S/../../../examples/scan.mlir -p wsp-to-tg,csp-to-tg --print-op-generic | PTO_UPSTREAM
// RUN: pto-opt %S/../../../examples/three_stage.mlir --print-op-generic | PTO_UPSTREAM
// RUN: pto-opt %S/../../../examples/three_stage.mlir -p wsp-to-tg,csp-to-tg --print-op-generic | PTO_UPSTREAM
// RUN: pto-opt %S/../../../examples/tiered.mlir --print-op-generic | PTO_UPSTREAM
// RUN: pto-opt %S/../../../examples/tiered.mlir -p wsp-to-tg,csp-to-tg --print-op-generic | PTO_UPSTREAM
// RUN: pto-opt %S/../../../examples/transformer_layer.mlir --print-op-generic | PTO_UPSTREAM
// RUN: pto-opt %S/../../../examples/transformer_layer.mlir -p wsp-to-tg,csp-to-tg --print-op-generic | PTO_UPSTREAM
// RUN: pto-opt %S/../../../examples/work_steal.mlir --print-op-generic | PTO_UPSTREAM
// RUN: pto-opt %S/../../../examples/work_steal.mlir -p wsp-to-tg,csp-to-tg --print-op-generic | PTO_UPSTREAM
// The static form of a materialized graph (tg.node, #tg.region) too:
// RUN: pto-opt %S/../passes/tg-materialize/materialize.mlir -p 'wsp-to-tg,tg-materialize{bind="n=3,lengths=[2,0,1]"}' | PTO_UPSTREAM
// What upstream prints: properties as attributes, our types' parameters in generic form,
// the terminators as stand-ins, variadic groups as slots (docs/interop.md):
// RUN: pto-opt %S/../../../examples/scan.mlir | PTO_UPSTREAM --print | filecheck %s

// CHECK:      "wsp.kernel"() ({
// CHECK:      "wsp.workload"() ({
// CHECK-NEXT: ^bb0(%arg0: memref<?x64xf32>, %arg1: memref<?x64xf32>, %arg2: index):
// CHECK:        %{{.*}} = "wsp.dense_dyn"(%{{.*}}) : (index) -> !wsp.dense_dyn_type
// CHECK:        "wsp.sequential"() ({
// CHECK:          "wsp.task"(%{{.*}}, %{{.*}}) {kernel = @scan_first, operandSegmentSizes = array<i32: 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0,
// CHECK:          "unregistered.wsp.yield"() : () -> ()
// CHECK:        }) {arg_names = ["in", "out", "n"], function_type = (memref<?x64xf32>, memref<?x64xf32>, index) -> (), level = "cpu", sym_name = "scan"} : () -> ()
