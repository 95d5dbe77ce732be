"""Scalar bodies of the CPU numerics' ``linalg.generic`` ops: MLIR text computing one element.

Each function gives the body lines (values named ``%r``, ``%z``, ...: callers rename them when
they chain two) and the value computed, for element type names (``f32``, ``i8``, ...).
"""

from __future__ import annotations

import numpy as np


def float_literal(x: float, type_: str) -> str:
    if type_ == "f32":
        return f"0x{int(np.float32(x).view(np.uint32)):08X}"
    if type_ == "f16":
        return f"0x{int(np.float16(x).view(np.uint16)):04X}"
    if type_ == "bf16":
        return f"0x{int(np.float32(x).view(np.uint32)) >> 16:04X}"
    return f"0x{int(np.float64(x).view(np.uint64)):016X}"


FLOAT_BINARY = {
    "add": "arith.addf",
    "sub": "arith.subf",
    "mul": "arith.mulf",
    "div": "arith.divf",
    "max": "arith.maximumf",
    "min": "arith.minimumf",
}
INT_BINARY = {
    "add": "arith.addi",
    "sub": "arith.subi",
    "mul": "arith.muli",
    "max": "arith.maxsi",
    "min": "arith.minsi",
}
PREDICATES_F = {"eq": "oeq", "ne": "une", "lt": "olt", "le": "ole", "gt": "ogt", "ge": "oge"}
PREDICATES_I = {"eq": "eq", "ne": "ne", "lt": "slt", "le": "sle", "gt": "sgt", "ge": "sge"}


def is_float(t: str) -> bool:
    return t.startswith(("f", "bf"))


def binary(kind: str, a: str, b: str, t: str) -> tuple[list[str], str]:
    """The body lines of ``a kind b`` on type ``t``, and the value computed."""
    if kind == "div" and not is_float(t):
        return int_div(a, b, t)
    op = (FLOAT_BINARY if is_float(t) else INT_BINARY)[kind]
    return [f"%r = {op} {a}, {b} : {t}"], "%r"


def int_div(a: str, b: str, t: str) -> tuple[list[str], str]:
    """``a / b`` truncating, and total as numpy's integer division is: ``x / 0`` is 0 and
    ``MIN / -1`` wraps to MIN (a bare ``divsi`` traps on both, killing the process)."""
    least = -(2 ** (width(t) - 1))
    return [
        f"%dv0 = arith.constant 0 : {t}",
        f"%dv1 = arith.constant 1 : {t}",
        f"%dvm = arith.constant {least} : {t}",
        f"%dvn = arith.constant -1 : {t}",
        f"%dvz = arith.cmpi eq, {b}, %dv0 : {t}",
        f"%dva = arith.cmpi eq, {a}, %dvm : {t}",
        f"%dvb = arith.cmpi eq, {b}, %dvn : {t}",
        "%dvo = arith.andi %dva, %dvb : i1",
        "%dvx = arith.ori %dvz, %dvo : i1",
        f"%dvd = arith.select %dvx, %dv1, {b} : {t}",
        f"%dvq = arith.divsi {a}, %dvd : {t}",
        f"%r = arith.select %dvz, %dv0, %dvq : {t}",
    ], "%r"


def unary(kind: str, a: str, t: str) -> tuple[list[str], str]:
    if kind in ("exp", "log", "sqrt", "rsqrt"):
        return [f"%r = math.{kind} {a} : {t}"], "%r"
    if kind == "recip":
        return [f"%one = arith.constant 1.0 : {t}", f"%r = arith.divf %one, {a} : {t}"], "%r"
    if kind == "abs":
        return [f"%r = math.abs{'f' if is_float(t) else 'i'} {a} : {t}"], "%r"
    zero = "0.0" if is_float(t) else "0"
    if kind == "neg":
        if is_float(t):
            return [f"%r = arith.negf {a} : {t}"], "%r"
        return [f"%z = arith.constant 0 : {t}", f"%r = arith.subi %z, {a} : {t}"], "%r"
    assert kind == "relu"
    lines, value = binary("max", a, "%z", t)
    return [f"%z = arith.constant {zero} : {t}", *lines], value


def cast(a: str, src: str, dst: str) -> tuple[list[str], str]:
    """Element type conversion; float to int rounds to nearest even, as the dialect says."""
    if src == dst:
        return [], a
    if is_float(src) and is_float(dst):
        op = "arith.extf" if width(dst) > width(src) else "arith.truncf"
        return [f"%r = {op} {a} : {src} to {dst}"], "%r"
    if is_float(src):
        return [f"%n = math.roundeven {a} : {src}", f"%r = arith.fptosi %n : {src} to {dst}"], "%r"
    if is_float(dst):
        return [f"%r = arith.sitofp {a} : {src} to {dst}"], "%r"
    op = "arith.extsi" if width(dst) > width(src) else "arith.trunci"
    return [f"%r = {op} {a} : {src} to {dst}"], "%r"


def width(t: str) -> int:
    return int(t.removeprefix("bf").lstrip("fi"))


def identity(kind: str, t: str) -> str:
    """The start value of a ``sum``/``max``/``min`` reduction over ``t``."""
    if kind == "sum":
        return "0.0" if is_float(t) else "0"
    if is_float(t):
        return float_literal(-np.inf if kind == "max" else np.inf, t)
    info = np.iinfo(f"int{width(t)}")
    return str(info.min if kind == "max" else info.max)
