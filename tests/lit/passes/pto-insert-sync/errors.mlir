// RUN: not pto-opt %s -p pto-insert-sync 2>&1 | FileCheck %s

// Nine tiles loaded (MTE2) before the vector unit (V) reads the first: nine MTE2 -> V
// events pending at once, one more than the eight event ids. The error is at the read
// whose wait finds no free id.
func.func @nine(%x: memref<16x16xf32>) attributes {pto.func_type = #pto.func_type<incore>} {
  %t0 = pto.load %x : memref<16x16xf32> -> !pto.tile<16x16xf32, vec>
  %t1 = pto.load %x : memref<16x16xf32> -> !pto.tile<16x16xf32, vec>
  %t2 = pto.load %x : memref<16x16xf32> -> !pto.tile<16x16xf32, vec>
  %t3 = pto.load %x : memref<16x16xf32> -> !pto.tile<16x16xf32, vec>
  %t4 = pto.load %x : memref<16x16xf32> -> !pto.tile<16x16xf32, vec>
  %t5 = pto.load %x : memref<16x16xf32> -> !pto.tile<16x16xf32, vec>
  %t6 = pto.load %x : memref<16x16xf32> -> !pto.tile<16x16xf32, vec>
  %t7 = pto.load %x : memref<16x16xf32> -> !pto.tile<16x16xf32, vec>
  %t8 = pto.load %x : memref<16x16xf32> -> !pto.tile<16x16xf32, vec>
  %a0 = pto.add %t0, %t0 : !pto.tile<16x16xf32, vec>
  %a1 = pto.add %a0, %t1 : !pto.tile<16x16xf32, vec>
  %a2 = pto.add %a1, %t2 : !pto.tile<16x16xf32, vec>
  %a3 = pto.add %a2, %t3 : !pto.tile<16x16xf32, vec>
  %a4 = pto.add %a3, %t4 : !pto.tile<16x16xf32, vec>
  %a5 = pto.add %a4, %t5 : !pto.tile<16x16xf32, vec>
  %a6 = pto.add %a5, %t6 : !pto.tile<16x16xf32, vec>
  %a7 = pto.add %a6, %t7 : !pto.tile<16x16xf32, vec>
  %a8 = pto.add %a7, %t8 : !pto.tile<16x16xf32, vec>
  pto.store %a8, %x : !pto.tile<16x16xf32, vec>, memref<16x16xf32>
  func.return
}
// CHECK: errors.mlir:[[# @LINE - 4]]:9: error: 'pto.add' op pto-insert-sync: more than 8 MTE2 -> V events pending at once here
