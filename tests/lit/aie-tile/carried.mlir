// Tiles carried by loops in a tile kernel on AIE: the carried tile is a scratch buffer
// (memref.alloca) the initial value is written to before the loop; the loop keeps no tile
// iter_args, and each iteration writes its yielded value to the buffer at its end; the store
// after the loop reads the buffer. f16 arithmetic is done in f32, each result rounded to f16.
//
// RUN: pto-opt %s -t 'aie{device=npu1}' | FileCheck %s
// RUN: pto-opt %s -t 'aie{device=npu1}' | pto-opt | FileCheck %s

// CHECK:      func.func @k(%[[X:.*]]: memref<16x32xf16>, %[[Y:.*]]: memref<16x32xf16>) {
// CHECK:        %[[BUF:.*]] = memref.alloca() : memref<16x32xf16>
// CHECK:        scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:     scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:       %[[L:.*]] = memref.load %[[X]][%[[I]], %[[J]]] : memref<16x32xf16>
// CHECK-NEXT:       memref.store %[[L]], %[[BUF]][%[[I]], %[[J]]] : memref<16x32xf16>
// CHECK:        scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:     scf.for %[[I2:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:       scf.for %[[J2:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:         %[[A:.*]] = memref.load %[[BUF]][%[[I2]], %[[J2]]] : memref<16x32xf16>
// CHECK-NEXT:         %[[AW:.*]] = arith.extf %[[A]] : f16 to f32
// CHECK-NEXT:         %[[AW2:.*]] = arith.extf %[[A]] : f16 to f32
// CHECK-NEXT:         %[[S:.*]] = arith.addf %[[AW]], %[[AW2]] : f32
// CHECK-NEXT:         %[[N:.*]] = arith.truncf %[[S]] : f32 to f16
// CHECK-NEXT:         memref.store %[[N]], %[[BUF]][%[[I2]], %[[J2]]] : memref<16x32xf16>
// CHECK:        scf.for %[[I3:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:     scf.for %[[J3:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:       %[[R:.*]] = memref.load %[[BUF]][%[[I3]], %[[J3]]] : memref<16x32xf16>
// CHECK-NEXT:       memref.store %[[R]], %[[Y]][%[[I3]], %[[J3]]] : memref<16x32xf16>
wsp.kernel @k(x: in memref<16x32xf16>, y: out memref<16x32xf16>) unit(vector) attributes {tile = @k_tile}
func.func @k_tile(%x: memref<16x32xf16>, %y: memref<16x32xf16>) attributes {pto.func_type = #pto.func_type<incore>} {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  %t = pto.load %x : memref<16x32xf16> -> !pto.tile<16x32xf16, vec>
  %s = scf.for %i = %c0 to %c2 step %c1 iter_args(%a = %t) -> (!pto.tile<16x32xf16, vec>) {
    %b = pto.add %a, %a : !pto.tile<16x32xf16, vec>
    scf.yield %b : !pto.tile<16x32xf16, vec>
  }
  pto.store %s, %y : !pto.tile<16x32xf16, vec>, memref<16x32xf16>
  func.return
}
wsp.workload @w(%T_x: memref<32x32xf16>, %T_y: memref<32x32xf16>) {
  %I = wsp.dense 2
  wsp.parallel_for %i in %I named("i") : !wsp.dense<2> {
    %c16 = arith.constant 16 : index
    %o16 = arith.muli %i, %c16 : index
    %v_x = wsp.view %T_x[%o16:+16] : memref<32x32xf16> -> memref<16x32xf16>
    %v_y = wsp.view %T_y[%o16:+16] : memref<32x32xf16> -> memref<16x32xf16>
    wsp.task @k() resources(%v_x, %v_y : memref<16x32xf16>, memref<16x32xf16>)
  }
}
sched.schedule @s for @w {
  sched.spatial_map grid(2)
  sched.layout "T_x" (shard(0), replicate)
  sched.layout "T_y" (shard(0), replicate)
}
