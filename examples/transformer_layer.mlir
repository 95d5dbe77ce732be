// A transformer layer as the combine of four workloads (seed 001 §3.5): RMS norm,
// attention, residual add and feed-forward, each its own workload, called from the layer.
// combine adds no order: the data each stage reads from the previous one (x_norm, attn,
// h) orders the tasks. Attention calls an npu-level InCore workload per (b, h): a
// cross-level call (seed 000 §4.8) that wsp-inline-calls can inline.

wsp.kernel @rms_norm_kernel(b: index, x: in memref<512xf32>, y: out memref<512xf32>) unit(vector) cost(64)
wsp.kernel @attn_tile(b: index, h: index, x: in memref<512xf32>, y: out memref<64xf32>) unit(cube) cost(512)
wsp.kernel @add_kernel(b: index, x: in memref<512xf32>, r: in memref<8x64xf32>, y: out memref<512xf32>) unit(vector) cost(32)
wsp.kernel @ffn_kernel(b: index, x: in memref<512xf32>, y: out memref<512xf32>) unit(cube) cost(2048)

wsp.workload @rms_norm(%x: memref<?x512xf32>, %x_norm: memref<?x512xf32>, %n: index) {
  %batch = wsp.dense_dyn %n
  wsp.parallel_for %b in %batch named("b") : !wsp.dense_dyn {
    %i = wsp.view %x[%b] : memref<?x512xf32> -> memref<512xf32>
    %o = wsp.view %x_norm[%b] : memref<?x512xf32> -> memref<512xf32>
    wsp.task @rms_norm_kernel(%b : index) resources(%i, %o : memref<512xf32>, memref<512xf32>)
  }
}

wsp.workload @attn_incore(%b: index, %h: index, %x: memref<?x512xf32>, %attn: memref<?x8x64xf32>) level(npu) {
  %i = wsp.view %x[%b] : memref<?x512xf32> -> memref<512xf32>
  %o = wsp.view %attn[%b, %h] : memref<?x8x64xf32> -> memref<64xf32>
  wsp.task @attn_tile(%b, %h : index, index) resources(%i, %o : memref<512xf32>, memref<64xf32>)
}

wsp.workload @attention(%x_norm: memref<?x512xf32>, %attn: memref<?x8x64xf32>, %n: index) {
  %batch = wsp.dense_dyn %n
  %heads = wsp.dense 8
  wsp.parallel_for %b in %batch named("b") : !wsp.dense_dyn {
    wsp.parallel_for %h in %heads named("h") : !wsp.dense<8> {
      wsp.call @attn_incore(%b, %h, %x_norm, %attn : index, index, memref<?x512xf32>, memref<?x8x64xf32>)
    }
  }
}

wsp.workload @residual_add(%x: memref<?x512xf32>, %attn: memref<?x8x64xf32>, %h_out: memref<?x512xf32>, %n: index) {
  %batch = wsp.dense_dyn %n
  wsp.parallel_for %b in %batch named("b") : !wsp.dense_dyn {
    %i = wsp.view %x[%b] : memref<?x512xf32> -> memref<512xf32>
    %r = wsp.view %attn[%b] : memref<?x8x64xf32> -> memref<8x64xf32>
    %o = wsp.view %h_out[%b] : memref<?x512xf32> -> memref<512xf32>
    wsp.task @add_kernel(%b : index) resources(%i, %r, %o : memref<512xf32>, memref<8x64xf32>, memref<512xf32>)
  }
}

wsp.workload @ffn(%h_in: memref<?x512xf32>, %y: memref<?x512xf32>, %n: index) {
  %batch = wsp.dense_dyn %n
  wsp.parallel_for %b in %batch named("b") : !wsp.dense_dyn {
    %i = wsp.view %h_in[%b] : memref<?x512xf32> -> memref<512xf32>
    %o = wsp.view %y[%b] : memref<?x512xf32> -> memref<512xf32>
    wsp.task @ffn_kernel(%b : index) resources(%i, %o : memref<512xf32>, memref<512xf32>)
  }
}

wsp.workload @transformer_layer(%x: memref<?x512xf32>, %x_norm: memref<?x512xf32>, %attn: memref<?x8x64xf32>, %h: memref<?x512xf32>, %y: memref<?x512xf32>, %n: index) {
  wsp.combine {
    wsp.call @rms_norm(%x, %x_norm, %n : memref<?x512xf32>, memref<?x512xf32>, index)
    wsp.call @attention(%x_norm, %attn, %n : memref<?x512xf32>, memref<?x8x64xf32>, index)
    wsp.call @residual_add(%x, %attn, %h, %n : memref<?x512xf32>, memref<?x8x64xf32>, memref<?x512xf32>, index)
    wsp.call @ffn(%h, %y, %n : memref<?x512xf32>, memref<?x512xf32>, index)
  }
}
