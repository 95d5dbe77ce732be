// RUN: pto-opt %s | FileCheck %s --match-full-lines
// RUN: pto-opt %s | pto-opt | FileCheck %s --match-full-lines
// RUN: pto-opt %s --print-op-generic | pto-opt | FileCheck %s --match-full-lines

// wsp.view: every entry form. An index (%i or an integer) drops its dimension; lo:hi is a
// static slice; off:+size a slice whose offset and/or size are runtime indices; the
// dimensions after the last entry are taken whole. A static off:+size is printed lo:hi.

builtin.module {
  wsp.workload @views(%Q: memref<4x8x64x128xf16>, %D: memref<?x?xf32>, %i: index, %o: index, %n: index) {
    %whole = wsp.view %Q[] : memref<4x8x64x128xf16> -> memref<4x8x64x128xf16>
    %idx = wsp.view %Q[%i] : memref<4x8x64x128xf16> -> memref<8x64x128xf16>
    %idx2 = wsp.view %Q[%i, %o] : memref<4x8x64x128xf16> -> memref<64x128xf16>
    %int = wsp.view %Q[3] : memref<4x8x64x128xf16> -> memref<8x64x128xf16>
    %first = wsp.view %Q[0, 0, 0, 0] : memref<4x8x64x128xf16> -> memref<f16>
    %static = wsp.view %Q[%i, %o, 0:64] : memref<4x8x64x128xf16> -> memref<64x128xf16>
    %tile = wsp.view %Q[1:3, 2:6, 16:48, 0:128] : memref<4x8x64x128xf16> -> memref<2x4x32x128xf16>
    %plus = wsp.view %Q[2:+2] : memref<4x8x64x128xf16> -> memref<2x8x64x128xf16>
    %empty = wsp.view %Q[4:4] : memref<4x8x64x128xf16> -> memref<0x8x64x128xf16>
    %dynoff = wsp.view %Q[%i, %o, %o:+16] : memref<4x8x64x128xf16> -> memref<16x128xf16>
    %dynboth = wsp.view %Q[%i, %o, %o:+%n] : memref<4x8x64x128xf16> -> memref<?x128xf16>
    %dynsize = wsp.view %Q[%i, %o, 4:+%n, %o:+%n] : memref<4x8x64x128xf16> -> memref<?x?xf16>
    %mixed = wsp.view %Q[3, 0:8, %o:+16, %o:+%n] : memref<4x8x64x128xf16> -> memref<8x16x?xf16>
    %attr = wsp.view %Q[%i] {note = "q"} : memref<4x8x64x128xf16> -> memref<8x64x128xf16>
    %row = wsp.view %D[%i] : memref<?x?xf32> -> memref<?xf32>
    %far = wsp.view %D[1000, 5:+%n] : memref<?x?xf32> -> memref<?xf32>
    %cols = wsp.view %D[0:10, 100:200] : memref<?x?xf32> -> memref<10x100xf32>
    %nested = wsp.view %tile[%i, 1:3] : memref<2x4x32x128xf16> -> memref<2x32x128xf16>
  }
}

// CHECK:      builtin.module {
// CHECK-NEXT:   wsp.workload @views(%Q: memref<4x8x64x128xf16>, %D: memref<?x?xf32>, %i: index, %o: index, %n: index) {
// CHECK-NEXT:     %whole = wsp.view %Q[] : memref<4x8x64x128xf16> -> memref<4x8x64x128xf16>
// CHECK-NEXT:     %idx = wsp.view %Q[%i] : memref<4x8x64x128xf16> -> memref<8x64x128xf16>
// CHECK-NEXT:     %idx2 = wsp.view %Q[%i, %o] : memref<4x8x64x128xf16> -> memref<64x128xf16>
// CHECK-NEXT:     %int = wsp.view %Q[3] : memref<4x8x64x128xf16> -> memref<8x64x128xf16>
// CHECK-NEXT:     %first = wsp.view %Q[0, 0, 0, 0] : memref<4x8x64x128xf16> -> memref<f16>
// CHECK-NEXT:     %static = wsp.view %Q[%i, %o, 0:64] : memref<4x8x64x128xf16> -> memref<64x128xf16>
// CHECK-NEXT:     %tile = wsp.view %Q[1:3, 2:6, 16:48, 0:128] : memref<4x8x64x128xf16> -> memref<2x4x32x128xf16>
// CHECK-NEXT:     %plus = wsp.view %Q[2:4] : memref<4x8x64x128xf16> -> memref<2x8x64x128xf16>
// CHECK-NEXT:     %empty = wsp.view %Q[4:4] : memref<4x8x64x128xf16> -> memref<0x8x64x128xf16>
// CHECK-NEXT:     %dynoff = wsp.view %Q[%i, %o, %o:+16] : memref<4x8x64x128xf16> -> memref<16x128xf16>
// CHECK-NEXT:     %dynboth = wsp.view %Q[%i, %o, %o:+%n] : memref<4x8x64x128xf16> -> memref<?x128xf16>
// CHECK-NEXT:     %dynsize = wsp.view %Q[%i, %o, 4:+%n, %o:+%n] : memref<4x8x64x128xf16> -> memref<?x?xf16>
// CHECK-NEXT:     %mixed = wsp.view %Q[3, 0:8, %o:+16, %o:+%n] : memref<4x8x64x128xf16> -> memref<8x16x?xf16>
// CHECK-NEXT:     %attr = wsp.view %Q[%i] {note = "q"} : memref<4x8x64x128xf16> -> memref<8x64x128xf16>
// CHECK-NEXT:     %row = wsp.view %D[%i] : memref<?x?xf32> -> memref<?xf32>
// CHECK-NEXT:     %far = wsp.view %D[1000, 5:+%n] : memref<?x?xf32> -> memref<?xf32>
// CHECK-NEXT:     %cols = wsp.view %D[0:10, 100:200] : memref<?x?xf32> -> memref<10x100xf32>
// CHECK-NEXT:     %nested = wsp.view %tile[%i, 1:3] : memref<2x4x32x128xf16> -> memref<2x32x128xf16>
// CHECK-NEXT:   }
// CHECK-NEXT: }
