"""The task ABI of an emitted tree: C++ types of IR types, identifiers, task_abi.h, kernel_ids.h.

Seed 004 §6.2.1 describes tasks as a POD descriptor (``TaskNodePod``) whose tensor arguments are
2-D tile regions (``TensorRegion2D``: base, row/col offset, rows, cols). Our views cannot all be
written that way: a ``memref.subview`` is a strided box in the *index space* of an N-d tensor
(``K[b, 0:len]`` of a ``?x32768x64`` tensor, ``O[b, tile, head columns]``, strided subviews,
a rank-reduced ``Q[b][h]``), and a box of an N-d tensor maps to several disjoint row ranges of
any 2-D flattening as soon as it is cut in two non-leading dimensions. Overlap must also stay
exact (the TensorMap decides dependencies by it), which a bounding 2-D rectangle is not. So the
emitted ABI has ``TensorRegion``: per root dimension an offset, size and stride in index space
(exactly ``runtime/regions.py``'s TensorRegion), the root's memory strides to find the data,
the mask of dimensions the kernel sees, and the base address that keys the TensorMap. Its
rank is the program's highest memref rank, so descriptors stay small.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from xdsl.dialects.builtin import (
    AnyFloat,
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    IndexType,
    IntegerType,
    MemRefType,
    Signedness,
)
from xdsl.ir import Attribute

#: Limits of the ABI that no program may exceed (bit masks of dimensions are 16 wide).
MAX_RANK = 16

# C++ keywords and names the generated code uses itself (Tile..Elem: tile.h's, in tile bodies).
_CXX_KEYWORDS = frozenset(
    """alignas alignof and and_eq asm auto bitand bitor bool break case catch char char8_t
    char16_t char32_t class compl concept const consteval constexpr constinit const_cast
    continue co_await co_return co_yield decltype default delete do double dynamic_cast else
    enum explicit export extern false float for friend goto if inline int long mutable
    namespace new noexcept not not_eq nullptr operator or or_eq private protected public
    register reinterpret_cast requires return short signed sizeof static static_assert
    static_cast struct switch template this thread_local throw true try typedef typeid
    typename union unsigned using virtual void volatile wchar_t while xor xor_eq
    int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t uint64_t size_t pto std
    GM_ADDR main Tile TileAt Space Cmp Elem""".split()
)


def identifier(name: str) -> str:
    """A C++ identifier for a symbol or value name: invalid characters become ``_``, and a
    name that would clash with a keyword or a reserved spelling gets a ``v_`` prefix."""
    text = re.sub(r"[^A-Za-z0-9_]", "_", name)
    text = re.sub(r"__+", "_", text)
    if not text or not text[0].isalpha() or text in _CXX_KEYWORDS:
        text = "v_" + text.lstrip("_")
    return text


@dataclass(frozen=True)
class Element:
    """A memref element type in C++: its spelling, its size, and whether it is an integer."""

    mlir: str
    cxx: str
    size: int
    integer: bool


def element(type_: Attribute) -> Element | None:
    """The C++ element type of a memref element type, or None if the ABI has none."""
    if isinstance(type_, IndexType):
        return Element("index", "int64_t", 8, True)
    if isinstance(type_, IntegerType):
        width = type_.width.data
        if width == 1:
            return Element("i1", "bool", 1, True)
        if width not in (8, 16, 32, 64):
            return None
        unsigned = type_.signedness.data == Signedness.UNSIGNED
        return Element(str(type_), f"{'u' if unsigned else ''}int{width}_t", width // 8, True)
    if isinstance(type_, Float32Type):
        return Element("f32", "float", 4, False)
    if isinstance(type_, Float64Type):
        return Element("f64", "double", 8, False)
    if isinstance(type_, Float16Type):
        return Element("f16", "pto::wsp::f16_t", 2, False)
    if isinstance(type_, BFloat16Type):
        return Element("bf16", "pto::wsp::bf16_t", 2, False)
    if isinstance(type_, AnyFloat):
        return None
    return None


#: A kernel scalar parameter's type -> its C++ type and its field of ``ScalarArg``.
_SCALARS = {
    "index": ("int64_t", "i64"),
    "i64": ("int64_t", "i64"),
    "i32": ("int32_t", "i32"),
    "i1": ("bool", "i1"),
    "f64": ("double", "f64"),
    "f32": ("float", "f32"),
    "f16": ("pto::wsp::f16_t", "f16"),
}


def scalar(type_: Attribute) -> tuple[str, str] | None:
    """The C++ type of a kernel's scalar parameter and the ``ScalarArg`` field carrying it."""
    return _SCALARS.get(str(type_))


def memref_rank(type_: MemRefType) -> int:
    return len(type_.get_shape())


@dataclass(frozen=True)
class AbiLimits:
    """The sizes of the descriptor arrays of one emitted tree."""

    max_rank: int
    max_args: int
    max_io: int
    max_coords: int


def task_abi_h(limits: AbiLimits) -> str:
    """task_abi.h: the POD task descriptor (seed 004 §6.2.1), sized for this tree."""
    return f"""\
// Generated by pto-wsp (lowering/ascend): the task ABI shared by the AICPU orchestration,
// the AICore wrappers and the runtime. Plain C++ POD types: device-copyable, no STL.
#pragma once

#include <stdint.h>

namespace pto {{
namespace wsp {{

// Execution domain and pool, numbered as seed 004 §6.2.1 (and runtime/graph.py).
enum class ExecDomain : uint8_t {{ HostCPU = 0, AscendAICore = 1, AMDAIETile = 2 }};
enum class ExecPool : uint8_t {{ Vector = 0, Cube = 1, Any = 255 }};
enum class Access : uint8_t {{ In = 0, Out = 1, InOut = 2 }};

typedef uint32_t TaskId;
typedef uint16_t KernelId;
typedef uint16_t StreamId;
typedef uint16_t TargetId;
static const TargetId kAnyTarget = 0xFFFF;  // the runtime decides

// Sizes of this tree's descriptors: the highest memref rank, the most scalar and tensor
// parameters of a kernel, the most coordinates of a task.
static const int kMaxRank = {limits.max_rank};
static const int kMaxArgs = {max(limits.max_args, 1)};
static const int kMaxIO = {max(limits.max_io, 1)};
static const int kMaxCoords = {max(limits.max_coords, 1)};

// A strided box of a root tensor's index space (seed 004's TensorRegion2D generalised to
// N-d: see lowering/ascend/abi.py). Along root dimension d it covers the indices
// offsets[d] + k * strides[d], 0 <= k < sizes[d]. The TensorMap keys regions by `base` and
// decides overlap in index space; kernels address data with mem_strides (elements).
struct TensorRegion {{
  uint64_t base;                  // the root tensor's address (GM)
  int64_t offsets[kMaxRank];
  int64_t sizes[kMaxRank];
  int64_t strides[kMaxRank];
  int64_t mem_strides[kMaxRank];  // elements between neighbours along each root dimension
  uint32_t elem_bytes;
  uint8_t rank;                   // the root tensor's rank
  uint8_t reserved;
  uint16_t kept;                  // bit d: root dimension d is a dimension of the kernel's view
  uint16_t tensor;                // the program argument it belongs to
  uint16_t reserved2[3];
}};

// One scalar argument: the field of its kernel parameter's C type holds it (index and i64
// in i64, f16 as its IEEE bits); `bits` is the whole slot, zeroed before a field is set.
union ScalarArg {{
  int64_t i64;
  int32_t i32;
  bool i1;
  float f32;
  double f64;
  uint16_t f16;
  uint64_t bits;
}};

struct TaskIO {{
  TensorRegion region;
  uint8_t access;  // Access
  // An In region's dependency tracking (ReadMark): 0 a recorded reader; 1 lookup (every
  // task writing its tensor came before: its writers looked up, no reader recorded); 2 a
  // tensor no task writes (nothing to look up).
  uint8_t reads;
  uint8_t reserved[6];
}};

// One task (seed 004 §6.2.1 TaskNodePod), as the AICore wrapper reads it.
struct TaskNodePod {{
  TaskId id;
  KernelId kernel;
  ExecDomain domain;
  ExecPool pool;
  StreamId stream;
  TargetId affinity;     // the target core, or kAnyTarget
  int32_t fanin;         // dependencies found at submit
  uint32_t fanout_begin; // static graphs: index into the flat fanout edges
  uint16_t fanout_count;
  uint16_t num_args;
  uint16_t num_io;
  uint16_t sched_tags;   // bit 0: barrier node (no kernel)
  int64_t priority;
  ScalarArg args[kMaxArgs];  // the kernel's scalar parameters, in order
  TaskIO io[kMaxIO];
}};

static const uint16_t kTagBarrier = 1;

}}  // namespace wsp
}}  // namespace pto
"""
