// pto-wsp AICPU orchestration API: what the emitted aicpu_orchestrate.cpp is written against.
//
// A task-generation program walks its loops and, per task, allocates a descriptor
// (alloc_task), adds scalars and regions (add_scalar, add_input / add_output / add_inout),
// its coordinates (at), and submits it; ordered scopes and ordering points give structural
// order (docs/tg.md). Dependencies are never written: the runtime infers them from regions
// with a TensorMap. The host runtime (runtime/ascend_host/src/builder.cpp) implements Builder
// with worker threads; a device runtime adapter implements the same four calls on the AICPU.
//
// The descriptor layout (TaskNodePod, TensorRegion, limits) is the program's task_abi.h.
#pragma once

#include <stdint.h>

#include "task_abi.h"

namespace pto {
namespace wsp {

// Raised by the orchestration (host build) for an index outside bound data and similar.
[[noreturn]] void fail(const char* what, int64_t a = 0, int64_t b = 0);

// A memref argument of a program, bound to memory: row-major, strides in elements.
struct TensorArg {
  uint8_t* data;
  int64_t shape[kMaxRank];
  int64_t mem_strides[kMaxRank];
  int32_t rank;
  int32_t elem_bytes;
  int32_t index;  // the argument's position in the program signature
};

// A memref value of the program: a strided region of a root argument, in the root's index
// space (as lowering/cpu/pygen.py's View): per root dimension offset, size, stride; `kept`
// marks the root dimensions that are dimensions of this value (rank reduction drops the rest).
struct View {
  const TensorArg* t;
  int64_t off[kMaxRank];
  int64_t size[kMaxRank];
  int64_t stride[kMaxRank];
  uint32_t kept;
  // Bit d: root dimension d lies outside the tensor (a negative size or offset, or an index
  // past its extent), worked out where the view is made: a task given this view fails
  // (TaskBuilder::add), and a view made once outside a loop is checked once.
  uint32_t outside;

  static View root(const TensorArg& arg) {
    View v;
    v.t = &arg;
    v.kept = 0;
    v.outside = 0;
    for (int d = 0; d < kMaxRank; ++d) {
      v.off[d] = 0;
      v.size[d] = d < arg.rank ? arg.shape[d] : 1;
      v.stride[d] = 1;
      if (d < arg.rank) v.kept |= 1u << d;
    }
    return v;
  }

  // memref.subview: entry i addresses this value's i-th kept root dimension, dims[i]. Field
  // by field: a block copy of the view followed by narrower updates stalls store forwarding.
  template <int N>
  __attribute__((always_inline)) View sub(const int (&dims)[N], const int64_t (&o)[N],
                                          const int64_t (&s)[N], const int64_t (&st)[N],
                                          uint32_t new_kept) const {
    View v;
    v.t = t;
    v.kept = new_kept;
    uint32_t set = 0, bad = 0;
    for (int i = 0; i < N; ++i) {
      const int d = dims[i];
      const int64_t vo = off[d] + o[i] * stride[d], vs = s[i], vst = stride[d] * st[i];
      v.off[d] = vo;
      v.size[d] = vs;
      v.stride[d] = vst;
      set |= 1u << d;
      bad |= static_cast<uint32_t>((vs < 0) | (vo < 0) |
                                   ((vs > 0) & (vo + (vs - 1) * vst >= t->shape[d])))
             << d;
    }
    v.outside = (outside & ~set) | bad;
    for (int d = 0; d < kMaxRank; ++d) {
      if (set & (1u << d)) continue;
      v.off[d] = off[d];
      v.size[d] = size[d];
      v.stride[d] = stride[d];
    }
    return v;
  }

  // The root index of this value's index (i_0, ..., i_{k-1}) along its kept dimensions.
  template <typename... I>
  int64_t linear(I... index) const {
    const int64_t idx[sizeof...(I) > 0 ? sizeof...(I) : 1] = {static_cast<int64_t>(index)...};
    int64_t lin = 0;
    int k = 0;
    for (int d = 0; d < t->rank; ++d) {
      int64_t i = off[d];
      if (kept & (1u << d)) {
        const int64_t j = idx[k++];
        if (j < 0 || j >= size[d]) fail("memref.load: index out of the bound data", j, size[d]);
        i += j * stride[d];
      }
      lin += i * t->mem_strides[d];
    }
    return lin;
  }

  // memref.load of an integer or index element, as an int64.
  template <typename T, typename... I>
  int64_t load(I... index) const {
    const int64_t lin = linear(index...);
    return static_cast<int64_t>(reinterpret_cast<const T*>(t->data)[lin]);
  }

  // memref.dim: the size of this value's k-th dimension (the k-th kept root dimension).
  int64_t dim(int64_t k) const {
    uint32_t m = kept;
    for (int64_t j = 0; j < k && m != 0; ++j) m &= m - 1;
    if (k < 0 || m == 0) fail("memref.dim: no such dimension", k);
    return size[__builtin_ctz(m)];
  }
};

// The schedule, lowered (docs/tg.md "The runtime configuration").
enum class Dispatch : uint8_t { Default, RoundRobin, Affinity, Hash, Range, WorkSteal, DispatchBy };
enum class ReadyPolicy : uint8_t { Fifo, Priority };
enum class Timing : uint8_t { Immediate, Batched, Interleaved, RateLimit };
enum class Overflow : uint8_t { Stall, Abort };
enum class DepthScope : uint8_t { Global, PerStream, PerPool };

struct RuntimeConfig {
  Dispatch dispatch = Dispatch::Default;
  int64_t workers = 0;  // 0: the runtime decides
  // streams n: each worker's tasks (and the runtime-placed ones) form n lanes; a task starts
  // only after every earlier-issued task of its lane started (docs/simulator.md). 0: none.
  int64_t streams = 0;
  // The tasks carry a stream_by key (lane key = key mod streams); else issue number mod streams.
  bool stream_keyed = false;
  ReadyPolicy ready = ReadyPolicy::Fifo;
  Timing timing = Timing::Immediate;
  int64_t timing_n = 0;
  int64_t task_window = 0;  // 0: unbounded (the runtime's ring still bounds tasks in flight)
  Overflow window_overflow = Overflow::Stall;
  int64_t pipeline_depth = 0;  // 0: no gate
  DepthScope depth_scope = DepthScope::Global;
  int64_t batch_deps = 0;  // 0: resolve each task's dependencies at submit
};

// A task creation site of the program: its kernel and the names of its coordinates.
struct TaskSite {
  KernelId kernel;
  int32_t num_coords;
  const char* const* coord_names;
};

// One task being described between alloc_task and submit.
class TaskBuilder {
 public:
  // One overload per scalar C type (task_abi.h ScalarArg): the value lands in its field.
  void add_scalar(int64_t v) { next_arg().i64 = v; }
  void add_scalar(int32_t v) { next_arg().i32 = v; }
  void add_scalar(bool v) { next_arg().i1 = v; }
  void add_scalar(float v) { next_arg().f32 = v; }
  void add_scalar(double v) { next_arg().f64 = v; }
  void add_scalar_f16(uint16_t bits) { next_arg().f16 = bits; }
  void add_input(const View& v) { add(v, Access::In); }
  // A read after every task writing its tensor (lookup), or of a tensor no task writes
  // (unwritten): the TensorMap records no reader (TaskIO::reads).
  void add_input_lookup(const View& v) { add(v, Access::In, 1); }
  void add_input_unwritten(const View& v) { add(v, Access::In, 2); }
  void add_output(const View& v) { add(v, Access::Out); }
  void add_inout(const View& v) { add(v, Access::InOut); }
  void at(int i, int64_t v) { coords_[i] = v; }

  TaskNodePod* pod() const { return pod_; }

 private:
  friend class Builder;
  __attribute__((always_inline)) void add(const View& v, Access a, uint8_t reads = 0) {
    const TensorArg* __restrict t = v.t;
    const int rank = t->rank;
    TaskIO* __restrict io = &pod_->io[pod_->num_io++];
    TensorRegion& r = io->region;
    r.base = reinterpret_cast<uint64_t>(t->data);
    r.elem_bytes = static_cast<uint32_t>(t->elem_bytes);
    r.rank = static_cast<uint8_t>(rank);
    r.kept = static_cast<uint16_t>(v.kept);
    r.tensor = static_cast<uint16_t>(t->index);
    io->access = static_cast<uint8_t>(a);
    io->reads = reads;
    // A region outside its tensor would let the kernel write past the bound array (the view
    // knows: View::outside). All kMaxRank dimensions are copied (the view holds offset 0,
    // size 1, stride 1 beyond the root's rank, the tensor mem_stride 0): no loop at run
    // time; readers of a region stop at its rank.
    if (v.outside != 0) {
      --pod_->num_io;
      const int d = __builtin_ctz(v.outside);
      fail("a task region is outside its tensor (dimension, extent)", d, t->shape[d]);
    }
    for (int d = 0; d < kMaxRank; ++d) {
      r.offsets[d] = v.off[d];
      r.sizes[d] = v.size[d];
      r.strides[d] = v.stride[d];
      r.mem_strides[d] = t->mem_strides[d];
    }
  }
  ScalarArg& next_arg() {
    ScalarArg& a = pod_->args[pod_->num_args++];
    a.bits = 0;
    return a;
  }
  TaskNodePod* pod_ = nullptr;
  int64_t* coords_ = nullptr;
  uint32_t slot_ = 0;
};

// The stream argument of Builder::event_record / event_wait that means every stream.
constexpr int64_t kAllStreams = INT64_MIN;

// The orchestration side of the task runtime.
class Builder {
 public:
  struct Impl;
  explicit Builder(Impl* impl) : impl_(impl) {}

  // A new task: kernel, exec domain and pool, target core (-1: the runtime decides), stream,
  // priority; site names its coordinates. May stall while the task window is full.
  TaskBuilder alloc_task(KernelId kernel, ExecDomain domain, ExecPool pool, int64_t target,
                         int64_t stream, int64_t priority, const TaskSite* site);
  // Infer the task's dependencies (TensorMap, ordering points) and hand it to the scheduler.
  void submit(TaskBuilder& task);
  // tg.ordered / tg.order_point: structural order (docs/tg.md).
  void enter_ordered();
  void order_point();
  void exit_ordered();
  // Streams and events of ordinary workloads (docs/tg.md "Events"); kAllStreams: every task.
  void use_events();
  void event_record(const char* event, int64_t stream);
  void event_wait(const char* event, int64_t stream);
  bool event_query(const char* event) const;
  // tg.seq: how many tasks this program has created so far.
  int64_t num_tasks() const;

  Impl* impl() const { return impl_; }

 private:
  Impl* impl_;
};

// A dynamic pool operand (dispatch_threshold): 0 vector, 1 cube.
inline ExecPool pool_from_index(int64_t p) {
  return p == 0 ? ExecPool::Vector : (p == 1 ? ExecPool::Cube : ExecPool::Any);
}

// Integer arithmetic with arith's semantics where C++ differs.
inline int64_t floordiv_si(int64_t a, int64_t b) {
  const int64_t q = a / b;
  return (q * b != a && ((a < 0) != (b < 0))) ? q - 1 : q;
}
inline int64_t ceildiv_si(int64_t a, int64_t b) {
  const int64_t q = a / b;
  return (q * b != a && ((a < 0) == (b < 0))) ? q + 1 : q;
}
inline int64_t ceildiv_ui(int64_t a, int64_t b) {
  const uint64_t ua = static_cast<uint64_t>(a), ub = static_cast<uint64_t>(b);
  return static_cast<int64_t>(ua / ub + (ua % ub != 0));
}
inline int64_t div_ui(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) / static_cast<uint64_t>(b));
}
inline int64_t rem_ui(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) % static_cast<uint64_t>(b));
}
inline int64_t shr_ui(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) >> b);
}
inline int64_t min_ui(int64_t a, int64_t b) {
  return static_cast<uint64_t>(a) < static_cast<uint64_t>(b) ? a : b;
}
inline int64_t max_ui(int64_t a, int64_t b) {
  return static_cast<uint64_t>(a) > static_cast<uint64_t>(b) ? a : b;
}
inline bool lt_ui(int64_t a, int64_t b) { return static_cast<uint64_t>(a) < static_cast<uint64_t>(b); }
inline bool le_ui(int64_t a, int64_t b) { return static_cast<uint64_t>(a) <= static_cast<uint64_t>(b); }

// A program argument as the launcher passes it: a view of a bound tensor, or a scalar.
struct ArgValue {
  View view;
  int64_t scalar;
};

enum ArgKind : uint8_t { kArgTensor = 0, kArgScalar = 1 };

struct ArgInfo {
  const char* name;
  uint8_t kind;  // ArgKind
  int8_t rank;
  uint8_t elem_bytes;
  const char* elem_type;  // the MLIR element type (f32, index, ...)
  int64_t static_shape[kMaxRank];  // -1 where dynamic
};

// One emitted program: its entry, signature and lowered schedule.
struct ProgramInfo {
  const char* name;
  void (*entry)(Builder&, const ArgValue*);
  int32_t num_args;
  const ArgInfo* args;
  RuntimeConfig (*config)();
};

}  // namespace wsp
}  // namespace pto

extern "C" {
extern const pto::wsp::ProgramInfo pto_wsp_programs[];
extern const int32_t pto_wsp_num_programs;
extern const char* const pto_wsp_kernel_names[];
extern const int32_t pto_wsp_num_kernels;
}
