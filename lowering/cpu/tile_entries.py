"""Tile kernels' calling conventions: the LLVM-dialect entries compiled with each kernel.

``@name__numpy`` takes numpy array objects and scalars (``TileFunction``'s ctypes call);
``@name__core(words)`` takes one array of 64-bit words (the runtime core's call,
runtime/core/bodies.cpp); ``@name__addresses`` writes both entries' addresses.
"""

from __future__ import annotations

import ctypes

from pto_wsp.lowering.cpu.tile_text import _Param

#: Byte offsets in numpy's array object (PyArrayObject_fields, numpy's C ABI, unchanged since
#: numpy 1.7): the data pointer, then (after ``int nd``) the dimensions and strides pointers.
_DATA, _DIMS, _STRIDES = 16, 32, 40


def glue(name: str, params: list[_Param]) -> str:
    """LLVM-dialect text: the two entries of ``@name`` (``_numpy_entry``, ``_core_entry``) and
    ``@name__addresses``, which writes their addresses. ``@name`` is declared with its lowered
    signature: per tensor (pointer, pointer, offset, sizes, strides), per scalar its value."""
    decl = []
    for p in params:
        decl += (
            [_LLVM_SCALARS[p.ctype]]
            if p.rank < 0
            else ["!llvm.ptr"] * 2 + ["i64"] * (1 + 2 * p.rank)
        )
    return "\n".join(
        [
            f"llvm.func @{name}({', '.join(decl)})",
            *_numpy_entry(name, params),
            *_core_entry(name, params),
            f"llvm.func @{name}__addresses(%out: !llvm.ptr) {{",
            f"  %n = llvm.mlir.addressof @{name}__numpy : !llvm.ptr",
            f"  %c = llvm.mlir.addressof @{name}__core : !llvm.ptr",
            "  %out1 = llvm.getelementptr %out[1] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr",
            "  llvm.store %n, %out : !llvm.ptr, !llvm.ptr",
            "  llvm.store %c, %out1 : !llvm.ptr, !llvm.ptr",
            "  llvm.return",
            "}",
        ]
    )


def _call(name: str, entry: str, args: list[str], body: list[str], call: list[tuple[str, str]]):
    values = ", ".join(v for v, _ in call)
    types = ", ".join(t for _, t in call)
    return [
        f"llvm.func @{name}__{entry}({', '.join(args)}) {{",
        "  %zero = llvm.mlir.constant(0 : i64) : i64",
        *body,
        f"  llvm.call @{name}({values}) : ({types}) -> ()",
        "  llvm.return",
        "}",
    ]


def _numpy_entry(name: str, params: list[_Param]) -> list[str]:
    """``@name__numpy``: takes numpy array objects and scalars and calls ``@name`` with the
    memref arguments read from the arrays (no Python work per call): TileFunction's entry."""
    args, body, call = [], [], []
    for i, p in enumerate(params):
        if p.rank < 0:
            type_ = _LLVM_SCALARS[p.ctype]
            args.append(f"%a{i}: {type_}")
            call.append((f"%a{i}", type_))
            continue
        args.append(f"%a{i}: !llvm.ptr")
        body.append(f"  %size{i} = llvm.mlir.constant({p.dtype.itemsize} : i64) : i64")
        for part, at in (("data", _DATA), ("dims", _DIMS), ("strides", _STRIDES)):
            body.append(
                f"  %{part}{i}p = llvm.getelementptr %a{i}[{at}] : (!llvm.ptr) -> !llvm.ptr, i8"
            )
            body.append(f"  %{part}{i} = llvm.load %{part}{i}p : !llvm.ptr -> !llvm.ptr")
        call += [(f"%data{i}", "!llvm.ptr"), (f"%data{i}", "!llvm.ptr"), ("%zero", "i64")]
        for part in ("dims", "strides"):
            for j in range(p.rank):
                v = f"%{part}{i}_{j}"
                body.append(
                    f"  {v}p = llvm.getelementptr %{part}{i}[{j}] : (!llvm.ptr) -> !llvm.ptr, i64"
                )
                body.append(f"  {v} = llvm.load {v}p : !llvm.ptr -> i64")
                if part == "strides":  # numpy's strides are in bytes, a memref's in elements
                    body.append(f"  {v}e = llvm.sdiv {v}, %size{i} : i64")
                    v += "e"
                call.append((v, "i64"))
    return _call(name, "numpy", args, body, call)


def _core_entry(name: str, params: list[_Param]) -> list[str]:
    """``@name__core(words)``: the runtime core's entry (runtime/core/bodies.cpp). ``words`` is
    an array of 64-bit words, per parameter in order: a tensor's data address, sizes and
    strides (in elements); a scalar's value, an integer or a double's bits by its type."""
    body, call, at = [], [], 0

    def word(type_: str) -> str:
        nonlocal at
        v = f"%w{at}"
        body.append(f"  {v}p = llvm.getelementptr %w[{at}] : (!llvm.ptr) -> !llvm.ptr, i64")
        body.append(f"  {v} = llvm.load {v}p : !llvm.ptr -> {type_}")
        at += 1
        return v

    for p in params:
        if p.rank >= 0:
            data = word("!llvm.ptr")
            call += [(data, "!llvm.ptr"), (data, "!llvm.ptr"), ("%zero", "i64")]
            call += [(word("i64"), "i64") for _ in range(2 * p.rank)]
            continue
        type_ = _LLVM_SCALARS[p.ctype]
        if type_ in ("f64", "f32"):
            v = word("f64")
            if type_ == "f32":
                body.append(f"  {v}s = llvm.fptrunc {v} : f64 to f32")
                v += "s"
        else:
            v = word("i64")
            if type_ != "i64":
                body.append(f"  {v}s = llvm.trunc {v} : i64 to {type_}")
                v += "s"
        call.append((v, type_))
    return _call(name, "core", ["%w: !llvm.ptr"], body, call)


_LLVM_SCALARS = {
    ctypes.c_int64: "i64",
    ctypes.c_int32: "i32",
    ctypes.c_int16: "i16",
    ctypes.c_int8: "i8",
    ctypes.c_double: "f64",
    ctypes.c_float: "f32",
}
