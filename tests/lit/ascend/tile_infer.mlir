// RUN: rm -rf %t && pto-opt --disable-verify %s -t ascend -o %t
// RUN: filecheck %s --input-file=%t/kernels/mm_body.cpp

// The traced form (a matmul of tiles as loaded, which does not verify: read with
// --disable-verify) goes to Ascend as it is: the target runs pto-infer-spaces before planning
// (loads to mat, moves to left / right), then pto-plan-memory and pto-insert-sync.

wsp.kernel @mm(a: in memref<16x32xf32>, b: in memref<32x8xf32>, c: out memref<16x8xf32>) unit(cube) attributes {tile = @mm_tile}
func.func @mm_tile(%a: memref<16x32xf32>, %b: memref<32x8xf32>, %c: memref<16x8xf32>) attributes {pto.func_type = #pto.func_type<incore>} {
  %x = pto.load %a : memref<16x32xf32> -> !pto.tile<16x32xf32, vec>
  %y = pto.load %b : memref<32x8xf32> -> !pto.tile<32x8xf32, vec>
  %z = pto.matmul %x, %y : !pto.tile<16x32xf32, vec>, !pto.tile<32x8xf32, vec> -> !pto.tile<16x8xf32, acc>
  pto.store %z, %c : !pto.tile<16x8xf32, acc>, memref<16x8xf32>
  func.return
}
wsp.workload @w(%a: memref<?x16x32xf32>, %b: memref<?x32x8xf32>, %c: memref<?x16x8xf32>, %n: index) {
  %d = wsp.dense_dyn %n
  wsp.parallel_for %i in %d named("i") : !wsp.dense_dyn {
    %av = wsp.view %a[%i] : memref<?x16x32xf32> -> memref<16x32xf32>
    %bv = wsp.view %b[%i] : memref<?x32x8xf32> -> memref<32x8xf32>
    %cv = wsp.view %c[%i] : memref<?x16x8xf32> -> memref<16x8xf32>
    wsp.task @mm() resources(%av, %bv, %cv : memref<16x32xf32>, memref<32x8xf32>, memref<16x8xf32>)
  }
}

// CHECK:      alignas(512) uint8_t acc_buffer[512];
// CHECK-NEXT: alignas(512) uint8_t left_buffer[2048];
// CHECK-NEXT: alignas(512) uint8_t mat_buffer[2048];
// CHECK-NEXT: alignas(512) uint8_t right_buffer[1024];
// CHECK-NEXT: TileAt<float, Space::Mat, 16, 32> [[A:.*]](mat_buffer + 0, 16, 32);
// CHECK-NEXT: TLOAD([[A]], a, {0, 0});
// CHECK:      TileAt<float, Space::Left, 16, 32> [[L:.*]](left_buffer + 0);
// CHECK-NEXT: TMOV([[L]], [[A]]);
// CHECK:      TileAt<float, Space::Right, 32, 8> [[R:.*]](right_buffer + 0);
// CHECK:      TWAIT_FLAG(PIPE_MTE1, PIPE_M, EVENT_ID0);
// CHECK-NEXT: TWAIT_FLAG(PIPE_MTE1, PIPE_M, EVENT_ID1);
// CHECK-NEXT: TileAt<float, Space::Acc, 16, 8> z(acc_buffer + 0);
// CHECK-NEXT: TMATMUL(z, [[L]], [[R]]);
// CHECK:      TSTORE(c, z, {0, 0});
