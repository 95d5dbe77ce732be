// RUN: rm -rf %t && pto-opt %s -t ascend -o %t
// RUN: filecheck %s --input-file=%t/kernels/softmax_body.cpp
// RUN: rm -rf %t.plan && pto-opt %s -p 'pto-plan-memory,pto-insert-sync' -t ascend -o %t.plan
// RUN: diff %t/kernels/softmax_body.cpp %t.plan/kernels/softmax_body.cpp

// A tile kernel needs no Ascend body: its tile function is emitted as the body, one tile API
// call (pto_wsp/tile.h) per pto op, scf.for as a C++ loop carrying its tile. The target runs
// pto-plan-memory (for its soc, 910b here) and pto-insert-sync on the function itself: one
// buffer per space (the function's peak), each tile at its pto.addr (the loop's tiles share
// the loaded tile's buffer), the flags. Running the passes first changes nothing.

wsp.kernel @softmax(x: in memref<16x64xf32>, y: out memref<16x64xf32>, n: index) unit(vector) cost(10) attributes {tile = @softmax_tile}
func.func @softmax_tile(%x: memref<16x64xf32>, %y: memref<16x64xf32>, %n: index) attributes {pto.func_type = #pto.func_type<incore>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f32
  %t = pto.load %x : memref<16x64xf32> -> !pto.tile<16x64xf32, vec>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %t) -> (!pto.tile<16x64xf32, vec>) {
    %b = pto.adds %a, %one : !pto.tile<16x64xf32, vec>, f32
    scf.yield %b : !pto.tile<16x64xf32, vec>
  }
  %m = pto.row_max %r : !pto.tile<16x64xf32, vec> -> !pto.tile<16x1xf32, vec>
  %e = pto.row_expand_exp_sub %r, %m : !pto.tile<16x64xf32, vec>, !pto.tile<16x1xf32, vec>
  %s = pto.row_sum %e : !pto.tile<16x64xf32, vec> -> !pto.tile<16x1xf32, vec>
  %p = pto.row_expand_div %e, %s : !pto.tile<16x64xf32, vec>, !pto.tile<16x1xf32, vec>
  pto.store %p, %y : !pto.tile<16x64xf32, vec>, memref<16x64xf32>
  func.return
}

wsp.workload @w(%x: memref<?x16x64xf32>, %y: memref<?x16x64xf32>, %n: index) {
  %d = wsp.dense_dyn %n
  wsp.parallel_for %b in %d named("b") : !wsp.dense_dyn {
    %xv = wsp.view %x[%b] : memref<?x16x64xf32> -> memref<16x64xf32>
    %yv = wsp.view %y[%b] : memref<?x16x64xf32> -> memref<16x64xf32>
    wsp.task @softmax(%b : index) resources(%xv, %yv : memref<16x64xf32>, memref<16x64xf32>)
  }
}

// CHECK:      // Emitted from the tile function @softmax_tile.
// CHECK-NEXT: #include "pto_wsp/tile.h"
// CHECK:      __aicore__ void softmax(pto::wsp::GmTensor<const float, 2> x, pto::wsp::GmTensor<float, 2> y, int64_t n) {
// CHECK-NEXT:   using namespace pto::wsp::tile;
// CHECK-NEXT:   alignas(512) uint8_t vec_buffer[8256];
// CHECK:        TileAt<float, Space::Vec, 16, 64> t(vec_buffer + 0, 16, 64);
// CHECK-NEXT:   TLOAD(t, x, {0, 0});
// CHECK-NEXT:   TSET_FLAG(PIPE_MTE2, PIPE_V, EVENT_ID0);
// CHECK-NEXT:   TWAIT_FLAG(PIPE_MTE2, PIPE_V, EVENT_ID0);
// CHECK-NEXT:   TileAt<float, Space::Vec, 16, 64> r(vec_buffer + 0);
// CHECK-NEXT:   TMOV(r, t);
// CHECK-NEXT:   for (int64_t i = c0; i < n; i += c1) {
// CHECK-NEXT:     TileAt<float, Space::Vec, 16, 64> b(vec_buffer + 0);
// CHECK-NEXT:     TADDS(b, r, one);
// CHECK-NEXT:     TMOV(r, b);
// CHECK-NEXT:   }
// CHECK-NEXT:   TileAt<float, Space::Vec, 16, 1> m(vec_buffer + 4096);
// CHECK-NEXT:   TROWMAX(m, r);
// CHECK-NEXT:   TileAt<float, Space::Vec, 16, 64> e(vec_buffer + 4160);
// CHECK-NEXT:   TROWEXPANDEXPSUB(e, r, m);
// CHECK-NEXT:   TileAt<float, Space::Vec, 16, 1> s(vec_buffer + 0);
// CHECK-NEXT:   TROWSUM(s, e);
// CHECK-NEXT:   TileAt<float, Space::Vec, 16, 64> p(vec_buffer + 64);
// CHECK-NEXT:   TROWEXPANDDIV(p, e, s);
// CHECK-NEXT:   TSET_FLAG(PIPE_V, PIPE_MTE3, EVENT_ID0);
// CHECK-NEXT:   TWAIT_FLAG(PIPE_V, PIPE_MTE3, EVENT_ID0);
// CHECK-NEXT:   TSTORE(y, p, {0, 0});
// CHECK-NEXT:   TFLAGS_BALANCED();
// CHECK-NEXT: }
