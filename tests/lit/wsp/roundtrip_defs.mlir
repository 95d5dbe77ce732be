// RUN: pto-opt %s | FileCheck %s --match-full-lines
// RUN: pto-opt %s | pto-opt | FileCheck %s --match-full-lines
// RUN: pto-opt %s --print-op-generic | pto-opt | FileCheck %s --match-full-lines

// Definitions: wsp.workload (cpu level by default, npu level, attributes) and wsp.kernel
// (in/out/inout tensors, scalar parameters, vector/cube unit, constant cost, cost region,
// impls). `level(cpu)` and `unit(vector)` are the defaults: the former is not printed, the
// latter always is. An explicit wsp.yield ending a body is not printed.

builtin.module {
  wsp.workload @empty() {
  }
  wsp.workload @explicit_cpu(%n: index) level(cpu) {
    wsp.yield
  }
  wsp.workload @incore(%b: index, %h: index, %Q: memref<64x128xf16>, %O: memref<64x128xf16>) level(npu) {
  }
  wsp.workload @with_attrs(%batch: !wsp.dense<4>, %seq: !wsp.dense_dyn, %scale: f32, %flag: i1) attributes {owner = "attention", version = 2 : i64} {
  }
  wsp.workload @npu_attrs(%x: i32) level(npu) attributes {tile = [4, 8]} {
  }

  wsp.kernel @noargs()
  wsp.kernel @scalars(n: index, k: i64, alpha: f32) unit(vector)
  wsp.kernel @attn(b: index, h: index, Q: in memref<64x128xf16>, K: in memref<128x128xf16>, V: in memref<128x128xf16>, O: out memref<64x128xf16>) unit(cube) cost(64)
  wsp.kernel @accumulate(A: inout memref<?x16xf32>, B: in memref<?x16xf32>) unit(vector) cost(0)
  wsp.kernel @cost_region(n: index, x: f32, A: inout memref<?x64xf32>) unit(vector) cost {
  ^bb0(%n: index, %x: f32, %A: memref<?x64xf32>):
    %c4 = arith.constant 4 : index
    %c = arith.muli %n, %c4 : index
    wsp.yield %c : index
  }
  wsp.kernel @impls(X: in memref<16xf32>, Y: out memref<16xf32>) unit(vector) cost(3) attributes {impls = {cpu_sim = "pkg.kernels:copy", aie = "copy.o", ascend = "copy.cpp"}}
  wsp.kernel @impls_and_more(X: in memref<16xf32>) unit(cube) cost {
  ^bb0(%X: memref<16xf32>):
    %c = arith.constant 16 : index
    wsp.yield %c : index
  } attributes {note = "both", impls = {cpu_sim = "pkg.kernels:sink"}}
}

// CHECK:      builtin.module {
// CHECK-NEXT:   wsp.workload @empty() {
// CHECK-NEXT:   }
// CHECK-NEXT:   wsp.workload @explicit_cpu(%n: index) {
// CHECK-NEXT:   }
// CHECK-NEXT:   wsp.workload @incore(%b: index, %h: index, %Q: memref<64x128xf16>, %O: memref<64x128xf16>) level(npu) {
// CHECK-NEXT:   }
// CHECK-NEXT:   wsp.workload @with_attrs(%batch: !wsp.dense<4>, %seq: !wsp.dense_dyn, %scale: f32, %flag: i1) attributes {owner = "attention", version = 2 : i64} {
// CHECK-NEXT:   }
// CHECK-NEXT:   wsp.workload @npu_attrs(%x: i32) level(npu) attributes {tile = [4 : i64, 8 : i64]} {
// CHECK-NEXT:   }
// CHECK-NEXT:   wsp.kernel @noargs() unit(vector)
// CHECK-NEXT:   wsp.kernel @scalars(n: index, k: i64, alpha: f32) unit(vector)
// CHECK-NEXT:   wsp.kernel @attn(b: index, h: index, Q: in memref<64x128xf16>, K: in memref<128x128xf16>, V: in memref<128x128xf16>, O: out memref<64x128xf16>) unit(cube) cost(64)
// CHECK-NEXT:   wsp.kernel @accumulate(A: inout memref<?x16xf32>, B: in memref<?x16xf32>) unit(vector) cost(0)
// CHECK-NEXT:   wsp.kernel @cost_region(n: index, x: f32, A: inout memref<?x64xf32>) unit(vector) cost {
// CHECK-NEXT:   ^bb0(%n: index, %x: f32, %A: memref<?x64xf32>):
// CHECK-NEXT:     %c4 = arith.constant 4 : index
// CHECK-NEXT:     %c = arith.muli %n, %c4 : index
// CHECK-NEXT:     wsp.yield %c : index
// CHECK-NEXT:   }
// CHECK-NEXT:   wsp.kernel @impls(X: in memref<16xf32>, Y: out memref<16xf32>) unit(vector) cost(3) attributes {impls = {cpu_sim = "pkg.kernels:copy", aie = "copy.o", ascend = "copy.cpp"}}
// CHECK-NEXT:   wsp.kernel @impls_and_more(X: in memref<16xf32>) unit(cube) cost {
// CHECK-NEXT:   ^bb0(%X: memref<16xf32>):
// CHECK-NEXT:     %c = arith.constant 16 : index
// CHECK-NEXT:     wsp.yield %c : index
// CHECK-NEXT:   } attributes {note = "both", impls = {cpu_sim = "pkg.kernels:sink"}}
// CHECK-NEXT: }
