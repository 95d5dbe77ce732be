// pto-wsp kernel-side tensor views: what a kernel body receives for each tensor parameter.
//
// A GmTensor<T, R> is a rank-R strided view of global memory: the region a task reads or
// writes, shaped like the kernel's parameter (memref<64x64xf32> -> GmTensor<float, 2>;
// `in` parameters get const T). The wrapper builds it from the task descriptor's region
// (task_abi.h): the address of the region's first element, and per kept dimension its size
// and its stride in elements.
#pragma once

#include <stdint.h>

namespace pto {
namespace wsp {

#if defined(PTO_WSP_HOST)
// 16-bit floats keep their bits on the host; kernel bodies convert as they need.
struct f16_t {
  uint16_t bits;
};
struct bf16_t {
  uint16_t bits;
};
inline f16_t f16_from_bits(uint16_t bits) { return f16_t{bits}; }
#else
typedef half f16_t;
typedef bfloat16_t bf16_t;
inline f16_t f16_from_bits(uint16_t bits) {
  f16_t h;
  __builtin_memcpy(&h, &bits, sizeof(h));
  return h;
}
#endif

template <typename T, int R>
struct GmTensor {
  __gm__ T* data;
  int64_t shape[R > 0 ? R : 1];
  int64_t stride[R > 0 ? R : 1];

  static constexpr int rank = R;

  __aicore__ inline int64_t size(int d) const { return shape[d]; }

  __aicore__ inline int64_t numel() const {
    int64_t n = 1;
    for (int d = 0; d < R; ++d) n *= shape[d];
    return n;
  }

  template <typename... I>
  __aicore__ inline __gm__ T* ptr(I... index) const {
    static_assert(sizeof...(I) == R, "one index per dimension");
    const int64_t idx[R > 0 ? R : 1] = {static_cast<int64_t>(index)...};
    int64_t off = 0;
    for (int d = 0; d < R; ++d) off += idx[d] * stride[d];
    return data + off;
  }

  template <typename... I>
  __aicore__ inline T& operator()(I... index) const {
    return *ptr(index...);
  }
};

// The view of a task region (a TensorRegion of task_abi.h) as the kernel's rank-R parameter:
// the root dimensions marked kept, in order. Loops of constant length (all the region's
// dimensions, masked beyond its rank; the kept bits one by one): no loop at run time.
template <typename T, int R, typename Region>
__aicore__ inline GmTensor<T, R> gm_tensor(const Region& r) {
  constexpr int kDims = static_cast<int>(sizeof(r.offsets) / sizeof(r.offsets[0]));
  GmTensor<T, R> v;
  const int rank = r.rank;
  int64_t elem_off = 0;
  for (int d = 0; d < kDims; ++d) elem_off += d < rank ? r.offsets[d] * r.mem_strides[d] : 0;
  v.data = reinterpret_cast<__gm__ T*>(reinterpret_cast<uintptr_t>(r.base) +
                                        static_cast<uintptr_t>(elem_off * r.elem_bytes));
  uint32_t kept = static_cast<uint32_t>(r.kept) & ((1u << rank) - 1u);
  for (int k = 0; k < (R > 0 ? R : 1); ++k) {
    if (k < R && kept != 0) {
      const int d = __builtin_ctz(kept);
      kept &= kept - 1;
      v.shape[k] = r.sizes[d];
      v.stride[k] = r.strides[d] * r.mem_strides[d];
    } else {
      v.shape[k] = 1;
      v.stride[k] = 0;
    }
  }
  return v;
}

}  // namespace wsp
}  // namespace pto
