wsp.kernel @k(a: in memref<16x32xf32>, b: in memref<16x32xf32>, c: in memref<1x32xf32>, d: out memref<16x32xf32>) unit(vector) attributes {tile = @k_tile}
func.func @k_tile(%a: memref<16x32xf32>, %b: memref<16x32xf32>, %c: memref<1x32xf32>, %d: memref<16x32xf32>) attributes {pto.func_type = #pto.func_type<incore>} {
  %ta = pto.load %a : memref<16x32xf32> -> !pto.tile<16x32xf32, vec>
  %tb = pto.load %b : memref<16x32xf32> -> !pto.tile<16x32xf32, vec>
  %tc = pto.load %c : memref<1x32xf32> -> !pto.tile<1x32xf32, vec>
  %s = pto.add %ta, %tb : !pto.tile<16x32xf32, vec>
  %y = pto.col_expand_mul %s, %tc : !pto.tile<16x32xf32, vec>, !pto.tile<1x32xf32, vec>
  pto.store %y, %d : !pto.tile<16x32xf32, vec>, memref<16x32xf32>
  func.return
}
wsp.workload @w(%T_a: memref<32x32xf32>, %T_b: memref<32x32xf32>, %T_c: memref<1x32xf32>, %T_d: memref<32x32xf32>) {
  %I = wsp.dense 2
  wsp.parallel_for %i in %I named("i") : !wsp.dense<2> {
        %c16 = arith.constant 16 : index
    %o16 = arith.muli %i, %c16 : index
        %v_a = wsp.view %T_a[%o16:+16] : memref<32x32xf32> -> memref<16x32xf32>
    %v_b = wsp.view %T_b[%o16:+16] : memref<32x32xf32> -> memref<16x32xf32>
    %v_c = wsp.view %T_c[0:+1] : memref<1x32xf32> -> memref<1x32xf32>
    %v_d = wsp.view %T_d[%o16:+16] : memref<32x32xf32> -> memref<16x32xf32>
    wsp.task @k() resources(%v_a, %v_b, %v_c, %v_d : memref<16x32xf32>, memref<16x32xf32>, memref<1x32xf32>, memref<16x32xf32>)
  }
}
sched.schedule @s for @w {
  sched.spatial_map grid(2)
  sched.layout "T_a" (shard(0), replicate)
  sched.layout "T_b" (shard(0), replicate)
  sched.layout "T_c" (replicate, replicate)
  sched.layout "T_d" (shard(0), replicate)
}

