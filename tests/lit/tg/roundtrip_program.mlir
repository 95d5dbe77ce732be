// RUN: pto-opt %s | FileCheck %s
// RUN: pto-opt %s | pto-opt | FileCheck %s
// RUN: pto-opt %s --print-op-generic | pto-opt | FileCheck %s
// RUN: pto-opt %s --print-op-generic | FileCheck %s --check-prefix=GENERIC

// The program form: the attention program of docs/tg.md (scf.for loops, memref.subview views
// with strided result types, per-task target and stream), every optional clause of tg.task,
// ordering points at any depth of a tg.ordered, tg.seq, tg.call, and every config key.

wsp.kernel @attention_kernel(b: index, h: index, len: index, Q: inout memref<64x64xf32>) unit(cube)
wsp.kernel @scale(i: index, x: in memref<16xf32>, y: out memref<16xf32>) unit(vector)
wsp.kernel @noop() unit(vector)

tg.program @attention(%Q: memref<?x8x64x64xf32>, %seq_lens: memref<?xindex>, %batch_size: index) config {dispatch = "affinity", streams = 2 : i64, timing = "immediate"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  scf.for %b = %c0 to %batch_size step %c1 {
    scf.for %h = %c0 to %c8 step %c1 {
      %len = memref.load %seq_lens[%b] : memref<?xindex>
      %q = memref.subview %Q[%b, %h, 0, 0] [1, 1, 64, 64] [1, 1, 1, 1] : memref<?x8x64x64xf32> to memref<64x64xf32, strided<[64, 1], offset: ?>>
      %s = arith.remui %b, %c2 : index
      tg.task @attention_kernel(%b, %h, %len : index, index, index) resources(%q : memref<64x64xf32, strided<[64, 1], offset: ?>>) access(inout) at(b = %b, h = %h) pool(cube) target(%b) stream(%s)
    }
  }
}

// CHECK-LABEL: tg.program @attention(%Q: memref<?x8x64x64xf32>, %seq_lens: memref<?xindex>, %batch_size: index) config {dispatch = "affinity", streams = 2 : i64, timing = "immediate"} {
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %c1 = arith.constant 1 : index
// CHECK-NEXT:    %c2 = arith.constant 2 : index
// CHECK-NEXT:    %c8 = arith.constant 8 : index
// CHECK-NEXT:    scf.for %b = %c0 to %batch_size step %c1 {
// CHECK-NEXT:      scf.for %h = %c0 to %c8 step %c1 {
// CHECK-NEXT:        %len = memref.load %seq_lens[%b] : memref<?xindex>
// CHECK-NEXT:        %q = memref.subview %Q[%b, %h, 0, 0] [1, 1, 64, 64] [1, 1, 1, 1] : memref<?x8x64x64xf32> to memref<64x64xf32, strided<[64, 1], offset: ?>>
// CHECK-NEXT:        %s = arith.remui %b, %c2 : index
// CHECK-NEXT:        tg.task @attention_kernel(%b, %h, %len : index, index, index) resources(%q : memref<64x64xf32, strided<[64, 1], offset: ?>>) access(inout) at(b = %b, h = %h) pool(cube) target(%b) stream(%s)
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:  }

// GENERIC:      "tg.program"() <{sym_name = "attention", function_type = (memref<?x8x64x64xf32>, memref<?xindex>, index) -> (), arg_names = ["Q", "seq_lens", "batch_size"], config = {dispatch = "affinity", streams = 2 : i64, timing = "immediate"}}> ({
// GENERIC:      "tg.task"(%b, %h, %len, %q, %b, %h, %b, %s) <{kernel = @attention_kernel, access = ["inout"], coord_names = ["b", "h"], domain = "host_cpu", pool = "cube", operandSegmentSizes = array<i32: 3, 1, 2, 0, 1, 1, 0>}>
// GENERIC:      "tg.yield"() : () -> ()

// for_each over i and sequential {A; B} inside it: ordering points at two depths of one
// tg.ordered; a dynamic pool, a priority, every domain, tg.seq for round-robin dispatch.
tg.program @ordered(%n: index, %X: memref<?x16xf32>, %Y: memref<?x16xf32>) config {dispatch = "round_robin", workers = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  tg.ordered {
    scf.for %i = %c0 to %n step %c1 {
      %x = memref.subview %X[%i, 0] [1, 16] [1, 1] : memref<?x16xf32> to memref<16xf32, strided<[1], offset: ?>>
      %y = memref.subview %Y[%i, 0] [1, 16] [1, 1] : memref<?x16xf32> to memref<16xf32, strided<[1], offset: ?>>
      tg.ordered {
        %seq = tg.seq
        %w = arith.remui %seq, %c4 : index
        tg.task @scale(%i : index) resources(%x, %y : memref<16xf32, strided<[1], offset: ?>>, memref<16xf32, strided<[1], offset: ?>>) access(in, out) at(i = %i) domain(aicore) pool(%i) target(%w) priority(%i)
        tg.order_point
        tg.task @scale(%i : index) resources(%y, %x : memref<16xf32, strided<[1], offset: ?>>, memref<16xf32, strided<[1], offset: ?>>) access(in, out) at(i = %i) domain(aie_tile) pool(vector) stream(%c0)
      }
      tg.order_point
    }
  }
  tg.task @noop() resources() pool(any)
  tg.call @config() attributes {note = "a call"}
}

// CHECK-LABEL: tg.program @ordered(%n: index, %X: memref<?x16xf32>, %Y: memref<?x16xf32>) config {dispatch = "round_robin", workers = 4 : i64} {
// CHECK:         tg.ordered {
// CHECK-NEXT:      scf.for %i = %c0 to %n step %c1 {
// CHECK-NEXT:        %x = memref.subview %X[%i, 0] [1, 16] [1, 1] : memref<?x16xf32> to memref<16xf32, strided<[1], offset: ?>>
// CHECK-NEXT:        %y = memref.subview %Y[%i, 0] [1, 16] [1, 1] : memref<?x16xf32> to memref<16xf32, strided<[1], offset: ?>>
// CHECK-NEXT:        tg.ordered {
// CHECK-NEXT:          %seq = tg.seq
// CHECK-NEXT:          %w = arith.remui %seq, %c4 : index
// CHECK-NEXT:          tg.task @scale(%i : index) resources(%x, %y : memref<16xf32, strided<[1], offset: ?>>, memref<16xf32, strided<[1], offset: ?>>) access(in, out) at(i = %i) domain(aicore) pool(%i) target(%w) priority(%i)
// CHECK-NEXT:          tg.order_point
// CHECK-NEXT:          tg.task @scale(%i : index) resources(%y, %x : memref<16xf32, strided<[1], offset: ?>>, memref<16xf32, strided<[1], offset: ?>>) access(in, out) at(i = %i) domain(aie_tile) pool(vector) stream(%c0)
// CHECK-NEXT:        }
// CHECK-NEXT:        tg.order_point
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    tg.task @noop() resources() pool(any)
// CHECK-NEXT:    tg.call @config() attributes {note = "a call"}
// CHECK-NEXT:  }

// Every config key; a program without arguments or config; a #tg.region attribute.
tg.program @config() config {dispatch = "work_steal", workers = 8 : i64, streams = 2 : i64, ready = "priority", timing = "batched", timing_n = 16 : i64, task_window = 8192 : i64, window_overflow = "abort", pipeline_depth = 2 : i64, depth_scope = "per_pool", batch_deps = 64 : i64, spatial_map = array<i64: 4, 4>, layouts = {}, extensions = ["npu.double_buffer"]} {
}
tg.program @empty() attributes {r = #tg.region<Q[0, 0][1, 64][1, 1] inout>} {
}

// CHECK-LABEL: tg.program @config() config {dispatch = "work_steal", workers = 8 : i64, streams = 2 : i64, ready = "priority", timing = "batched", timing_n = 16 : i64, task_window = 8192 : i64, window_overflow = "abort", pipeline_depth = 2 : i64, depth_scope = "per_pool", batch_deps = 64 : i64, spatial_map = array<i64: 4, 4>, layouts = {}, extensions = ["npu.double_buffer"]} {
// CHECK-NEXT:  }
// CHECK-NEXT:  tg.program @empty() attributes {r = #tg.region<Q[0, 0][1, 64][1, 1] inout>} {
// CHECK-NEXT:  }

// layouts name memref arguments (grid axis per dimension, -1 = replicate).
tg.program @layouts(%Q: memref<8x64xf32>, %n: index) config {spatial_map = array<i64: 2, 2>, layouts = {Q = array<i64: 1, -1>}} {
}

// CHECK-LABEL: tg.program @layouts(%Q: memref<8x64xf32>, %n: index) config {spatial_map = array<i64: 2, 2>, layouts = {Q = array<i64: 1, -1>}} {
