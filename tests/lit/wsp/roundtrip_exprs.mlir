// RUN: pto-opt %s | FileCheck %s --match-full-lines
// RUN: pto-opt %s | pto-opt | FileCheck %s --match-full-lines
// RUN: pto-opt %s --print-op-generic | pto-opt | FileCheck %s --match-full-lines

// Workload expressions: parallel_for and for_each over each axis kind (two indices, row and
// j, over Ragged and Sparse), select, cond with and without else, combine, sequential,
// task and call. An empty else region is not printed.

builtin.module {
  wsp.kernel @attn(b: index, h: index, Q: in memref<64x128xf16>, K: in memref<128x128xf16>, O: out memref<64x128xf16>) unit(cube) cost(64)
  wsp.kernel @nop()
  wsp.kernel @step(i: index)
  wsp.kernel @fill(Y: out memref<16xf32>)
  wsp.kernel @pair(i: index, j: index, X: in memref<16xf32>, Y: inout memref<16xf32>)

  // Seed 001 §3.1: parallel_for(Dense<4>, b -> parallel_for(Dense<8>, h -> task(attn, ...))).
  wsp.workload @attention(%batch: !wsp.dense<4>, %heads: !wsp.dense<8>, %Q: memref<4x8x64x128xf16>, %K: memref<4x128x128xf16>, %O: memref<4x8x64x128xf16>) {
    wsp.parallel_for %b in %batch named("b") : !wsp.dense<4> {
      wsp.parallel_for %h in %heads named("h") : !wsp.dense<8> {
        %q = wsp.view %Q[%b, %h] : memref<4x8x64x128xf16> -> memref<64x128xf16>
        %k = wsp.view %K[%b] : memref<4x128x128xf16> -> memref<128x128xf16>
        %o = wsp.view %O[%b, %h] : memref<4x8x64x128xf16> -> memref<64x128xf16>
        wsp.task @attn(%b, %h : index, index) resources(%q, %k, %o : memref<64x128xf16>, memref<128x128xf16>, memref<64x128xf16>)
      }
    }
  }

  wsp.workload @loops(%n: index, %lens: memref<?xi64>, %ip: memref<?xindex>, %ix: memref<?xi32>, %X: memref<?x16xf32>) {
    %d = wsp.dense 4
    %dd = wsp.dense_dyn %n
    %r = wsp.ragged %n, %lens : memref<?xi64>
    %s = wsp.sparse %n, %ip, %ix : memref<?xindex>, memref<?xi32>
    wsp.parallel_for %i in %d named("i") : !wsp.dense<4> {
      wsp.task @step(%i : index) resources()
    }
    wsp.parallel_for %i in %dd named("i") : !wsp.dense_dyn {
      wsp.task @step(%i : index) resources()
    }
    wsp.parallel_for %row, %j in %r named("row", "j") : !wsp.ragged {
      %x = wsp.view %X[%row] : memref<?x16xf32> -> memref<16xf32>
      %y = wsp.view %X[%j] : memref<?x16xf32> -> memref<16xf32>
      wsp.task @pair(%row, %j : index, index) resources(%x, %y : memref<16xf32>, memref<16xf32>)
    }
    wsp.parallel_for %row, %col in %s named("row", "col") : !wsp.sparse {
      wsp.task @step(%col : index) resources()
    }
    wsp.for_each %i in %d named("i") : !wsp.dense<4> {
      wsp.task @step(%i : index) resources()
    }
    wsp.for_each %t in %dd named("t") : !wsp.dense_dyn {
      wsp.for_each %row, %j in %r named("row", "j") : !wsp.ragged {
        wsp.task @step(%j : index) resources()
      }
    }
    wsp.for_each %row, %col in %s named("row", "col") : !wsp.sparse {
    }
    wsp.parallel_for %i in %d named("i") : !wsp.dense<4> {
    } attributes {note = "empty body"}
  }

  // Seed 001 §3.3: MoE routing, parallel_for(DenseDyn(batch), b -> select(routing[b], e -> ...)).
  wsp.workload @moe(%batch: index, %indptr: memref<?xindex>, %experts: memref<?xindex>, %T: memref<?x16xf32>, %W: memref<8x16xf32>) {
    %b_axis = wsp.dense_dyn %batch
    %routing = wsp.sparse %batch, %indptr, %experts : memref<?xindex>, memref<?xindex>
    wsp.parallel_for %b in %b_axis named("b") : !wsp.dense_dyn {
      wsp.select %e in %routing[%b] named("e") : !wsp.sparse {
        %t = wsp.view %T[%b] : memref<?x16xf32> -> memref<16xf32>
        %w = wsp.view %W[%e] : memref<8x16xf32> -> memref<16xf32>
        wsp.task @pair(%b, %e : index, index) resources(%t, %w : memref<16xf32>, memref<16xf32>)
      }
      wsp.select %e in %routing[%b] named("e") : !wsp.sparse {
      } attributes {top_k = 2 : i64}
    }
  }

  // Seed 001 §3.4-3.6: cond (tiered kernels), combine and sequential.
  wsp.workload @structure(%p: i1, %q: i1, %n: index, %Y: memref<16xf32>) {
    wsp.cond %p {
      wsp.task @nop() resources()
    }
    wsp.cond %p {
      wsp.task @step(%n : index) resources()
    } else {
      wsp.cond %q {
        wsp.task @fill() resources(%Y : memref<16xf32>)
      } else {
        wsp.task @nop() resources()
      }
    }
    wsp.cond %q {
    } else {
      wsp.task @nop() resources()
    }
    wsp.cond %q {
      wsp.task @nop() resources()
    } else {
    } attributes {likely}
    wsp.combine {
      wsp.task @nop() resources()
      wsp.sequential {
        wsp.task @fill() resources(%Y : memref<16xf32>)
        wsp.task @step(%n : index) resources() attributes {label = "after fill"}
      }
      wsp.combine {
      }
    } attributes {group = 1 : i64}
    wsp.sequential {
    }
  }

  // Tasks with and without parameters and resources; calls of another workload.
  wsp.workload @leaves(%n: index, %m: index, %X: memref<4x16xf32>) {
    %x = wsp.view %X[0] : memref<4x16xf32> -> memref<16xf32>
    %y = wsp.view %X[1] : memref<4x16xf32> -> memref<16xf32>
    wsp.task @nop() resources()
    wsp.task @step(%n : index) resources()
    wsp.task @fill() resources(%y : memref<16xf32>)
    wsp.task @pair(%n, %m : index, index) resources(%x, %y : memref<16xf32>, memref<16xf32>)
    wsp.task @pair(%m, %n : index, index) resources(%y, %y : memref<16xf32>, memref<16xf32>) attributes {priority = 3 : i64}
    wsp.call @empty()
    wsp.call @incore(%n, %x : index, memref<16xf32>)
    wsp.call @incore(%m, %y : index, memref<16xf32>) attributes {inline = false}
  }
  wsp.workload @empty() {
  }
  wsp.workload @incore(%i: index, %Y: memref<16xf32>) level(npu) {
    wsp.task @fill() resources(%Y : memref<16xf32>)
    wsp.call @empty_npu()
  }
  wsp.workload @empty_npu() level(npu) {
  }

  // A kernel's dynamic dimension takes any size; a workload's too.
  wsp.kernel @rows(X: in memref<?x16xf32>)
  wsp.workload @dyn_arg(%X: memref<?x16xf32>) {
    wsp.task @rows() resources(%X : memref<?x16xf32>)
  }
  wsp.workload @static_to_dyn(%X: memref<8x16xf32>) {
    wsp.task @rows() resources(%X : memref<8x16xf32>)
    wsp.call @dyn_arg(%X : memref<8x16xf32>)
  }
}

// CHECK:      builtin.module {
// CHECK-NEXT:   wsp.kernel @attn(b: index, h: index, Q: in memref<64x128xf16>, K: in memref<128x128xf16>, O: out memref<64x128xf16>) unit(cube) cost(64)
// CHECK-NEXT:   wsp.kernel @nop() unit(vector)
// CHECK-NEXT:   wsp.kernel @step(i: index) unit(vector)
// CHECK-NEXT:   wsp.kernel @fill(Y: out memref<16xf32>) unit(vector)
// CHECK-NEXT:   wsp.kernel @pair(i: index, j: index, X: in memref<16xf32>, Y: inout memref<16xf32>) unit(vector)
// CHECK-NEXT:   wsp.workload @attention(%batch: !wsp.dense<4>, %heads: !wsp.dense<8>, %Q: memref<4x8x64x128xf16>, %K: memref<4x128x128xf16>, %O: memref<4x8x64x128xf16>) {
// CHECK-NEXT:     wsp.parallel_for %b in %batch named("b") : !wsp.dense<4> {
// CHECK-NEXT:       wsp.parallel_for %h in %heads named("h") : !wsp.dense<8> {
// CHECK-NEXT:         %q = wsp.view %Q[%b, %h] : memref<4x8x64x128xf16> -> memref<64x128xf16>
// CHECK-NEXT:         %k = wsp.view %K[%b] : memref<4x128x128xf16> -> memref<128x128xf16>
// CHECK-NEXT:         %o = wsp.view %O[%b, %h] : memref<4x8x64x128xf16> -> memref<64x128xf16>
// CHECK-NEXT:         wsp.task @attn(%b, %h : index, index) resources(%q, %k, %o : memref<64x128xf16>, memref<128x128xf16>, memref<64x128xf16>)
// CHECK-NEXT:       }
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT:   wsp.workload @loops(%n: index, %lens: memref<?xi64>, %ip: memref<?xindex>, %ix: memref<?xi32>, %X: memref<?x16xf32>) {
// CHECK-NEXT:     %d = wsp.dense 4
// CHECK-NEXT:     %dd = wsp.dense_dyn %n
// CHECK-NEXT:     %r = wsp.ragged %n, %lens : memref<?xi64>
// CHECK-NEXT:     %s = wsp.sparse %n, %ip, %ix : memref<?xindex>, memref<?xi32>
// CHECK-NEXT:     wsp.parallel_for %i in %d named("i") : !wsp.dense<4> {
// CHECK-NEXT:       wsp.task @step(%i : index) resources()
// CHECK-NEXT:     }
// CHECK-NEXT:     wsp.parallel_for %i_1 in %dd named("i") : !wsp.dense_dyn {
// CHECK-NEXT:       wsp.task @step(%i_1 : index) resources()
// CHECK-NEXT:     }
// CHECK-NEXT:     wsp.parallel_for %row, %j in %r named("row", "j") : !wsp.ragged {
// CHECK-NEXT:       %x = wsp.view %X[%row] : memref<?x16xf32> -> memref<16xf32>
// CHECK-NEXT:       %y = wsp.view %X[%j] : memref<?x16xf32> -> memref<16xf32>
// CHECK-NEXT:       wsp.task @pair(%row, %j : index, index) resources(%x, %y : memref<16xf32>, memref<16xf32>)
// CHECK-NEXT:     }
// CHECK-NEXT:     wsp.parallel_for %row_1, %col in %s named("row", "col") : !wsp.sparse {
// CHECK-NEXT:       wsp.task @step(%col : index) resources()
// CHECK-NEXT:     }
// CHECK-NEXT:     wsp.for_each %i_2 in %d named("i") : !wsp.dense<4> {
// CHECK-NEXT:       wsp.task @step(%i_2 : index) resources()
// CHECK-NEXT:     }
// CHECK-NEXT:     wsp.for_each %t in %dd named("t") : !wsp.dense_dyn {
// CHECK-NEXT:       wsp.for_each %row_2, %j_1 in %r named("row", "j") : !wsp.ragged {
// CHECK-NEXT:         wsp.task @step(%j_1 : index) resources()
// CHECK-NEXT:       }
// CHECK-NEXT:     }
// CHECK-NEXT:     wsp.for_each %row_3, %col_1 in %s named("row", "col") : !wsp.sparse {
// CHECK-NEXT:     }
// CHECK-NEXT:     wsp.parallel_for %i_3 in %d named("i") : !wsp.dense<4> {
// CHECK-NEXT:     } attributes {note = "empty body"}
// CHECK-NEXT:   }
// CHECK-NEXT:   wsp.workload @moe(%batch: index, %indptr: memref<?xindex>, %experts: memref<?xindex>, %T: memref<?x16xf32>, %W: memref<8x16xf32>) {
// CHECK-NEXT:     %b_axis = wsp.dense_dyn %batch
// CHECK-NEXT:     %routing = wsp.sparse %batch, %indptr, %experts : memref<?xindex>, memref<?xindex>
// CHECK-NEXT:     wsp.parallel_for %b in %b_axis named("b") : !wsp.dense_dyn {
// CHECK-NEXT:       wsp.select %e in %routing[%b] named("e") : !wsp.sparse {
// CHECK-NEXT:         %t = wsp.view %T[%b] : memref<?x16xf32> -> memref<16xf32>
// CHECK-NEXT:         %w = wsp.view %W[%e] : memref<8x16xf32> -> memref<16xf32>
// CHECK-NEXT:         wsp.task @pair(%b, %e : index, index) resources(%t, %w : memref<16xf32>, memref<16xf32>)
// CHECK-NEXT:       }
// CHECK-NEXT:       wsp.select %e_1 in %routing[%b] named("e") : !wsp.sparse {
// CHECK-NEXT:       } attributes {top_k = 2 : i64}
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT:   wsp.workload @structure(%p: i1, %q: i1, %n: index, %Y: memref<16xf32>) {
// CHECK-NEXT:     wsp.cond %p {
// CHECK-NEXT:       wsp.task @nop() resources()
// CHECK-NEXT:     }
// CHECK-NEXT:     wsp.cond %p {
// CHECK-NEXT:       wsp.task @step(%n : index) resources()
// CHECK-NEXT:     } else {
// CHECK-NEXT:       wsp.cond %q {
// CHECK-NEXT:         wsp.task @fill() resources(%Y : memref<16xf32>)
// CHECK-NEXT:       } else {
// CHECK-NEXT:         wsp.task @nop() resources()
// CHECK-NEXT:       }
// CHECK-NEXT:     }
// CHECK-NEXT:     wsp.cond %q {
// CHECK-NEXT:     } else {
// CHECK-NEXT:       wsp.task @nop() resources()
// CHECK-NEXT:     }
// CHECK-NEXT:     wsp.cond %q {
// CHECK-NEXT:       wsp.task @nop() resources()
// CHECK-NEXT:     } attributes {likely}
// CHECK-NEXT:     wsp.combine {
// CHECK-NEXT:       wsp.task @nop() resources()
// CHECK-NEXT:       wsp.sequential {
// CHECK-NEXT:         wsp.task @fill() resources(%Y : memref<16xf32>)
// CHECK-NEXT:         wsp.task @step(%n : index) resources() attributes {label = "after fill"}
// CHECK-NEXT:       }
// CHECK-NEXT:       wsp.combine {
// CHECK-NEXT:       }
// CHECK-NEXT:     } attributes {group = 1 : i64}
// CHECK-NEXT:     wsp.sequential {
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT:   wsp.workload @leaves(%n: index, %m: index, %X: memref<4x16xf32>) {
// CHECK-NEXT:     %x = wsp.view %X[0] : memref<4x16xf32> -> memref<16xf32>
// CHECK-NEXT:     %y = wsp.view %X[1] : memref<4x16xf32> -> memref<16xf32>
// CHECK-NEXT:     wsp.task @nop() resources()
// CHECK-NEXT:     wsp.task @step(%n : index) resources()
// CHECK-NEXT:     wsp.task @fill() resources(%y : memref<16xf32>)
// CHECK-NEXT:     wsp.task @pair(%n, %m : index, index) resources(%x, %y : memref<16xf32>, memref<16xf32>)
// CHECK-NEXT:     wsp.task @pair(%m, %n : index, index) resources(%y, %y : memref<16xf32>, memref<16xf32>) attributes {priority = 3 : i64}
// CHECK-NEXT:     wsp.call @empty()
// CHECK-NEXT:     wsp.call @incore(%n, %x : index, memref<16xf32>)
// CHECK-NEXT:     wsp.call @incore(%m, %y : index, memref<16xf32>) attributes {inline = false}
// CHECK-NEXT:   }
// CHECK-NEXT:   wsp.workload @empty() {
// CHECK-NEXT:   }
// CHECK-NEXT:   wsp.workload @incore(%i: index, %Y: memref<16xf32>) level(npu) {
// CHECK-NEXT:     wsp.task @fill() resources(%Y : memref<16xf32>)
// CHECK-NEXT:     wsp.call @empty_npu()
// CHECK-NEXT:   }
// CHECK-NEXT:   wsp.workload @empty_npu() level(npu) {
// CHECK-NEXT:   }
// CHECK-NEXT:   wsp.kernel @rows(X: in memref<?x16xf32>) unit(vector)
// CHECK-NEXT:   wsp.workload @dyn_arg(%X: memref<?x16xf32>) {
// CHECK-NEXT:     wsp.task @rows() resources(%X : memref<?x16xf32>)
// CHECK-NEXT:   }
// CHECK-NEXT:   wsp.workload @static_to_dyn(%X: memref<8x16xf32>) {
// CHECK-NEXT:     wsp.task @rows() resources(%X : memref<8x16xf32>)
// CHECK-NEXT:     wsp.call @dyn_arg(%X : memref<8x16xf32>)
// CHECK-NEXT:   }
// CHECK-NEXT: }
