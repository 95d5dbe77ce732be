// Tiered kernels with nested cond (seed 001 §3.4): each batch entry picks the attention
// kernel for its sequence length at run time — <= 2048, <= 8192, else the 32k kernel.
// The predicate reads seq_lens[b], so wsp.cond stays a runtime choice; only the taken
// branch creates a task.

wsp.kernel @attn_2k(b: index, len: index, X: inout memref<2048x64xf32>) unit(cube) cost(1000)
wsp.kernel @attn_8k(b: index, len: index, X: inout memref<8192x64xf32>) unit(cube) cost(4000)
wsp.kernel @attn_32k(b: index, len: index, X: inout memref<32768x64xf32>) unit(cube) cost(16000)

wsp.workload @tiered(%X: memref<?x32768x64xf32>, %seq_lens: memref<?xindex>, %batch_size: index) {
  %batch = wsp.dense_dyn %batch_size
  %c2k = arith.constant 2048 : index
  %c8k = arith.constant 8192 : index
  wsp.parallel_for %b in %batch named("b") : !wsp.dense_dyn {
    %len = memref.load %seq_lens[%b] : memref<?xindex>
    %short = arith.cmpi sle, %len, %c2k : index
    wsp.cond %short {
      %x = wsp.view %X[%b, 0:2048] : memref<?x32768x64xf32> -> memref<2048x64xf32>
      wsp.task @attn_2k(%b, %len : index, index) resources(%x : memref<2048x64xf32>)
    } else {
      %medium = arith.cmpi sle, %len, %c8k : index
      wsp.cond %medium {
        %x = wsp.view %X[%b, 0:8192] : memref<?x32768x64xf32> -> memref<8192x64xf32>
        wsp.task @attn_8k(%b, %len : index, index) resources(%x : memref<8192x64xf32>)
      } else {
        %x = wsp.view %X[%b] : memref<?x32768x64xf32> -> memref<32768x64xf32>
        wsp.task @attn_32k(%b, %len : index, index) resources(%x : memref<32768x64xf32>)
      }
    }
  }
}
