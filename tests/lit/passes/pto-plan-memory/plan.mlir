// RUN: pto-opt %s --split-input-file -p pto-plan-memory | filecheck %s
// RUN: pto-opt %s --split-input-file -p pto-plan-memory | pto-opt --split-input-file -p pto-plan-memory | filecheck %s

// Before/after of pto-plan-memory: each op making a tile gets pto.addr, its byte offset in
// the tile's space; the function gets pto.memory, the peak bytes per space. The second RUN
// checks the output parses, verifies and is a fixed point.

// Reuse: a tile's buffer is free after its last use. %t (4096 B) dies at the exp_sub that
// makes %e, so %s takes offset 0; %m dies at that exp_sub too, so %o takes offset 64. No
// tile takes the buffer of an operand of the op making it (%e does not go to 0).
func.func @softmax(%x: memref<16x64xf32>, %y: memref<16x64xf32>) attributes {pto.func_type = #pto.func_type<incore>} {
  %t = pto.load %x : memref<16x64xf32> -> !pto.tile<16x64xf32, vec>
  %m = pto.row_max %t : !pto.tile<16x64xf32, vec> -> !pto.tile<16x1xf32, vec>
  %e = pto.row_expand_exp_sub %t, %m : !pto.tile<16x64xf32, vec>, !pto.tile<16x1xf32, vec>
  %s = pto.row_sum %e : !pto.tile<16x64xf32, vec> -> !pto.tile<16x1xf32, vec>
  %o = pto.row_expand_div %e, %s : !pto.tile<16x64xf32, vec>, !pto.tile<16x1xf32, vec>
  pto.store %o, %y : !pto.tile<16x64xf32, vec>, memref<16x64xf32>
  func.return
}

// CHECK:      func.func @softmax(%x: memref<16x64xf32>, %y: memref<16x64xf32>) attributes {pto.func_type = #pto.func_type<incore>, pto.memory = {vec = 8256 : i64}} {
// CHECK-NEXT:   %t = pto.load %x {pto.addr = 0 : i64}
// CHECK-NEXT:   %m = pto.row_max %t {pto.addr = 4096 : i64}
// CHECK-NEXT:   %e = pto.row_expand_exp_sub %t, %m {pto.addr = 4160 : i64}
// CHECK-NEXT:   %s = pto.row_sum %e {pto.addr = 0 : i64}
// CHECK-NEXT:   %o = pto.row_expand_div %e, %s {pto.addr = 64 : i64}
// CHECK-NEXT:   pto.store %o, %y :

// -----

// A loop's tile is one buffer: the initial value %init, the iteration argument %acc, the
// yielded %n and the result %r all live at offset 0; %n updates it in place. %t, made in
// the loop, is dead by the end of each iteration but the loop's tile is live throughout.
func.func @accumulate(%x: memref<64x64xf32>, %y: memref<16x64xf32>) attributes {pto.func_type = #pto.func_type<incore>} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %z = arith.constant 0.0 : f32
  %init = pto.full %z : f32 -> !pto.tile<16x64xf32, vec>
  %r = scf.for %i = %c0 to %c64 step %c16 iter_args(%acc = %init) -> (!pto.tile<16x64xf32, vec>) {
    %t = pto.load %x[%i, %c0] : memref<64x64xf32> -> !pto.tile<16x64xf32, vec>
    %e = pto.exp %t : !pto.tile<16x64xf32, vec>
    %n = pto.add %acc, %e : !pto.tile<16x64xf32, vec>
    scf.yield %n : !pto.tile<16x64xf32, vec>
  }
  %d = pto.muls %r, %z : !pto.tile<16x64xf32, vec>, f32
  pto.store %d, %y : !pto.tile<16x64xf32, vec>, memref<16x64xf32>
  func.return
}

// CHECK:      func.func @accumulate({{.*}} pto.memory = {vec = 12288 : i64}} {
// CHECK:        %init = pto.full %z {pto.addr = 0 : i64}
// CHECK-NEXT:   %r = scf.for %i = %c0 to %c64 step %c16 iter_args(%acc = %init)
// CHECK-NEXT:     %t = pto.load %x[%i, %c0] {pto.addr = 4096 : i64}
// CHECK-NEXT:     %e = pto.exp %t {pto.addr = 8192 : i64}
// CHECK-NEXT:     %n = pto.add %acc, %e {pto.addr = 0 : i64}
// CHECK-NEXT:     scf.yield %n
// CHECK-NEXT:   }
// CHECK-NEXT:   %d = pto.muls %r, %z {pto.addr = 4096 : i64}

// -----

// A tile made before a loop and read inside it lives to the loop's end: %w (read in every
// iteration) keeps offset 0 through the loop, so %t and %u take other buffers; after the
// loop %w is dead and %v reuses offset 0. The branches of an scf.if and its result share
// one buffer (%a, %b, %c at 4096).
func.func @loop_and_if(%x: memref<16x64xf32>, %y: memref<16x64xf32>, %n: index, %p: i1) attributes {pto.func_type = #pto.func_type<incore>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %w = pto.load %x : memref<16x64xf32> -> !pto.tile<16x64xf32, vec>
  scf.for %i = %c0 to %n step %c1 {
    %t = pto.load %x : memref<16x64xf32> -> !pto.tile<16x64xf32, vec>
    %u = pto.add %t, %w : !pto.tile<16x64xf32, vec>
    pto.store %u, %y : !pto.tile<16x64xf32, vec>, memref<16x64xf32>
  }
  %v = pto.load %x : memref<16x64xf32> -> !pto.tile<16x64xf32, vec>
  %c = scf.if %p -> (!pto.tile<16x64xf32, vec>) {
    %a = pto.exp %v : !pto.tile<16x64xf32, vec>
    scf.yield %a : !pto.tile<16x64xf32, vec>
  } else {
    %b = pto.neg %v : !pto.tile<16x64xf32, vec>
    scf.yield %b : !pto.tile<16x64xf32, vec>
  }
  pto.store %c, %y : !pto.tile<16x64xf32, vec>, memref<16x64xf32>
  func.return
}

// CHECK:      func.func @loop_and_if({{.*}} pto.memory = {vec = 12288 : i64}} {
// CHECK:        %w = pto.load %x {pto.addr = 0 : i64}
// CHECK-NEXT:   scf.for
// CHECK-NEXT:     %t = pto.load %x {pto.addr = 4096 : i64}
// CHECK-NEXT:     %u = pto.add %t, %w {pto.addr = 8192 : i64}
// CHECK:        %v = pto.load %x {pto.addr = 0 : i64}
// CHECK-NEXT:   %c = scf.if %p
// CHECK-NEXT:     %a = pto.exp %v {pto.addr = 4096 : i64}
// CHECK:          %b = pto.neg %v {pto.addr = 4096 : i64}

// -----

// Alignment per space: 32 B in vec and mat, 512 B (a fractal) in left, right and acc. An
// 8x16xf16 left tile (256 B) still takes 512 B; a 1x4xf32 vec tile (16 B) takes 32 B.
// Each space is planned on its own, from offset 0. A matmul_acc accumulates in place: %q
// takes the buffer of %p, which nothing else reads.
func.func @align(%a: memref<8x16xf16>, %b: memref<16x16xf16>, %c: memref<8x16xf32>, %r: memref<1x4xf32>) attributes {pto.func_type = #pto.func_type<incore>} {
  %ma = pto.load %a : memref<8x16xf16> -> !pto.tile<8x16xf16, mat>
  %mb = pto.load %b : memref<16x16xf16> -> !pto.tile<16x16xf16, mat>
  %l = pto.move %ma : !pto.tile<8x16xf16, mat> -> !pto.tile<8x16xf16, left>
  %l2 = pto.move %ma : !pto.tile<8x16xf16, mat> -> !pto.tile<8x16xf16, left>
  %rt = pto.move %mb : !pto.tile<16x16xf16, mat> -> !pto.tile<16x16xf16, right>
  %p = pto.matmul %l, %rt : !pto.tile<8x16xf16, left>, !pto.tile<16x16xf16, right> -> !pto.tile<8x16xf32, acc>
  %q = pto.matmul_acc %p, %l2, %rt : !pto.tile<8x16xf16, left>, !pto.tile<16x16xf16, right> -> !pto.tile<8x16xf32, acc>
  pto.store %q, %c : !pto.tile<8x16xf32, acc>, memref<8x16xf32>
  %v = pto.load %r : memref<1x4xf32> -> !pto.tile<1x4xf32, vec>
  %w = pto.load %r : memref<1x4xf32> -> !pto.tile<1x4xf32, vec>
  %s = pto.add %v, %w : !pto.tile<1x4xf32, vec>
  pto.store %s, %r : !pto.tile<1x4xf32, vec>, memref<1x4xf32>
  func.return
}

// CHECK:      func.func @align({{.*}} pto.memory = {acc = 512 : i64, left = 768 : i64, mat = 768 : i64, right = 512 : i64, vec = 80 : i64}} {
// CHECK-NEXT:   %ma = pto.load %a {pto.addr = 0 : i64}
// CHECK-NEXT:   %mb = pto.load %b {pto.addr = 256 : i64}
// CHECK-NEXT:   %l = pto.move %ma {pto.addr = 0 : i64}
// CHECK-NEXT:   %l2 = pto.move %ma {pto.addr = 512 : i64}
// CHECK-NEXT:   %rt = pto.move %mb {pto.addr = 0 : i64}
// CHECK-NEXT:   %p = pto.matmul %l, %rt {pto.addr = 0 : i64}
// CHECK-NEXT:   %q = pto.matmul_acc %p, %l2, %rt {pto.addr = 0 : i64}
// CHECK:        %v = pto.load %r {pto.addr = 0 : i64}
// CHECK-NEXT:   %w = pto.load %r {pto.addr = 32 : i64}
// CHECK-NEXT:   %s = pto.add %v, %w {pto.addr = 64 : i64}

// -----

// A function without tiles is left alone.
func.func @plain(%x: index) -> index {
  func.return %x : index
}

// CHECK:      func.func @plain(%x: index) -> index {
// CHECK-NEXT:   func.return %x : index

// -----

// A tile argument takes a buffer like any tile (%a: offset 0, live to its last use, the
// add), though no op here carries it. Ops with regions (loops, while, InCore scopes) get no
// pto.addr: their tiles are their yielded values'.
func.func @regions(%x: memref<16x16xf32>, %a: !pto.tile<16x16xf32, vec>, %p: i1) -> !pto.tile<16x16xf32, vec> {
  %q = scf.while (%arg = %a) : (!pto.tile<16x16xf32, vec>) -> !pto.tile<16x16xf32, vec> {
    scf.condition(%p) %arg : !pto.tile<16x16xf32, vec>
  } do {
  ^bb0(%b: !pto.tile<16x16xf32, vec>):
    %e = pto.exp %b : !pto.tile<16x16xf32, vec>
    scf.yield %e : !pto.tile<16x16xf32, vec>
  }
  %s = pto.incore_scope -> (!pto.tile<16x16xf32, vec>) {
    %z = pto.add %q, %a : !pto.tile<16x16xf32, vec>
    pto.yield %z : !pto.tile<16x16xf32, vec>
  }
  func.return %s : !pto.tile<16x16xf32, vec>
}

// CHECK:      func.func @regions({{.*}}pto.memory = {vec = 4096 : i64}} {
// CHECK:          %e = pto.exp %b {pto.addr = 1024 : i64}
// CHECK:        %s = pto.incore_scope -> (!pto.tile<16x16xf32, vec>) {
// CHECK-NEXT:     %z = pto.add %q, %a {pto.addr = 2048 : i64}
// CHECK-NEXT:     pto.yield %z
// CHECK-NEXT:   }
// CHECK-NEXT:   func.return %s

// -----

// A loop's carried tile is one buffer; a transpose cannot write over the tile it reads, so it
// gets a buffer of its own (256) and a pto.move copies it into the carried one (0).
func.func @transposed(%x: memref<8x8xf32>, %y: memref<8x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %t = pto.load %x : memref<8x8xf32> -> !pto.tile<8x8xf32, vec>
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%a = %t) -> (!pto.tile<8x8xf32, vec>) {
    %b = pto.transpose %a : !pto.tile<8x8xf32, vec> -> !pto.tile<8x8xf32, vec>
    scf.yield %b : !pto.tile<8x8xf32, vec>
  }
  pto.store %r, %y : !pto.tile<8x8xf32, vec>, memref<8x8xf32>
  func.return
}

// CHECK:      func.func @transposed(
// CHECK:        %t = pto.load %x {pto.addr = 0 : i64}
// CHECK:          %b = pto.transpose %a {pto.addr = 256 : i64}
// CHECK-NEXT:     %[[COPY:.*]] = pto.move %b {pto.addr = 0 : i64} : !pto.tile<8x8xf32, vec> -> !pto.tile<8x8xf32, vec>
// CHECK-NEXT:     scf.yield %[[COPY]]
// CHECK:        pto.store %r, %y

// -----

// A vec tile read after the value replacing it is made (the old running max %m read by the
// exp after %m2, as online softmax does): %m2 gets a buffer of its own and a pto.move at the
// end of the body copies it into the loop's buffer (offset 0, with %init and %r); an initial
// value read after the loop starts is copied into the loop's buffer before it (%c).
func.func @read_after(%x: memref<16x64xf32>, %y: memref<16x1xf32>, %n: index) attributes {pto.func_type = #pto.func_type<incore>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %init = pto.load %y : memref<16x1xf32> -> !pto.tile<16x1xf32, vec>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%m = %init) -> (!pto.tile<16x1xf32, vec>) {
    %m2 = pto.exp %m : !pto.tile<16x1xf32, vec>
    %d = pto.sub %m, %m2 : !pto.tile<16x1xf32, vec>
    pto.store %d, %y : !pto.tile<16x1xf32, vec>, memref<16x1xf32>
    scf.yield %m2 : !pto.tile<16x1xf32, vec>
  }
  %s = scf.for %i = %c0 to %n step %c1 iter_args(%a = %r) -> (!pto.tile<16x1xf32, vec>) {
    %a2 = pto.exp %a : !pto.tile<16x1xf32, vec>
    scf.yield %a2 : !pto.tile<16x1xf32, vec>
  }
  pto.store %r, %y : !pto.tile<16x1xf32, vec>, memref<16x1xf32>
  pto.store %s, %y : !pto.tile<16x1xf32, vec>, memref<16x1xf32>
  func.return
}

// CHECK-LABEL: func.func @read_after
// CHECK:         %init = pto.load %y {pto.addr = 0 : i64}
// CHECK-NEXT:    %r = scf.for %i = %c0 to %n step %c1 iter_args(%m = %init) -> (!pto.tile<16x1xf32, vec>) {
// CHECK-NEXT:      %m2 = pto.exp %m {pto.addr = [[OWN:[0-9]+]] : i64}
// CHECK-NEXT:      %d = pto.sub %m, %m2 {pto.addr = {{[0-9]+}} : i64}
// CHECK-NEXT:      pto.store %d, %y
// CHECK-NEXT:      %[[COPY:.*]] = pto.move %m2 {pto.addr = 0 : i64} : !pto.tile<16x1xf32, vec> -> !pto.tile<16x1xf32, vec>
// CHECK-NEXT:      scf.yield %[[COPY]] : !pto.tile<16x1xf32, vec>
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[INIT:.*]] = pto.move %r {pto.addr = [[SECOND:[0-9]+]] : i64} : !pto.tile<16x1xf32, vec> -> !pto.tile<16x1xf32, vec>
// CHECK-NEXT:    %s = scf.for %i_1 = %c0 to %n step %c1 iter_args(%a = %[[INIT]]) -> (!pto.tile<16x1xf32, vec>) {
// CHECK-NEXT:      %a2 = pto.exp %a {pto.addr = [[SECOND]] : i64}
