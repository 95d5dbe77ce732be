// What .pto says beyond seed 000 §8.2: two-index loops over Ragged and Sparse axes, select,
// runtime slices (off:+size) and runtime view entries that happen to be constants ((0)),
// index arithmetic, calls with a schedule, npu workloads, events, replicas and every
// schedule directive. Printed, read back and printed again gives the same text and IR.
// RUN: pto-opt %s -t pto | filecheck %s
// RUN: pto-opt %s -t pto > %t.pto
// RUN: pto-opt %t.pto -t pto | diff %t.pto -
// The static entry stays static, the constant one stays a runtime operand:
// RUN: pto-opt %t.pto | filecheck %s --check-prefix=IR

module @extras attributes {pto.version = "9.1", pto.targets = ["cpu_sim", "amd_aie"]} {
  wsp.kernel @k(i: index, x: inout memref<?xf32>) unit(vector)
  wsp.kernel @k2(x: in memref<4xf32>, y: out memref<4xf32>) unit(cube) cost {
  ^bb0(%x: memref<4xf32>, %y: memref<4xf32>):
    %c = arith.constant 7 : index
    wsp.yield %c : index
  }
  wsp.workload @inner(%i: index, %X: memref<?x16xf32>) level(npu) {
    %c0 = arith.constant 0 : index
    %x = wsp.view %X[%i, %c0:+%i] : memref<?x16xf32> -> memref<?xf32>
    wsp.task @k(%i : index) resources(%x : memref<?xf32>)
  }
  wsp.workload @outer(%n: index, %lengths: memref<?xindex>, %ptr: memref<?xindex>, %idx: memref<?xindex>, %X: memref<?x16xf32>, %Y: memref<8x4xf32>) {
    %rows = wsp.ragged %n, %lengths : memref<?xindex>
    %c3 = arith.constant 3 : index
    %sp = wsp.sparse %n, %ptr, %idx : memref<?xindex>, memref<?xindex>
    %z = wsp.view %Y[1] : memref<8x4xf32> -> memref<4xf32>
    %rows2 = wsp.dense_dyn %n
    wsp.combine {
      wsp.parallel_for %r, %j in %rows named("r", "j") : !wsp.ragged {
        %a = arith.muli %r, %c3 : index
        %b = arith.addi %a, %j : index
        %c = arith.subi %b, %j : index
        %d = arith.divui %c, %c3 : index
        wsp.call @inner(%d, %X : index, memref<?x16xf32>) schedule(@inner_sched)
      }
      wsp.for_each %r, %e in %sp named("r", "e") : !wsp.sparse {
        %y = wsp.view %Y[%e] : memref<8x4xf32> -> memref<4xf32>
        wsp.task @k2() resources(%y, %z : memref<4xf32>, memref<4xf32>)
      }
      wsp.parallel_for %b in %rows2 named("b") : !wsp.dense_dyn {
        wsp.select %e in %sp[%b] named("e") : !wsp.sparse {
          %p = arith.cmpi ne, %e, %b : index
          wsp.cond %p {
            %y = wsp.view %Y[%e] : memref<8x4xf32> -> memref<4xf32>
            wsp.task @k2() resources(%y, %y : memref<4xf32>, memref<4xf32>)
          }
        }
      }
    }
  }
  sched.schedule @inner_sched for @inner {
    sched.dispatch round_robin(4)
  }
  sched.schedule @outer_sched for @outer {
    sched.dispatch dispatch_by key(%b = "b", %e = "e") {
      %s = arith.addi %b, %e : index
      sched.yield %s : index
    }
    sched.issue priority key(%r = "r") {
      sched.yield %r : index
    }
    sched.timing batched(16)
    sched.spatial_map grid(2, 2)
    sched.layout "Y" (shard(1), replicate)
    sched.dispatch_threshold 100 below(vector) above(cube) key(%j = "j") {
      %c2 = arith.constant 2 : index
      %m = arith.muli %j, %c2 : index
      sched.yield %m : index
    }
    sched.pipeline_depth 2 scope(per_stream)
    sched.task_window 64 overflow(abort)
    sched.batch_deps 8
  }
  csp.pipeline @events(%n: index, %X: memref<?x16xf32>) {
    csp.channel @q : !wsp.task capacity(0)
    csp.channel @done : !csp.signal capacity(0)
    csp.process @producer consumes(@done) produces(@q) {
      %tiles = wsp.dense_dyn %n
      wsp.sequential {
        wsp.for_each %i in %tiles named("i") : !wsp.dense_dyn {
          csp.send @q {
            wsp.call @inner(%i, %X : index, memref<?x16xf32>)
            wsp.call @inner(%i, %X : index, memref<?x16xf32>)
          }
        }
        csp.synchronize @done
      }
    }
    csp.process @worker consumes(@q) produces(@done) replicas(3) {
      csp.consume @q as %t : !wsp.task {
        csp.record @done
      }
    }
  }
}

// CHECK: // PTO Module: extras
// CHECK-NEXT: // Version: 9.1
// CHECK-NEXT: // Target: cpu_sim | amd_aie
// CHECK-EMPTY:
// CHECK-NEXT: @kernel k(i: index, x: inout memref<?xf32>) unit(vector)
// CHECK-EMPTY:
// CHECK-NEXT: @kernel k2(x: in memref<4xf32>, y: out memref<4xf32>) unit(cube) cost {
// CHECK-NEXT: ^bb0(%x: memref<4xf32>, %y: memref<4xf32>):
// CHECK-NEXT:   %c = arith.constant 7 : index
// CHECK-NEXT:   wsp.yield %c : index
// CHECK-NEXT: }
// CHECK-EMPTY:
// CHECK-NEXT: @workload[npu] inner(%i: index, %X: memref<?x16xf32>) {
// CHECK-NEXT:   task @k(%i) resources(%X[%i][(0):+%i])
// CHECK-NEXT: }
// CHECK-EMPTY:
// CHECK-NEXT: @workload outer(%n: index, %lengths: memref<?xindex>, %ptr: memref<?xindex>, %idx: memref<?xindex>, %X: memref<?x16xf32>, %Y: memref<8x4xf32>) {
// CHECK-NEXT:   combine {
// CHECK-NEXT:     parallel_for %r, %j in Ragged(%n, %lengths) {
// CHECK-NEXT:       call @inner with @inner_sched((%r * 3 + %j - %j) / 3) resources(%X)
// CHECK-NEXT:     }
// CHECK-NEXT:     for_each %r, %e in Sparse(%n, %ptr, %idx) {
// CHECK-NEXT:       task @k2() resources(%Y[%e], %Y[1])
// CHECK-NEXT:     }
// CHECK-NEXT:     parallel_for %b in DenseDyn(%n) {
// CHECK-NEXT:       select %e in Sparse(%n, %ptr, %idx)[%b] {
// CHECK-NEXT:         cond %e != %b {
// CHECK-NEXT:           task @k2() resources(%Y[%e], %Y[%e])
// CHECK-NEXT:         } else {
// CHECK-NEXT:         }
// CHECK-NEXT:       }
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK-EMPTY:
// CHECK-NEXT: @schedule inner_sched for @inner {
// CHECK-NEXT:   dispatch = round_robin(4)
// CHECK-NEXT: }
// CHECK-EMPTY:
// CHECK-NEXT: @schedule outer_sched for @outer {
// CHECK-NEXT:   dispatch = dispatch_by(%b + %e)
// CHECK-NEXT:   issue = priority(%r)
// CHECK-NEXT:   timing = batched(16)
// CHECK-NEXT:   spatial_map = (2, 2)
// CHECK-NEXT:   layout %Y = (Shard(1), Replicate)
// CHECK-NEXT:   dispatch_threshold = 100 below(vector) above(cube) by(%j * 2)
// CHECK-NEXT:   pipeline_depth = 2 scope(per_stream)
// CHECK-NEXT:   task_window = 64 overflow(abort)
// CHECK-NEXT:   batch_deps = 8
// CHECK-NEXT: }
// CHECK-EMPTY:
// CHECK-NEXT: @pipeline events(%n: index, %X: memref<?x16xf32>) {
// CHECK-NEXT:   channel %q : Channel[Task, 0]
// CHECK-NEXT:   channel %done : Channel[Signal, 0]
// CHECK-NEXT:   process @producer consumes(%done) produces(%q) {
// CHECK-NEXT:     sequential {
// CHECK-NEXT:       for_each %i in DenseDyn(%n) {
// CHECK-NEXT:         send %q, combine {
// CHECK-NEXT:           call @inner(%i) resources(%X)
// CHECK-NEXT:           call @inner(%i) resources(%X)
// CHECK-NEXT:         }
// CHECK-NEXT:       }
// CHECK-NEXT:       synchronize %done
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT:   process @worker consumes(%q) produces(%done) replicas(3) {
// CHECK-NEXT:     consume %q as %t {
// CHECK-NEXT:       record %done
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT: }

// IR:      wsp.workload @inner(%i: index, %X: memref<?x16xf32>) level(npu) {
// IR-NEXT:   %[[C0:.*]] = arith.constant 0 : index
// IR-NEXT:   %{{.*}} = wsp.view %X[%i, %[[C0]]:+%i] : memref<?x16xf32> -> memref<?xf32>
// IR:        %{{.*}} = wsp.view %Y[1] : memref<8x4xf32> -> memref<4xf32>
