// RUN: pto-opt %s | FileCheck %s
// RUN: pto-opt %s | pto-opt | FileCheck %s
// RUN: pto-opt %s --print-op-generic | pto-opt | FileCheck %s
// RUN: pto-opt %s --print-op-generic | FileCheck %s --check-prefix=GENERIC

// A pipeline program (csp-to-tg's form of the megakernel of seed 001 §9.3): queues with
// capacities, an event, replicated processes, send with the sender's coordinates, consume,
// coord, record and synchronize. The replica index is the process's block argument.

wsp.kernel @load_kernel(i: index, src: in memref<64xf32>, dst: out memref<64xf32>) unit(vector)
wsp.kernel @compute_kernel(i: index, buf: inout memref<64xf32>) unit(vector)
wsp.kernel @store_kernel(i: index, res: in memref<64xf32>, dst: out memref<64xf32>) unit(vector)

tg.program @megakernel(%num_tiles: index, %input: memref<?x64xf32>, %output: memref<?x64xf32>, %buf: memref<64xf32>) config {dispatch = "dispatch_by", workers = 4 : i64} {
  tg.queue @l2c : !wsp.task capacity(2)
  tg.queue @c2s : !wsp.task capacity(0)
  tg.queue @done : !csp.signal capacity(0)
  tg.process @loader {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    tg.ordered {
      scf.for %i = %c0 to %num_tiles step %c1 {
        %v = memref.subview %input[%i, 0] [1, 64] [1, 1] : memref<?x64xf32> to memref<64xf32, strided<[1], offset: ?>>
        tg.send @l2c at(i = %i) {
          tg.task @load_kernel(%i : index) resources(%v, %buf : memref<64xf32, strided<[1], offset: ?>>, memref<64xf32>) access(in, out) at(i = %i) pool(vector)
        }
        tg.order_point
      }
    }
  }
  tg.process @computer replicas(4) as %r {
    tg.consume @l2c as %tile : !wsp.task {
      %ci = tg.coord %tile[0]
      tg.send @c2s at(i = %ci) {
        tg.task @compute_kernel(%ci : index) resources(%buf : memref<64xf32>) access(inout) at(replica = %r, i = %ci) pool(vector) target(%r)
      }
    }
    tg.record @done
  }
  tg.process @storer {
    tg.consume @c2s as %res : !wsp.task {
      %si = tg.coord %res[0]
      %o = memref.subview %output[%si, 0] [1, 64] [1, 1] : memref<?x64xf32> to memref<64xf32, strided<[1], offset: ?>>
      tg.task @store_kernel(%si : index) resources(%buf, %o : memref<64xf32>, memref<64xf32, strided<[1], offset: ?>>) access(in, out) at(i = %si) pool(any)
    }
    tg.synchronize @done
  }
}

// CHECK-LABEL: tg.program @megakernel(%num_tiles: index, %input: memref<?x64xf32>, %output: memref<?x64xf32>, %buf: memref<64xf32>) config {dispatch = "dispatch_by", workers = 4 : i64} {
// CHECK-NEXT:    tg.queue @l2c : !wsp.task capacity(2)
// CHECK-NEXT:    tg.queue @c2s : !wsp.task capacity(0)
// CHECK-NEXT:    tg.queue @done : !csp.signal capacity(0)
// CHECK-NEXT:    tg.process @loader {
// CHECK-NEXT:      %c0 = arith.constant 0 : index
// CHECK-NEXT:      %c1 = arith.constant 1 : index
// CHECK-NEXT:      tg.ordered {
// CHECK-NEXT:        scf.for %i = %c0 to %num_tiles step %c1 {
// CHECK-NEXT:          %v = memref.subview %input[%i, 0] [1, 64] [1, 1] : memref<?x64xf32> to memref<64xf32, strided<[1], offset: ?>>
// CHECK-NEXT:          tg.send @l2c at(i = %i) {
// CHECK-NEXT:            tg.task @load_kernel(%i : index) resources(%v, %buf : memref<64xf32, strided<[1], offset: ?>>, memref<64xf32>) access(in, out) at(i = %i) pool(vector)
// CHECK-NEXT:          }
// CHECK-NEXT:          tg.order_point
// CHECK-NEXT:        }
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    tg.process @computer replicas(4) as %r {
// CHECK-NEXT:      tg.consume @l2c as %tile : !wsp.task {
// CHECK-NEXT:        %ci = tg.coord %tile[0]
// CHECK-NEXT:        tg.send @c2s at(i = %ci) {
// CHECK-NEXT:          tg.task @compute_kernel(%ci : index) resources(%buf : memref<64xf32>) access(inout) at(replica = %r, i = %ci) pool(vector) target(%r)
// CHECK-NEXT:        }
// CHECK-NEXT:      }
// CHECK-NEXT:      tg.record @done
// CHECK-NEXT:    }
// CHECK-NEXT:    tg.process @storer {
// CHECK-NEXT:      tg.consume @c2s as %res : !wsp.task {
// CHECK-NEXT:        %si = tg.coord %res[0]
// CHECK-NEXT:        %o = memref.subview %output[%si, 0] [1, 64] [1, 1] : memref<?x64xf32> to memref<64xf32, strided<[1], offset: ?>>
// CHECK-NEXT:        tg.task @store_kernel(%si : index) resources(%buf, %o : memref<64xf32>, memref<64xf32, strided<[1], offset: ?>>) access(in, out) at(i = %si) pool(any)
// CHECK-NEXT:      }
// CHECK-NEXT:      tg.synchronize @done
// CHECK-NEXT:    }
// CHECK-NEXT:  }

// GENERIC:      "tg.queue"() <{sym_name = "l2c", element_type = !wsp.task, capacity = 2 : i64}> : () -> ()
// GENERIC:      "tg.process"() <{sym_name = "loader", replicas = 1 : i64}> ({
// GENERIC-NEXT: ^bb0(%replica: index):
// GENERIC:      "tg.send"(%i) <{queue = @l2c, coord_names = ["i"]}> ({
// GENERIC:      "tg.process"() <{sym_name = "computer", replicas = 4 : i64}> ({
// GENERIC-NEXT: ^bb0(%r: index):
// GENERIC:      "tg.consume"() <{queue = @l2c}> ({
// GENERIC-NEXT: ^bb0(%tile: !wsp.task):
// GENERIC-NEXT:   %ci = "tg.coord"(%tile) <{position = 0 : i64}> : (!wsp.task) -> index
// GENERIC:      "tg.record"() <{queue = @done}> : () -> ()
// GENERIC:      "tg.synchronize"() <{queue = @done}> : () -> ()

// An unused replica index is left out of the custom form; attributes on every op.
tg.program @p() {
  tg.queue @q : !wsp.task capacity(1) attributes {note = 1 : i64}
  tg.queue @ev : !csp.signal capacity(0)
  tg.process @a replicas(2) as %unused attributes {note = 2 : i64} {
    tg.send @q attributes {note = 3 : i64} {
    }
    tg.record @ev attributes {note = 4 : i64}
  }
  tg.process @b {
    tg.consume @q as %m : !wsp.task attributes {note = 5 : i64} {
      %k = tg.coord %m[1] {note = 6 : i64}
    }
    tg.synchronize @ev attributes {note = 7 : i64}
  }
}

// CHECK-LABEL: tg.program @p() {
// CHECK-NEXT:    tg.queue @q : !wsp.task capacity(1) attributes {note = 1 : i64}
// CHECK-NEXT:    tg.queue @ev : !csp.signal capacity(0)
// CHECK-NEXT:    tg.process @a replicas(2) attributes {note = 2 : i64} {
// CHECK-NEXT:      tg.send @q attributes {note = 3 : i64} {
// CHECK-NEXT:      }
// CHECK-NEXT:      tg.record @ev attributes {note = 4 : i64}
// CHECK-NEXT:    }
// CHECK-NEXT:    tg.process @b {
// CHECK-NEXT:      tg.consume @q as %m : !wsp.task attributes {note = 5 : i64} {
// CHECK-NEXT:        %k = tg.coord %m[1] {note = 6 : i64}
// CHECK-NEXT:      }
// CHECK-NEXT:      tg.synchronize @ev attributes {note = 7 : i64}
// CHECK-NEXT:    }
// CHECK-NEXT:  }
