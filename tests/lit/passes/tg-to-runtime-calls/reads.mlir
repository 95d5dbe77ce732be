// RUN: pto-opt %s -p tg-to-runtime-calls | FileCheck %s

// Before: four stages at the program's top level: @fill writes tiles of %A; @scale reads
// them and the weights %W, and writes %B; @sum reads %A and %B and updates %C; @mix reads
// %C and tiles of %D, and writes those tiles of %D.
// After: each region's access in the site table (an entry: site, kernel, domain, pool,
// target, stream, priority, varying, scalars, coordinates, regions, then per region tensor,
// access, rank). A read of a tensor no task writes is 4 (%W: the core's TensorMap never sees
// it); a read whose tensor's every writing task site lies in an earlier top-level op is 3
// (the core looks its writers up and records nothing: %A in @scale and @sum, %B in @sum, %C
// in @mix); every other access keeps its mode (0 in, 1 out, 2 inout): %C's inout in @sum,
// and @mix's read of %D, which @mix itself writes.

wsp.kernel @fill(t: out memref<4xf32>) unit(vector)
wsp.kernel @scale(a: in memref<4xf32>, w: in memref<4xf32>, b: out memref<4xf32>) unit(vector)
wsp.kernel @sum(a: in memref<4xf32>, b: in memref<4xf32>, c: inout memref<4xf32>) unit(vector)
wsp.kernel @mix(c: in memref<4xf32>, d: in memref<4xf32>, e: out memref<4xf32>) unit(vector)

tg.program @p(%A: memref<16xf32>, %B: memref<16xf32>, %C: memref<4xf32>, %W: memref<4xf32>, %D: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %o = arith.muli %i, %c4 : index
    %a = memref.subview %A[%o] [4] [1] : memref<16xf32> to memref<4xf32, strided<[1], offset: ?>>
    tg.task @fill() resources(%a : memref<4xf32, strided<[1], offset: ?>>) access(out) at(i = %i) pool(vector)
  }
  scf.for %i = %c0 to %c4 step %c1 {
    %o = arith.muli %i, %c4 : index
    %a = memref.subview %A[%o] [4] [1] : memref<16xf32> to memref<4xf32, strided<[1], offset: ?>>
    %b = memref.subview %B[%o] [4] [1] : memref<16xf32> to memref<4xf32, strided<[1], offset: ?>>
    tg.task @scale() resources(%a, %W, %b : memref<4xf32, strided<[1], offset: ?>>, memref<4xf32>, memref<4xf32, strided<[1], offset: ?>>) access(in, in, out) at(i = %i) pool(vector)
  }
  scf.for %i = %c0 to %c4 step %c1 {
    %o = arith.muli %i, %c4 : index
    %a = memref.subview %A[%o] [4] [1] : memref<16xf32> to memref<4xf32, strided<[1], offset: ?>>
    %b = memref.subview %B[%o] [4] [1] : memref<16xf32> to memref<4xf32, strided<[1], offset: ?>>
    tg.task @sum() resources(%a, %b, %C : memref<4xf32, strided<[1], offset: ?>>, memref<4xf32, strided<[1], offset: ?>>, memref<4xf32>) access(in, in, inout) at(i = %i) pool(vector)
  }
  scf.for %i = %c0 to %c4 step %c1 {
    %o = arith.muli %i, %c4 : index
    %d = memref.subview %D[%o] [4] [1] : memref<16xf32> to memref<4xf32, strided<[1], offset: ?>>
    %e = memref.subview %D[%o] [4] [1] : memref<16xf32> to memref<4xf32, strided<[1], offset: ?>>
    tg.task @mix() resources(%C, %d, %e : memref<4xf32>, memref<4xf32, strided<[1], offset: ?>>, memref<4xf32, strided<[1], offset: ?>>) access(in, in, out) at(i = %i) pool(vector)
  }
}

// CHECK:      "memref.global"() <{sym_name = "__pto_sites_p", type = memref<74xi64>, initial_value = dense<[
// CHECK-SAME: 0, 0, 0, 0, -1, 0, 0, 0, 0, 1, 1, 0, 1, 1,
// CHECK-SAME: 1, 1, 0, 0, -1, 0, 0, 0, 0, 1, 3, 0, 3, 1, 3, 4, 1, 1, 1, 1,
// CHECK-SAME: 2, 2, 0, 0, -1, 0, 0, 0, 0, 1, 3, 0, 3, 1, 1, 3, 1, 2, 2, 1,
// CHECK-SAME: 3, 3, 0, 0, -1, 0, 0, 0, 0, 1, 3, 2, 3, 1, 4, 0, 1, 4, 1, 1]>
