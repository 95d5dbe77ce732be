// RUN: pto-opt %s --split-input-file --verify-diagnostics -t aie | FileCheck %s

// Programs the AIE target cannot map: each error names the construct and the limit.
// Each chunk's checks start at the separator line pto-opt prints between chunks.

// A grid larger than the device (npu1_1col: 4 compute tiles).
wsp.kernel @k(x: in memref<16xi32>, y: out memref<16xi32>) unit(vector)
wsp.workload @w(%X: memref<8x16xi32>, %Y: memref<8x16xi32>) {
  %R = wsp.dense 8
  wsp.parallel_for %r in %R named("r") : !wsp.dense<8> {
    %x = wsp.view %X[%r] : memref<8x16xi32> -> memref<16xi32>
    %y = wsp.view %Y[%r] : memref<8x16xi32> -> memref<16xi32>
    wsp.task @k() resources(%x, %y : memref<16xi32>, memref<16xi32>)
  }
}
sched.schedule @s for @w {
  sched.spatial_map grid(8)
  sched.layout "X" (shard(0), replicate)
  sched.layout "Y" (shard(0), replicate)
}

// CHECK: errors.mlir:8:1: error: 'tg.program' op tg-to-aie: spatial_map grid (8,) needs 8 cores, but npu1_1col has 4 compute tiles (1 column x 4 rows)

// -----
// CHECK: //{{ }}-----

// A data-dependent condition: which tasks exist is known only at run time.
wsp.kernel @k(x: in memref<16xi32>, y: out memref<16xi32>) unit(vector)
wsp.workload @w(%X: memref<2x16xi32>, %Y: memref<2x16xi32>, %flags: memref<2xindex>) {
  %R = wsp.dense 2
  %c0 = arith.constant 0 : index
  wsp.parallel_for %r in %R named("r") : !wsp.dense<2> {
    %f = memref.load %flags[%r] : memref<2xindex>
    %p = arith.cmpi ne, %f, %c0 : index
    wsp.cond %p {
      %x = wsp.view %X[%r] : memref<2x16xi32> -> memref<16xi32>
      %y = wsp.view %Y[%r] : memref<2x16xi32> -> memref<16xi32>
      wsp.task @k() resources(%x, %y : memref<16xi32>, memref<16xi32>)
    } else {
    }
  }
}
sched.schedule @s for @w {
  sched.spatial_map grid(2)
  sched.layout "X" (shard(0), replicate)
  sched.layout "Y" (shard(0), replicate)
}

// CHECK: errors.mlir:35:5: error: 'scf.if' op tg-to-aie: a data-dependent condition (scf.if): which tasks exist must be static to place them on a grid of cores (a value loaded from memory

// -----
// CHECK: //{{ }}-----

// Sparse routing: the experts of a token are a CSR row read at run time.
wsp.kernel @expert(t: in memref<16xf32>, o: out memref<16xf32>) unit(cube)
wsp.workload @moe(%tokens: memref<2x16xf32>, %out: memref<2x4x16xf32>, %indptr: memref<3xindex>, %indices: memref<4xindex>) {
  %c2 = arith.constant 2 : index
  %batch = wsp.dense 2
  %routing = wsp.sparse %c2, %indptr, %indices : memref<3xindex>, memref<4xindex>
  wsp.parallel_for %b in %batch named("b") : !wsp.dense<2> {
    %t = wsp.view %tokens[%b] : memref<2x16xf32> -> memref<16xf32>
    wsp.select %e in %routing[%b] named("e") : !wsp.sparse {
      %o = wsp.view %out[%b, %e] : memref<2x4x16xf32> -> memref<16xf32>
      wsp.task @expert() resources(%t, %o : memref<16xf32>, memref<16xf32>)
    }
  }
}
sched.schedule @s for @moe {
  sched.spatial_map grid(2)
  sched.layout "tokens" (shard(0), replicate)
}

// CHECK: errors.mlir:62:5: error: 'memref.load' op tg-to-aie: loop bound: a value loaded from memory (data-dependent: sparse or ragged routing, runtime lengths) cannot steer an AIE design, whose loops and transfers are static

// -----
// CHECK: //{{ }}-----

// Too many objectfifos for a core's DMA channels: one loader feeding three workers.
wsp.kernel @load(s: in memref<16xi32>, t: out memref<16xi32>) unit(vector)
wsp.kernel @work(t: in memref<16xi32>, r: out memref<16xi32>) unit(vector)
csp.pipeline @p(%x: memref<6x16xi32>, %tiles: memref<6x16xi32>, %y: memref<6x16xi32>) {
  csp.channel @q : !wsp.task capacity(2)
  csp.process @loader produces(@q) {
    %n = wsp.dense 6
    wsp.for_each %i in %n named("i") : !wsp.dense<6> {
      %s = wsp.view %x[%i] : memref<6x16xi32> -> memref<16xi32>
      %t = wsp.view %tiles[%i] : memref<6x16xi32> -> memref<16xi32>
      csp.send @q {
        wsp.task @load() resources(%s, %t : memref<16xi32>, memref<16xi32>)
      }
    }
  }
  csp.process @worker consumes(@q) replicas(3) {
    csp.consume @q as %m : !wsp.task {
      %i = csp.coord %m[0]
      %t = wsp.view %tiles[%i] : memref<6x16xi32> -> memref<16xi32>
      %r = wsp.view %y[%i] : memref<6x16xi32> -> memref<16xi32>
      wsp.task @work() resources(%t, %r : memref<16xi32>, memref<16xi32>)
    }
  }
}

// CHECK: error: tg-to-aie: compute tile (0, 2) sends 3 objectfifos (@q_0, @q_1, @q_2), but a compute tile has 2 MM2S DMA channels

// -----
// CHECK: //{{ }}-----

// A pipeline with more cores than the device has compute tiles.
wsp.kernel @work(t: in memref<16xi32>, r: out memref<16xi32>) unit(vector)
csp.pipeline @p(%x: memref<8x16xi32>, %y: memref<8x16xi32>) {
  csp.channel @q : !wsp.task capacity(1)
  csp.process @a produces(@q) {
    %n = wsp.dense 8
    wsp.for_each %i in %n named("i") : !wsp.dense<8> {
      %s = wsp.view %x[%i] : memref<8x16xi32> -> memref<16xi32>
      %t = wsp.view %y[%i] : memref<8x16xi32> -> memref<16xi32>
      csp.send @q {
        wsp.task @work() resources(%s, %t : memref<16xi32>, memref<16xi32>)
      }
    }
  }
  csp.process @b consumes(@q) replicas(4) {
    csp.consume @q as %m : !wsp.task {
    }
  }
}

// CHECK: errors.mlir:110:1: error: 'tg.program' op tg-to-aie: pipeline @p needs 5 cores (@a x1, @b x4), but npu1_1col has 4 compute tiles (1 column x 4 rows)

// -----
// CHECK: //{{ }}-----

// A queue whose messages produce data the receiver never reads.
wsp.kernel @work(t: in memref<16xi32>, r: out memref<16xi32>) unit(vector)
csp.pipeline @p(%x: memref<4x16xi32>, %y: memref<4x16xi32>) {
  csp.channel @q : !wsp.task capacity(1)
  csp.process @a produces(@q) {
    %n = wsp.dense 4
    wsp.for_each %i in %n named("i") : !wsp.dense<4> {
      %s = wsp.view %x[%i] : memref<4x16xi32> -> memref<16xi32>
      %t = wsp.view %y[%i] : memref<4x16xi32> -> memref<16xi32>
      csp.send @q {
        wsp.task @work() resources(%s, %t : memref<16xi32>, memref<16xi32>)
      }
    }
  }
  csp.process @b consumes(@q) {
    csp.consume @q as %m : !wsp.task {
    }
  }
}

// CHECK: errors.mlir:148:5: error: 'tg.consume' op tg-to-aie: no task of @b reads y, the output of the messages on @q: on AIE a queue carries the data its message's task produces to the receiver

// -----
// CHECK: //{{ }}-----

// A core's data memory (64 KiB less the stack): two 32 KiB messages in flight (depth 2).
wsp.kernel @load(s: in memref<8192xf32>, t: out memref<8192xf32>) unit(vector)
wsp.kernel @store(t: in memref<8192xf32>, d: out memref<8192xf32>) unit(vector)
csp.pipeline @p(%x: memref<2x8192xf32>, %tiles: memref<2x8192xf32>, %y: memref<2x8192xf32>) {
  csp.channel @q : !wsp.task capacity(2)
  csp.process @a produces(@q) {
    %n = wsp.dense 2
    wsp.for_each %i in %n named("i") : !wsp.dense<2> {
      %s = wsp.view %x[%i] : memref<2x8192xf32> -> memref<8192xf32>
      %t = wsp.view %tiles[%i] : memref<2x8192xf32> -> memref<8192xf32>
      csp.send @q {
        wsp.task @load() resources(%s, %t : memref<8192xf32>, memref<8192xf32>)
      }
    }
  }
  csp.process @b consumes(@q) {
    csp.consume @q as %m : !wsp.task {
      %i = csp.coord %m[0]
      %t = wsp.view %tiles[%i] : memref<2x8192xf32> -> memref<8192xf32>
      %d = wsp.view %y[%i] : memref<2x8192xf32> -> memref<8192xf32>
      wsp.task @store() resources(%t, %d : memref<8192xf32>, memref<8192xf32>)
    }
  }
}

// CHECK: error: tg-to-aie: compute tile (0, 2) needs 65536 bytes of buffers (@q: 2 x 32768 B), but it has 64512 (64 KiB less the stack)

// -----
// CHECK: //{{ }}-----

// A written tensor must be sharded across every grid axis (each core owns its block).
wsp.kernel @k(x: in memref<16xi32>, y: out memref<16xi32>) unit(vector)
wsp.workload @w(%X: memref<2x16xi32>, %Y: memref<2x16xi32>) {
  %R = wsp.dense 2
  %C = wsp.dense 2
  wsp.parallel_for %r in %R named("r") : !wsp.dense<2> {
    wsp.parallel_for %c in %C named("c") : !wsp.dense<2> {
      %x = wsp.view %X[%r] : memref<2x16xi32> -> memref<16xi32>
      %y = wsp.view %Y[%r] : memref<2x16xi32> -> memref<16xi32>
      wsp.task @k() resources(%x, %y : memref<16xi32>, memref<16xi32>)
    }
  }
}
sched.schedule @s for @w {
  sched.spatial_map grid(2, 2)
  sched.layout "X" (shard(0), replicate)
  sched.layout "Y" (shard(0), replicate)
}

// CHECK: errors.mlir:197:7: error: 'tg.task' op tg-to-aie: Y is written but not sharded across grid axis 1: the cores along that axis would write the same block

// -----
// CHECK: //{{ }}-----

// A task reads within the block its core holds under the layout.
wsp.kernel @k(x: in memref<8xi32>, y: out memref<16xi32>) unit(vector)
wsp.workload @w(%X: memref<2x16xi32>, %Y: memref<2x16xi32>) {
  %R = wsp.dense 2
  wsp.parallel_for %r in %R named("r") : !wsp.dense<2> {
    %x = wsp.view %X[%r, 0:8] : memref<2x16xi32> -> memref<8xi32>
    %y = wsp.view %Y[%r] : memref<2x16xi32> -> memref<16xi32>
    wsp.task @k() resources(%x, %y : memref<8xi32>, memref<16xi32>)
  }
}
sched.schedule @s for @w {
  sched.spatial_map grid(2)
  sched.layout "X" (replicate, shard(0))
  sched.layout "Y" (shard(0), replicate)
}

// CHECK: errors.mlir:219:5: error: 'tg.task' op tg-to-aie: @k on core (1,) reads X[1:2, 0:8], outside the block X[0:2, 8:16] the layout of X gives that core

// -----
// CHECK: //{{ }}-----

// Neither a pipeline nor spatially mapped.
wsp.kernel @k(x: in memref<16xi32>) unit(vector)
wsp.workload @w(%X: memref<2x16xi32>) {
  %R = wsp.dense 2
  wsp.parallel_for %r in %R named("r") : !wsp.dense<2> {
    %x = wsp.view %X[%r] : memref<2x16xi32> -> memref<16xi32>
    wsp.task @k() resources(%x : memref<16xi32>)
  }
}

// CHECK: errors.mlir:235:1: error: 'tg.program' op tg-to-aie: @w is neither a pipeline (tg.process) nor spatially mapped (config spatial_map): the AIE target maps CSP pipelines and workloads with sched.spatial_map

// -----
// CHECK: //{{ }}-----

// A scalar type an AIE core call does not pass (f64; also f16): located at the task.
wsp.kernel @k(alpha: f64, x: in memref<16xi32>, y: out memref<16xi32>) unit(vector)
wsp.workload @w(%X: memref<2x16xi32>, %Y: memref<2x16xi32>) {
  %R = wsp.dense 2
  %a = arith.constant 5.000000e-01 : f64
  wsp.parallel_for %r in %R named("r") : !wsp.dense<2> {
    %x = wsp.view %X[%r] : memref<2x16xi32> -> memref<16xi32>
    %y = wsp.view %Y[%r] : memref<2x16xi32> -> memref<16xi32>
    wsp.task @k(%a : f64) resources(%x, %y : memref<16xi32>, memref<16xi32>)
  }
}
sched.schedule @s for @w {
  sched.spatial_map grid(2)
  sched.layout "X" (shard(0), replicate)
  sched.layout "Y" (shard(0), replicate)
}

// CHECK: errors.mlir:{{[0-9]+}}:5: error: 'tg.task' op tg-to-aie: kernel @k parameter alpha is f64; an AIE core passes index (as i32), i1, i32, i64 and f32 scalars
