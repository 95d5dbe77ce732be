// RUN: pto-opt %s --disable-verify --split-input-file -p pto-infer-spaces | filecheck %s
// RUN: pto-opt %s --disable-verify --split-input-file -p pto-infer-spaces | pto-opt --split-input-file -p pto-infer-spaces | filecheck %s

// Before/after of pto-infer-spaces. The input is the traced form (matmul on vec tiles, vector
// ops on acc tiles), which verifies only after the pass; the second RUN checks the output
// verifies and is a fixed point of the pass.

// Tiles as loaded feed a matmul: loaded into mat instead, moved to left/right; the acc result
// is stored from acc.
func.func @mm(%a: memref<16x32xf32>, %b: memref<32x8xf32>, %c: memref<16x8xf32>) attributes {pto.func_type = #pto.func_type<incore>} {
  %x = pto.load %a : memref<16x32xf32> -> !pto.tile<16x32xf32, vec>
  %y = pto.load %b : memref<32x8xf32> -> !pto.tile<32x8xf32, vec>
  %z = pto.matmul %x, %y : !pto.tile<16x32xf32, vec>, !pto.tile<32x8xf32, vec> -> !pto.tile<16x8xf32, acc>
  pto.store %z, %c : !pto.tile<16x8xf32, acc>, memref<16x8xf32>
  func.return
}

// CHECK-LABEL: func.func @mm
// CHECK-NEXT:    %{{.*}} = pto.load %a : memref<16x32xf32> -> !pto.tile<16x32xf32, mat>
// CHECK-NEXT:    %[[L:.*]] = pto.move %{{.*}} : !pto.tile<16x32xf32, mat> -> !pto.tile<16x32xf32, left>
// CHECK-NEXT:    %{{.*}} = pto.load %b : memref<32x8xf32> -> !pto.tile<32x8xf32, mat>
// CHECK-NEXT:    %[[R:.*]] = pto.move %{{.*}} : !pto.tile<32x8xf32, mat> -> !pto.tile<32x8xf32, right>
// CHECK-NEXT:    %[[Z:.*]] = pto.matmul %[[L]], %[[R]] : !pto.tile<16x32xf32, left>, !pto.tile<32x8xf32, right> -> !pto.tile<16x8xf32, acc>
// CHECK-NEXT:    pto.store %[[Z]], %c : !pto.tile<16x8xf32, acc>, memref<16x8xf32>
// CHECK-NEXT:    func.return

// -----

// A tile read by a vector op and a matmul: the vec load stays for the vector op, a mat load
// is added for the matmul. The acc result read by a vector op is moved to vec once; the
// vector ops' results are vec tiles.
func.func @both(%a: memref<16x16xf32>, %c: memref<16x16xf32>) attributes {pto.func_type = #pto.func_type<incore>} {
  %x = pto.load %a : memref<16x16xf32> -> !pto.tile<16x16xf32, vec>
  %z = pto.matmul %x, %x : !pto.tile<16x16xf32, vec>, !pto.tile<16x16xf32, vec> -> !pto.tile<16x16xf32, acc>
  %s = "pto.add"(%z, %x) : (!pto.tile<16x16xf32, acc>, !pto.tile<16x16xf32, vec>) -> !pto.tile<16x16xf32, acc>
  %t = pto.mul %s, %z : !pto.tile<16x16xf32, acc>
  pto.store %t, %c : !pto.tile<16x16xf32, acc>, memref<16x16xf32>
  func.return
}

// CHECK-LABEL: func.func @both
// CHECK-NEXT:    %[[X:.*]] = pto.load %a : memref<16x16xf32> -> !pto.tile<16x16xf32, vec>
// CHECK-NEXT:    %[[M:.*]] = pto.load %a : memref<16x16xf32> -> !pto.tile<16x16xf32, mat>
// CHECK-NEXT:    %[[R:.*]] = pto.move %[[M]] : !pto.tile<16x16xf32, mat> -> !pto.tile<16x16xf32, right>
// CHECK-NEXT:    %[[L:.*]] = pto.move %[[M]] : !pto.tile<16x16xf32, mat> -> !pto.tile<16x16xf32, left>
// CHECK-NEXT:    %[[Z:.*]] = pto.matmul %[[L]], %[[R]]
// CHECK-NEXT:    %[[V:.*]] = pto.move %[[Z]] : !pto.tile<16x16xf32, acc> -> !pto.tile<16x16xf32, vec>
// CHECK-NEXT:    %[[S:.*]] = pto.add %[[V]], %[[X]] : !pto.tile<16x16xf32, vec>
// CHECK-NEXT:    %[[T:.*]] = pto.mul %[[S]], %[[V]] : !pto.tile<16x16xf32, vec>
// CHECK-NEXT:    pto.store %[[T]], %c : !pto.tile<16x16xf32, vec>, memref<16x16xf32>

// -----

// Chained matmuls: the first acc result goes acc -> mat -> left; a bias loaded in vec goes
// mat -> bias.
func.func @chain(%a: memref<16x16xf32>, %bias: memref<1x16xf32>, %c: memref<16x16xf32>) attributes {pto.func_type = #pto.func_type<incore>} {
  %x = pto.load %a : memref<16x16xf32> -> !pto.tile<16x16xf32, mat>
  %l = pto.move %x : !pto.tile<16x16xf32, mat> -> !pto.tile<16x16xf32, left>
  %r = pto.move %x : !pto.tile<16x16xf32, mat> -> !pto.tile<16x16xf32, right>
  %z = pto.matmul %l, %r : !pto.tile<16x16xf32, left>, !pto.tile<16x16xf32, right> -> !pto.tile<16x16xf32, acc>
  %bv = pto.load %bias : memref<1x16xf32> -> !pto.tile<1x16xf32, vec>
  %w = pto.matmul_bias %z, %r, %bv : !pto.tile<16x16xf32, acc>, !pto.tile<16x16xf32, right>, !pto.tile<1x16xf32, vec> -> !pto.tile<16x16xf32, acc>
  pto.store %w, %c : !pto.tile<16x16xf32, acc>, memref<16x16xf32>
  func.return
}

// CHECK-LABEL: func.func @chain
// CHECK:         %[[Z:.*]] = pto.matmul
// CHECK-NEXT:    %[[ZM:.*]] = pto.move %[[Z]] : !pto.tile<16x16xf32, acc> -> !pto.tile<16x16xf32, mat>
// CHECK-NEXT:    %[[ZL:.*]] = pto.move %[[ZM]] : !pto.tile<16x16xf32, mat> -> !pto.tile<16x16xf32, left>
// CHECK-NEXT:    %[[BM:.*]] = pto.load %bias : memref<1x16xf32> -> !pto.tile<1x16xf32, mat>
// CHECK-NEXT:    %[[B:.*]] = pto.move %[[BM]] : !pto.tile<1x16xf32, mat> -> !pto.tile<1x16xf32, bias>
// CHECK-NEXT:    %{{.*}} = pto.matmul_bias %[[ZL]], %{{.*}}, %[[B]] : !pto.tile<16x16xf32, left>, !pto.tile<16x16xf32, right>, !pto.tile<1x16xf32, bias>
// CHECK-NOT:     pto.load %bias

// -----

// A K loop carrying its accumulator: the loop and its yield pass the acc tile on as it is
// (no move to vec); the operands loaded in the body go to mat and on to left/right there.
func.func @kloop(%a: memref<16x64xf32>, %b: memref<64x16xf32>, %c: memref<16x16xf32>, %acc0: !pto.tile<16x16xf32, acc>) attributes {pto.func_type = #pto.func_type<incore>} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %r = scf.for %k = %c0 to %c64 step %c16 iter_args(%acc = %acc0) -> (!pto.tile<16x16xf32, acc>) {
    %x = pto.load %a[%c0, %k] : memref<16x64xf32> -> !pto.tile<16x16xf32, vec>
    %y = pto.load %b[%k, %c0] : memref<64x16xf32> -> !pto.tile<16x16xf32, vec>
    %n = pto.matmul_acc %acc, %x, %y : !pto.tile<16x16xf32, vec>, !pto.tile<16x16xf32, vec> -> !pto.tile<16x16xf32, acc>
    scf.yield %n : !pto.tile<16x16xf32, acc>
  }
  pto.store %r, %c : !pto.tile<16x16xf32, acc>, memref<16x16xf32>
  func.return
}

// CHECK-LABEL: func.func @kloop
// CHECK:         %[[R:.*]] = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %acc0) -> (!pto.tile<16x16xf32, acc>) {
// CHECK-NEXT:      %{{.*}} = pto.load %a[%{{.*}}, %{{.*}}] : memref<16x64xf32> -> !pto.tile<16x16xf32, mat>
// CHECK-NEXT:      %[[L:.*]] = pto.move %{{.*}} : !pto.tile<16x16xf32, mat> -> !pto.tile<16x16xf32, left>
// CHECK-NEXT:      %{{.*}} = pto.load %b[%{{.*}}, %{{.*}}] : memref<64x16xf32> -> !pto.tile<16x16xf32, mat>
// CHECK-NEXT:      %[[RR:.*]] = pto.move %{{.*}} : !pto.tile<16x16xf32, mat> -> !pto.tile<16x16xf32, right>
// CHECK-NEXT:      %[[N:.*]] = pto.matmul_acc %[[ACC]], %[[L]], %[[RR]] : !pto.tile<16x16xf32, left>, !pto.tile<16x16xf32, right> -> !pto.tile<16x16xf32, acc>
// CHECK-NEXT:      scf.yield %[[N]] : !pto.tile<16x16xf32, acc>
// CHECK-NEXT:    }
// CHECK-NEXT:    pto.store %[[R]], %c : !pto.tile<16x16xf32, acc>, memref<16x16xf32>

// -----

// Across the branches of an scf.if: tiles loaded before it feed a matmul in each branch, as
// left in one and right in the other, so both moves are made once, before the if; the acc
// result both branches yield goes through the if as it is and is moved to vec once, after it,
// for the vector op.
func.func @branch(%a: memref<16x16xf32>, %b: memref<16x16xf32>, %c: memref<16x16xf32>, %p: i1) attributes {pto.func_type = #pto.func_type<incore>} {
  %x = pto.load %a : memref<16x16xf32> -> !pto.tile<16x16xf32, vec>
  %y = pto.load %b : memref<16x16xf32> -> !pto.tile<16x16xf32, vec>
  %r = scf.if %p -> (!pto.tile<16x16xf32, acc>) {
    %m = pto.matmul %x, %y : !pto.tile<16x16xf32, vec>, !pto.tile<16x16xf32, vec> -> !pto.tile<16x16xf32, acc>
    scf.yield %m : !pto.tile<16x16xf32, acc>
  } else {
    %n = pto.matmul %y, %x : !pto.tile<16x16xf32, vec>, !pto.tile<16x16xf32, vec> -> !pto.tile<16x16xf32, acc>
    scf.yield %n : !pto.tile<16x16xf32, acc>
  }
  %s = pto.relu %r : !pto.tile<16x16xf32, acc>
  pto.store %s, %c : !pto.tile<16x16xf32, acc>, memref<16x16xf32>
  func.return
}

// CHECK-LABEL: func.func @branch
// CHECK-NEXT:    %[[XM:.*]] = pto.load %a : memref<16x16xf32> -> !pto.tile<16x16xf32, mat>
// CHECK-NEXT:    %[[XR:.*]] = pto.move %[[XM]] : !pto.tile<16x16xf32, mat> -> !pto.tile<16x16xf32, right>
// CHECK-NEXT:    %[[XL:.*]] = pto.move %[[XM]] : !pto.tile<16x16xf32, mat> -> !pto.tile<16x16xf32, left>
// CHECK-NEXT:    %[[YM:.*]] = pto.load %b : memref<16x16xf32> -> !pto.tile<16x16xf32, mat>
// CHECK-NEXT:    %[[YL:.*]] = pto.move %[[YM]] : !pto.tile<16x16xf32, mat> -> !pto.tile<16x16xf32, left>
// CHECK-NEXT:    %[[YR:.*]] = pto.move %[[YM]] : !pto.tile<16x16xf32, mat> -> !pto.tile<16x16xf32, right>
// CHECK-NEXT:    %r = scf.if %p -> (!pto.tile<16x16xf32, acc>) {
// CHECK-NEXT:      %m = pto.matmul %[[XL]], %[[YR]] : !pto.tile<16x16xf32, left>, !pto.tile<16x16xf32, right> -> !pto.tile<16x16xf32, acc>
// CHECK-NEXT:      scf.yield %m : !pto.tile<16x16xf32, acc>
// CHECK-NEXT:    } else {
// CHECK-NEXT:      %n = pto.matmul %[[YL]], %[[XR]] : !pto.tile<16x16xf32, left>, !pto.tile<16x16xf32, right> -> !pto.tile<16x16xf32, acc>
// CHECK-NEXT:      scf.yield %n : !pto.tile<16x16xf32, acc>
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[V:.*]] = pto.move %r : !pto.tile<16x16xf32, acc> -> !pto.tile<16x16xf32, vec>
// CHECK-NEXT:    %s = pto.relu %[[V]] : !pto.tile<16x16xf32, vec>
// CHECK-NEXT:    pto.store %s, %c : !pto.tile<16x16xf32, vec>, memref<16x16xf32>
