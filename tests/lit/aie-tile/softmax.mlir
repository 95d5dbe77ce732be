// Row reductions and broadcasts (a softmax with its row sums) in a tile kernel on AIE: the
// row max goes to a scratch buffer (memref.alloca, 16 x 4 B), the row sum straight into its
// output parameter, where the division reads it back; elementwise ops fold into the loops
// that read them, and the last one stores vectors of 16 f32 (AIE-ML's 512 bits), the row's
// max and sum broadcast. The cores calling the kernel get a stack of 1024 + 64 bytes.
//
// RUN: pto-opt %s -t 'aie{device=npu1}' | FileCheck %s
// RUN: pto-opt %s -t 'aie{device=npu1}' | pto-opt | FileCheck %s

// CHECK:      func.func @k(%[[X:.*]]: memref<16x32xf32>, %[[Y:.*]]: memref<16x32xf32>, %[[R:.*]]: memref<16x1xf32>) {
// CHECK:        %[[MAX:.*]] = memref.alloca() : memref<16x1xf32>
// CHECK:        scf.for %[[I:.*]] = %{{.*}} to %{{.*}}
// CHECK-NEXT:     %[[FIRST:.*]] = memref.load %[[X]][%[[I]], %[[C0:.*]]] : memref<16x32xf32>
// CHECK-NEXT:     %[[M:.*]] = scf.for %[[J:.*]] = %[[C1:.*]] to %{{.*}} step %[[C1]] iter_args(%[[A:.*]] = %[[FIRST]]) -> (f32) {
// CHECK-NEXT:       %[[V:.*]] = memref.load %[[X]][%[[I]], %[[J]]] : memref<16x32xf32>
// CHECK-NEXT:       %[[MX:.*]] = arith.maximumf %[[A]], %[[V]] : f32
// CHECK-NEXT:       scf.yield %[[MX]] : f32
// CHECK-NEXT:     }
// CHECK-NEXT:     memref.store %[[M]], %[[MAX]][%[[I]], %[[C0]]] : memref<16x1xf32>
// CHECK:        scf.for
// CHECK:          math.exp
// CHECK:          arith.addf
// CHECK:          memref.store %{{.*}}, %[[R]][%{{.*}}, %[[C0]]] : memref<16x1xf32>
// CHECK:        scf.for %[[I2:.*]] = %{{.*}} to %{{.*}}
// CHECK-NEXT:     scf.for %[[J2:.*]] = %{{.*}} to %{{.*}} step %[[C16:.*]] {
// CHECK-NEXT:       %[[T:.*]] = vector.load %[[X]][%[[I2]], %[[J2]]] : memref<16x32xf32>, vector<16xf32>
// CHECK-NEXT:       %[[TM:.*]] = memref.load %[[MAX]][%[[I2]], %[[C0]]]
// CHECK-NEXT:       %[[TMV:.*]] = vector.broadcast %[[TM]] : f32 to vector<16xf32>
// CHECK-NEXT:       %[[D:.*]] = arith.subf %[[T]], %[[TMV]] : vector<16xf32>
// CHECK-NEXT:       %[[E:.*]] = math.exp %[[D]] : vector<16xf32>
// CHECK-NEXT:       %[[S:.*]] = memref.load %[[R]][%[[I2]], %[[C0]]]
// CHECK-NEXT:       %[[SV:.*]] = vector.broadcast %[[S]] : f32 to vector<16xf32>
// CHECK-NEXT:       %[[O:.*]] = arith.divf %[[E]], %[[SV]] : vector<16xf32>
// CHECK-NEXT:       vector.store %[[O]], %[[Y]][%[[I2]], %[[J2]]] : memref<16x32xf32>, vector<16xf32>
// CHECK:        func.return
// CHECK:      aie.core
// CHECK:        func.call @k(
// CHECK:      } {stack_size = 1088 : i32}
// CHECK:      aie.core
// CHECK:      } {stack_size = 1088 : i32}
wsp.kernel @k(x: in memref<16x32xf32>, y: out memref<16x32xf32>, r: out memref<16x1xf32>) unit(vector) attributes {tile = @k_tile}
func.func @k_tile(%x: memref<16x32xf32>, %y: memref<16x32xf32>, %r: memref<16x1xf32>) attributes {pto.func_type = #pto.func_type<incore>} {
  %t = pto.load %x : memref<16x32xf32> -> !pto.tile<16x32xf32, vec>
  %m = pto.row_max %t : !pto.tile<16x32xf32, vec> -> !pto.tile<16x1xf32, vec>
  %e = pto.row_expand_exp_sub %t, %m : !pto.tile<16x32xf32, vec>, !pto.tile<16x1xf32, vec>
  %s = pto.row_sum %e : !pto.tile<16x32xf32, vec> -> !pto.tile<16x1xf32, vec>
  %o = pto.row_expand_div %e, %s : !pto.tile<16x32xf32, vec>, !pto.tile<16x1xf32, vec>
  pto.store %o, %y : !pto.tile<16x32xf32, vec>, memref<16x32xf32>
  pto.store %s, %r : !pto.tile<16x1xf32, vec>, memref<16x1xf32>
  func.return
}
wsp.workload @w(%T_x: memref<32x32xf32>, %T_y: memref<32x32xf32>, %T_r: memref<32x1xf32>) {
  %I = wsp.dense 2
  wsp.parallel_for %i in %I named("i") : !wsp.dense<2> {
    %c16 = arith.constant 16 : index
    %o16 = arith.muli %i, %c16 : index
    %v_x = wsp.view %T_x[%o16:+16] : memref<32x32xf32> -> memref<16x32xf32>
    %v_y = wsp.view %T_y[%o16:+16] : memref<32x32xf32> -> memref<16x32xf32>
    %v_r = wsp.view %T_r[%o16:+16] : memref<32x1xf32> -> memref<16x1xf32>
    wsp.task @k() resources(%v_x, %v_y, %v_r : memref<16x32xf32>, memref<16x32xf32>, memref<16x1xf32>)
  }
}
sched.schedule @s for @w {
  sched.spatial_map grid(2)
  sched.layout "T_x" (shard(0), replicate)
  sched.layout "T_y" (shard(0), replicate)
  sched.layout "T_r" (shard(0), replicate)
}
