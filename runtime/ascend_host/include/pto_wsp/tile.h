// pto-wsp tile API: what kernel bodies emitted from the tile IR (the `pto` dialect) call.
//
// A Tile<T, Space, R, C> is an R x C buffer of one AICore memory space (Vec = UB, Mat = L1,
// Left/Right = L0A/L0B, Acc = L0C, Bias) with a valid region of valid_rows x valid_cols
// elements; a 1-d tile of C elements is a 1 x C tile. Instructions write their first
// argument, read the others, and act on the valid region, which they also set in the result
// (pto-isa's convention: TADD(dst, a, b)). Elements past the valid region are undefined
// unless TFILLPAD sets them.
//
// This file is the host implementation (PTO_WSP_HOST, plain C++17, g++ -Wall -Werror): tiles
// are arrays on the stack, instructions are loops, 16-bit floats compute in float and round
// to their type at TSTORE and TCVT, and pipe flags are checked, not waited on: one in-order
// thread runs every pipe, so a wait_flag whose set_flag was never issued is a
// synchronization bug. A fault (that, or a tile outside its view) throws: the host runtime
// reports it as the task's error. A device build maps the same names to the
// AICore's instructions (pto-isa); that mapping is not part of this file.
#pragma once

#include <math.h>
#include <stdint.h>
#include <string.h>

#include <stdexcept>
#include <string>
#include <type_traits>

#include "pto_wsp/aicore.h"

#if !defined(PTO_WSP_HOST)
#error "pto_wsp/tile.h is the host implementation of the tile API (define PTO_WSP_HOST)"
#endif

namespace pto {
namespace wsp {
namespace tile {

enum class Space { Vec, Mat, Left, Right, Acc, Bias };
enum class Cmp { EQ, NE, LT, LE, GT, GE };

// ------------------------------------------------------------------------------ elements

// 16-bit floats are held as float in a tile; these convert to and from their bits, rounding
// to nearest even.
inline float half_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1fu;
  const uint32_t man = h & 0x3ffu;
  float value;
  if (exp == 0) {
    value = ldexpf(static_cast<float>(man), -24);
  } else if (exp == 31) {
    value = man ? NAN : INFINITY;
  } else {
    value = ldexpf(static_cast<float>(man | 0x400u), static_cast<int>(exp) - 25);
  }
  uint32_t bits;
  memcpy(&bits, &value, 4);
  bits |= sign;
  memcpy(&value, &bits, 4);
  return value;
}

inline uint16_t float_to_half(float f) {
  uint32_t bits;
  memcpy(&bits, &f, 4);
  const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  const float a = fabsf(f);
  if (isnan(f)) return static_cast<uint16_t>(sign | 0x7e00u);
  if (a >= 65520.0f) return static_cast<uint16_t>(sign | 0x7c00u);
  if (a < ldexpf(1.0f, -14)) {  // subnormal: a multiple of 2^-24, rounded to nearest even
    return static_cast<uint16_t>(sign | static_cast<uint16_t>(nearbyintf(ldexpf(a, 24))));
  }
  int e;
  const float m = frexpf(a, &e);  // a = m * 2^e, m in [0.5, 1)
  uint32_t mant = static_cast<uint32_t>(nearbyintf(ldexpf(m, 11)));  // 11 significant bits
  if (mant == 2048u) {
    mant = 1024u;
    ++e;
  }
  return static_cast<uint16_t>(sign | static_cast<uint32_t>(e + 14) << 10 | (mant & 0x3ffu));
}

inline float bf16_to_float(uint16_t h) {
  const uint32_t bits = static_cast<uint32_t>(h) << 16;
  float f;
  memcpy(&f, &bits, 4);
  return f;
}

inline uint16_t float_to_bf16(float f) {
  uint32_t bits;
  memcpy(&bits, &f, 4);
  if (isnan(f)) return static_cast<uint16_t>((bits >> 16) | 0x40u);
  bits += 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<uint16_t>(bits >> 16);
}

// How a tile holds elements of T (Value) and how they cross global memory.
template <typename T>
struct Elem {
  typedef T Value;
  static Value in(T x) { return x; }
  static T out(Value x) { return x; }
  static Value round(Value x) { return x; }
};
template <>
struct Elem<f16_t> {
  typedef float Value;
  static float in(f16_t x) { return half_to_float(x.bits); }
  static f16_t out(float x) { return f16_t{float_to_half(x)}; }
  static float round(float x) { return half_to_float(float_to_half(x)); }
};
template <>
struct Elem<bf16_t> {
  typedef float Value;
  static float in(bf16_t x) { return bf16_to_float(x.bits); }
  static bf16_t out(float x) { return bf16_t{float_to_bf16(x)}; }
  static float round(float x) { return bf16_to_float(float_to_bf16(x)); }
};

// ------------------------------------------------------------------------------ tiles

template <typename T, Space S, int R, int C>
struct Tile {
  typedef T Element;
  typedef typename Elem<T>::Value Value;
  static constexpr Space space = S;
  static constexpr int kRows = R;
  static constexpr int kCols = C;

  Value data[R * C];
  int64_t valid_rows = R;
  int64_t valid_cols = C;

  Tile() = default;
  Tile(int64_t rows, int64_t cols) : valid_rows(rows), valid_cols(cols) {}

  Value& operator()(int64_t r, int64_t c) { return data[r * C + c]; }
  const Value& operator()(int64_t r, int64_t c) const { return data[r * C + c]; }
};

// A tile at a byte offset of its space's buffer: what memory planning (pto.addr) gives. It
// is the buffer, not a value: no copies (TMOV copies its elements).
template <typename T, Space S, int R, int C>
struct TileAt {
  typedef T Element;
  typedef typename Elem<T>::Value Value;
  static constexpr Space space = S;
  static constexpr int kRows = R;
  static constexpr int kCols = C;

  Value* data;
  int64_t valid_rows = R;
  int64_t valid_cols = C;

  explicit TileAt(uint8_t* at) : data(reinterpret_cast<Value*>(at)) {}
  TileAt(uint8_t* at, int64_t rows, int64_t cols)
      : data(reinterpret_cast<Value*>(at)), valid_rows(rows), valid_cols(cols) {}
  TileAt(const TileAt&) = delete;
  TileAt& operator=(const TileAt&) = delete;

  Value& operator()(int64_t r, int64_t c) { return data[r * C + c]; }
  const Value& operator()(int64_t r, int64_t c) const { return data[r * C + c]; }
};

// On the host a 16-bit float element is held as a float: a function with such tiles gets its
// space buffers and pto.addr offsets scaled by this much, so planned tiles still never overlap.
constexpr int kHostScaleHalf = 2;

namespace detail {

// A fault of the kernel: the host runtime reports it as the task's error (ExecutionError).
[[noreturn]] inline void fail(const std::string& what) {
  throw std::runtime_error("tile API: " + what);
}

template <typename D, typename A>
inline void same_valid(D& dst, const A& a) {
  if (a.valid_rows > D::kRows || a.valid_cols > D::kCols) fail("valid region exceeds the tile");
  dst.valid_rows = a.valid_rows;
  dst.valid_cols = a.valid_cols;
}

// Every valid element of dst from the same element of a: dst(r, c) = f(a(r, c), r, c).
template <typename D, typename A, typename F>
inline void map(D& dst, const A& a, F f) {
  same_valid(dst, a);
  for (int64_t r = 0; r < a.valid_rows; ++r)
    for (int64_t c = 0; c < a.valid_cols; ++c) dst(r, c) = f(a(r, c), r, c);
}

template <typename V>
inline V vmax(V a, V b) { return a > b ? a : b; }
template <typename V>
inline V vmin(V a, V b) { return a < b ? a : b; }
// Integer division as numpy's (and the simulator's): x / 0 is 0 and MIN / -1 wraps to MIN,
// where C++ leaves both undefined and x86 traps.
template <typename V>
inline V vdiv(V a, V b) {
  if constexpr (std::is_integral<V>::value) {
    if (b == 0) return 0;
    if (std::is_signed<V>::value && b == static_cast<V>(-1)) {
      return static_cast<V>(0 - static_cast<typename std::make_unsigned<V>::type>(a));
    }
  }
  return a / b;
}

// The offset of a tile's origin in a view, and the view's row and column strides: a tile
// addresses the view's last two dimensions (a 1 x C tile its last one).
template <typename G>
inline int64_t origin(const G& view, const int64_t (&off)[G::rank], int64_t rows, int64_t cols,
                      const char* verb, int64_t& rs, int64_t& cs) {
  for (int d = 0; d < G::rank; ++d) {
    const int64_t extent = d == G::rank - 1 ? cols : d == G::rank - 2 ? rows : 1;
    if (off[d] < 0 || off[d] + extent > view.shape[d]) {
      fail(std::string(verb) + ": " + std::to_string(rows) + " x " + std::to_string(cols) +
           " tile at offset " + std::to_string(off[d]) + " of dimension " + std::to_string(d) +
           " is outside the view (size " + std::to_string(view.shape[d]) + ")");
    }
  }
  int64_t at = 0;
  for (int d = 0; d < G::rank; ++d) at += off[d] * view.stride[d];
  cs = view.stride[G::rank - 1];
  rs = G::rank >= 2 ? view.stride[G::rank >= 2 ? G::rank - 2 : 0] : 0;
  return at;
}

}  // namespace detail

// ------------------------------------------------------------------------------ memory

// dst's valid region (set before: the constructor's sizes) read from the view at `off`.
template <typename D, typename G>
inline void TLOAD(D& dst, const G& src, const int64_t (&off)[G::rank]) {
  int64_t rs, cs;
  const int64_t at = detail::origin(src, off, dst.valid_rows, dst.valid_cols, "TLOAD", rs, cs);
  typedef typename D::Element T;
  for (int64_t r = 0; r < dst.valid_rows; ++r)
    for (int64_t c = 0; c < dst.valid_cols; ++c)
      dst(r, c) = Elem<T>::in(static_cast<T>(src.data[at + r * rs + c * cs]));
}

// src's valid region written to the view at `off`.
template <typename G, typename A>
inline void TSTORE(const G& dst, const A& src, const int64_t (&off)[G::rank]) {
  int64_t rs, cs;
  const int64_t at = detail::origin(dst, off, src.valid_rows, src.valid_cols, "TSTORE", rs, cs);
  typedef typename A::Element T;
  for (int64_t r = 0; r < src.valid_rows; ++r)
    for (int64_t c = 0; c < src.valid_cols; ++c) dst.data[at + r * rs + c * cs] = Elem<T>::out(src(r, c));
}

// A copy into another memory space (the valid region; the space is dst's type). A tile moved
// onto its own buffer (a loop's carried tile after planning) only takes the valid region.
template <typename D, typename A>
inline void TMOV(D& dst, const A& src) {
  if (static_cast<const void*>(&dst(0, 0)) == static_cast<const void*>(&src(0, 0))) {
    detail::same_valid(dst, src);
    return;
  }
  detail::map(dst, src, [](typename A::Value x, int64_t, int64_t) { return x; });
}

// Every element of dst's valid region (set before) equal to s.
template <typename D, typename V>
inline void TEXPANDS(D& dst, V s) {
  for (int64_t r = 0; r < dst.valid_rows; ++r)
    for (int64_t c = 0; c < dst.valid_cols; ++c) dst(r, c) = static_cast<typename D::Value>(s);
}

// src with every element past its valid region set to s; dst's valid region is the tile.
template <typename D, typename A, typename V>
inline void TFILLPAD(D& dst, const A& src, V s) {
  for (int64_t r = 0; r < D::kRows; ++r)
    for (int64_t c = 0; c < D::kCols; ++c)
      dst(r, c) = r < src.valid_rows && c < src.valid_cols ? src(r, c) : static_cast<typename D::Value>(s);
  dst.valid_rows = D::kRows;
  dst.valid_cols = D::kCols;
}

// ------------------------------------------------------------------------------ elementwise

#define PTO_WSP_TILE_BINARY(NAME, EXPR)                                                   \
  template <typename D, typename A, typename B>                                           \
  inline void NAME(D& dst, const A& lhs, const B& rhs) {                                   \
    detail::map(dst, lhs, [&rhs](typename A::Value a, int64_t r, int64_t c) {              \
      const typename A::Value b = rhs(r, c);                                               \
      return static_cast<typename D::Value>(EXPR);                                         \
    });                                                                                    \
  }                                                                                        \
  template <typename D, typename A, typename V>                                           \
  inline void NAME##S(D& dst, const A& lhs, V s) {                                         \
    const typename A::Value b = static_cast<typename A::Value>(s);                         \
    detail::map(dst, lhs, [b](typename A::Value a, int64_t, int64_t) {                     \
      return static_cast<typename D::Value>(EXPR);                                         \
    });                                                                                    \
  }

PTO_WSP_TILE_BINARY(TADD, a + b)
PTO_WSP_TILE_BINARY(TSUB, a - b)
PTO_WSP_TILE_BINARY(TMUL, a * b)
PTO_WSP_TILE_BINARY(TDIV, detail::vdiv(a, b))
PTO_WSP_TILE_BINARY(TMAX, detail::vmax(a, b))
PTO_WSP_TILE_BINARY(TMIN, detail::vmin(a, b))
#undef PTO_WSP_TILE_BINARY

#define PTO_WSP_TILE_UNARY(NAME, EXPR)                                              \
  template <typename D, typename A>                                                 \
  inline void NAME(D& dst, const A& src) {                                          \
    detail::map(dst, src, [](typename A::Value x, int64_t, int64_t) {               \
      return static_cast<typename D::Value>(EXPR);                                  \
    });                                                                             \
  }

PTO_WSP_TILE_UNARY(TEXP, expf(x))
PTO_WSP_TILE_UNARY(TLOG, logf(x))
PTO_WSP_TILE_UNARY(TSQRT, sqrtf(x))
PTO_WSP_TILE_UNARY(TRSQRT, 1.0f / sqrtf(x))
PTO_WSP_TILE_UNARY(TRECIP, 1.0f / x)
PTO_WSP_TILE_UNARY(TABS, x < 0 ? -x : x)
PTO_WSP_TILE_UNARY(TNEG, -x)
PTO_WSP_TILE_UNARY(TRELU, x > 0 ? x : 0)
#undef PTO_WSP_TILE_UNARY

// Element type conversion: float -> integer rounds to nearest even, to 16-bit floats rounds
// to the type.
template <typename D, typename A>
inline void TCVT(D& dst, const A& src) {
  typedef typename D::Element T;
  typedef typename D::Value V;
  detail::map(dst, src, [](typename A::Value x, int64_t, int64_t) {
    if constexpr (std::is_floating_point<V>::value) {
      return Elem<T>::round(static_cast<V>(x));
    } else {
      return static_cast<V>(nearbyint(static_cast<double>(x)));
    }
  });
}

template <typename V>
inline bool compare(V a, V b, Cmp p) {
  switch (p) {
    case Cmp::EQ: return a == b;
    case Cmp::NE: return a != b;
    case Cmp::LT: return a < b;
    case Cmp::LE: return a <= b;
    case Cmp::GT: return a > b;
    case Cmp::GE: return a >= b;
  }
  return false;
}

template <typename D, typename A, typename B>
inline void TCMP(D& mask, const A& lhs, const B& rhs, Cmp p) {
  detail::map(mask, lhs, [&rhs, p](typename A::Value a, int64_t r, int64_t c) {
    return compare(a, rhs(r, c), p);
  });
}

template <typename D, typename A, typename V>
inline void TCMPS(D& mask, const A& lhs, V s, Cmp p) {
  const typename A::Value b = static_cast<typename A::Value>(s);
  detail::map(mask, lhs, [b, p](typename A::Value a, int64_t, int64_t) { return compare(a, b, p); });
}

template <typename D, typename M, typename A, typename B>
inline void TSEL(D& dst, const M& mask, const A& lhs, const B& rhs) {
  detail::map(dst, lhs, [&mask, &rhs](typename A::Value a, int64_t r, int64_t c) {
    return mask(r, c) ? a : rhs(r, c);
  });
}

// ------------------------------------------------------------------------------ rows, columns

// Row reductions: R x C -> R x 1; column reductions: R x C -> 1 x C.
#define PTO_WSP_TILE_REDUCE(NAME, ROWS, INIT, STEP)                                  \
  template <typename D, typename A>                                                  \
  inline void NAME(D& dst, const A& src) {                                           \
    typedef typename A::Value V;                                                     \
    const int64_t outer = ROWS ? src.valid_rows : src.valid_cols;                    \
    const int64_t inner = ROWS ? src.valid_cols : src.valid_rows;                    \
    dst.valid_rows = ROWS ? src.valid_rows : 1;                                      \
    dst.valid_cols = ROWS ? 1 : src.valid_cols;                                      \
    for (int64_t o = 0; o < outer; ++o) {                                            \
      V acc = INIT;                                                                  \
      for (int64_t i = 0; i < inner; ++i) {                                          \
        const V x = ROWS ? src(o, i) : src(i, o);                                    \
        acc = STEP;                                                                  \
      }                                                                              \
      (ROWS ? dst(o, 0) : dst(0, o)) = acc;                                          \
    }                                                                                \
  }

PTO_WSP_TILE_REDUCE(TROWSUM, true, V(0), acc + x)
PTO_WSP_TILE_REDUCE(TROWMAX, true, src(o, 0), detail::vmax(acc, x))
PTO_WSP_TILE_REDUCE(TROWMIN, true, src(o, 0), detail::vmin(acc, x))
PTO_WSP_TILE_REDUCE(TCOLSUM, false, V(0), acc + x)
PTO_WSP_TILE_REDUCE(TCOLMAX, false, src(0, o), detail::vmax(acc, x))
PTO_WSP_TILE_REDUCE(TCOLMIN, false, src(0, o), detail::vmin(acc, x))
#undef PTO_WSP_TILE_REDUCE

// Broadcasts: each row of dst from its element of an R x 1 vector (TROWEXPAND*), each column
// from its element of a 1 x C vector (TCOLEXPAND*); dst's valid region is set before.
template <typename D, typename A>
inline void TROWEXPAND(D& dst, const A& vec) {
  for (int64_t r = 0; r < dst.valid_rows; ++r)
    for (int64_t c = 0; c < dst.valid_cols; ++c) dst(r, c) = vec(r, 0);
}
template <typename D, typename A>
inline void TCOLEXPAND(D& dst, const A& vec) {
  for (int64_t r = 0; r < dst.valid_rows; ++r)
    for (int64_t c = 0; c < dst.valid_cols; ++c) dst(r, c) = vec(0, c);
}

#define PTO_WSP_TILE_EXPAND(NAME, EXPR)                                                   \
  template <typename D, typename A, typename B>                                           \
  inline void TROWEXPAND##NAME(D& dst, const A& src, const B& vec) {                       \
    detail::map(dst, src, [&vec](typename A::Value a, int64_t r, int64_t) {                \
      const typename A::Value b = vec(r, 0);                                               \
      return static_cast<typename D::Value>(EXPR);                                         \
    });                                                                                    \
  }                                                                                        \
  template <typename D, typename A, typename B>                                           \
  inline void TCOLEXPAND##NAME(D& dst, const A& src, const B& vec) {                       \
    detail::map(dst, src, [&vec](typename A::Value a, int64_t, int64_t c) {                \
      const typename A::Value b = vec(0, c);                                               \
      return static_cast<typename D::Value>(EXPR);                                         \
    });                                                                                    \
  }

PTO_WSP_TILE_EXPAND(ADD, a + b)
PTO_WSP_TILE_EXPAND(SUB, a - b)
PTO_WSP_TILE_EXPAND(MUL, a * b)
PTO_WSP_TILE_EXPAND(DIV, detail::vdiv(a, b))
PTO_WSP_TILE_EXPAND(MAX, detail::vmax(a, b))
PTO_WSP_TILE_EXPAND(MIN, detail::vmin(a, b))
PTO_WSP_TILE_EXPAND(EXPSUB, expf(a - b))
#undef PTO_WSP_TILE_EXPAND

// ------------------------------------------------------------------------------ cube

namespace detail {
// acc += left x right over the valid regions (M x K times K x N), in acc's type.
template <typename C, typename A, typename B>
inline void multiply_add(C& acc, const A& a, const B& b) {
  if (a.valid_cols != b.valid_rows) fail("TMATMUL: K of left and right differ");
  typedef typename C::Value V;
  for (int64_t m = 0; m < a.valid_rows; ++m)
    for (int64_t k = 0; k < a.valid_cols; ++k) {
      const V x = static_cast<V>(a(m, k));
      for (int64_t n = 0; n < b.valid_cols; ++n) acc(m, n) += x * static_cast<V>(b(k, n));
    }
}
}  // namespace detail

// acc = left x right.
template <typename C, typename A, typename B>
inline void TMATMUL(C& acc, const A& a, const B& b) {
  acc.valid_rows = a.valid_rows;
  acc.valid_cols = b.valid_cols;
  for (int64_t m = 0; m < acc.valid_rows; ++m)
    for (int64_t n = 0; n < acc.valid_cols; ++n) acc(m, n) = 0;
  detail::multiply_add(acc, a, b);
}

// acc = init + left x right; in place when acc is init's buffer (as the cube accumulates).
template <typename C, typename I, typename A, typename B>
inline void TMATMUL_ACC(C& acc, const I& init, const A& a, const B& b) {
  TMOV(acc, init);
  detail::multiply_add(acc, a, b);
}

template <typename C, typename A, typename B, typename Z>
inline void TMATMUL_BIAS(C& acc, const A& a, const B& b, const Z& bias) {
  TMATMUL(acc, a, b);
  for (int64_t m = 0; m < acc.valid_rows; ++m)
    for (int64_t n = 0; n < acc.valid_cols; ++n) acc(m, n) += bias(0, n);
}

template <typename D, typename A>
inline void TTRANS(D& dst, const A& src) {
  dst.valid_rows = src.valid_cols;
  dst.valid_cols = src.valid_rows;
  for (int64_t r = 0; r < src.valid_rows; ++r)
    for (int64_t c = 0; c < src.valid_cols; ++c) dst(c, r) = src(r, c);
}

// ------------------------------------------------------------------------------ pipes

// Flags set and not yet waited for, per (source pipe, destination pipe, event), on this
// thread: the host runs a task's pipes in order, so a wait must find its set already issued.
namespace detail {
inline int& pending(int src, int dst, int event) {
  static thread_local int flags[8][8][8];
  return flags[src & 7][dst & 7][event & 7];
}

[[noreturn]] inline void flag_fault(const char* what) {
  for (int s = 0; s < 8; ++s)  // the thread's next task starts with no flag set
    for (int d = 0; d < 8; ++d)
      for (int e = 0; e < 8; ++e) pending(s, d, e) = 0;
  fail(what);
}
}  // namespace detail

inline void TSET_FLAG(pipe_t src, pipe_t dst, event_t event) {
  ++detail::pending(src, dst, event);
}

inline void TWAIT_FLAG(pipe_t src, pipe_t dst, event_t event) {
  int& n = detail::pending(src, dst, event);
  if (n == 0) detail::flag_fault("wait_flag without a set_flag before it (the AICore would hang)");
  --n;
}

inline void TBARRIER(pipe_t) {}

// At the end of a kernel body: every flag set was waited for (an AICore would otherwise start
// the next task with a flag still set).
inline void TFLAGS_BALANCED() {
  for (int s = 0; s < 8; ++s)
    for (int d = 0; d < 8; ++d)
      for (int e = 0; e < 8; ++e)
        if (detail::pending(s, d, e) != 0) {
          detail::flag_fault("a set_flag was never waited for by the end of the kernel");
        }
}

}  // namespace tile
}  // namespace wsp
}  // namespace pto
