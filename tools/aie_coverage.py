"""How much of mlir-aie's test suite our ``aie``/``aiex`` dialects parse, verify and re-print.

    python3 -m pto_wsp.tools.aie_coverage /path/to/mlir-aie [--show CAUSE] [-v]

Walks ``test/`` of an mlir-aie checkout (never committed here), splits each ``.mlir`` file on
``// -----`` and keeps the valid inputs: chunks of files that aie-opt must reject (``not``
RUN lines), chunks with ``expected-error``, chunks without any ``aie``/``aiex`` op and chunks
using a dialect we do not claim (aievec, xllvm, transform, ...) are excluded, counted by reason.
Each kept chunk must parse, verify, print, and re-parse to the same module. Prints the figure
and the failures grouped by cause (unknown op, unknown attribute or type, syntax, verifier
rejection, printer mismatch, crash), most common first.
"""

from __future__ import annotations

import argparse
import re
import signal
import sys
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from io import StringIO
from pathlib import Path

from xdsl.context import Context
from xdsl.dialects import affine, arith, builtin, cf, func, llvm, math, memref, scf, vector
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import ParseError, VerifyException

from pto_wsp.dialects.aie import AIE
from pto_wsp.dialects.aiex import AIEX

CLAIMED = {
    "aie",
    "aiex",
    "builtin",
    "func",
    "arith",
    "memref",
    "scf",
    "cf",
    "llvm",
    "math",
    "vector",
    "affine",
}
# Device placeholders lit substitutes with sed (npu-xrt tests, a few dialect tests).
PLACEHOLDERS = ("NPUDEVICE", "DEVICE")
_SED = re.compile(r"sed 's/(NPUDEVICE|DEVICE)/(\w+)/g'")
_OP = re.compile(r'^\s*(?:%[^=]*=\s*)?"?([a-z_][a-z0-9_]*)\.[a-z_][\w.]*', re.M)
_UNKNOWN_OP = re.compile(r"Operation ([\w.]+) is not registered")
_UNKNOWN_ATTR = re.compile(r"'([\w.]+)' is not registered")


@dataclass
class Chunk:
    """One ``// -----`` piece of a test file."""

    path: Path
    index: int
    text: str
    file_text: str

    @property
    def where(self) -> str:
        return f"{self.path}#{self.index}"


def chunks(root: Path) -> Iterator[Chunk]:
    """Every chunk of every ``.mlir`` file under ``root/test``, in path order."""
    for path in sorted((root / "test").rglob("*.mlir")):
        text = path.read_text(errors="replace")
        for i, piece in enumerate(re.split(r"^// -----.*$", text, flags=re.M)):
            if piece.strip():
                yield Chunk(path, i, piece, text)


def exclusion(chunk: Chunk) -> str | None:
    """Why a chunk is not a valid input we claim, or None when it is one."""
    runs = [line for line in chunk.file_text.splitlines() if "RUN:" in line]
    if any(re.search(r"\bnot\b\s+(%|aie|python)", run) for run in runs):
        return "the file's RUN line expects failure (not ...)"
    if "expected-error" in chunk.text:
        return "expected-error"
    dialects = set(_OP.findall(chunk.text))
    if not dialects & {"aie", "aiex"}:
        return "no aie/aiex op"
    foreign = sorted(dialects - CLAIMED)
    if foreign:
        return "uses " + ", ".join(foreign)
    return None


def _device_for(path: Path, placeholder: str) -> str:
    """The device the first sed of the test's RUN lines (or its run.lit) puts for a placeholder."""
    for source in (path, *sorted(path.parent.glob("run*.lit"))):
        for key, device in _SED.findall(source.read_text(errors="replace")):
            if key == placeholder:
                return device
    return "npu1_1col"


def context() -> Context:
    """Our AIE dialects with the upstream ones xDSL provides."""
    ctx = Context()
    for dialect in (
        builtin.Builtin,
        func.Func,
        arith.Arith,
        memref.MemRef,
        scf.Scf,
        cf.Cf,
        llvm.LLVM,
        math.Math,
        vector.Vector,
        affine.Affine,
        AIE,
        AIEX,
    ):
        ctx.load_dialect(dialect)
    return ctx


def _render(ctx: Context, text: str, name: str) -> tuple[str, str]:
    """The module's text, and its text without SSA names (xDSL shortens names ending in _N on
    every round, so the round trip compares the unnamed forms)."""
    module = Parser(ctx, text, name).parse_module()
    module.verify()
    named = _print(module)
    for op in module.walk():
        for value in (*op.results, *(a for r in op.regions for b in r.blocks for a in b.args)):
            value.name_hint = None
    return named, _print(module)


def _print(module: builtin.ModuleOp) -> str:
    out = StringIO()
    Printer(stream=out).print_op(module)
    return out.getvalue()


def _line_op(text: str, error: ParseError) -> str:
    """The op name on the line a parse error points at."""
    line = text[: error.span.start].count("\n")
    source = text.splitlines()[line] if line < len(text.splitlines()) else ""
    found = _OP.search(source)
    return found.group(0).split("=")[-1].strip().strip('"') if found else source.strip()[:40]


def check(ctx: Context, chunk: Chunk) -> tuple[str, str] | None:
    """None when the chunk round-trips, else (cause, detail)."""
    text = _substituted(chunk)
    try:
        first, first_bare = _render(ctx, text, chunk.where)
    except ParseError as error:
        message = str(error).strip().splitlines()
        head = next((m for m in message if "rror" in m or "nknown" in m), message[-1])
        if unknown := _UNKNOWN_OP.search(str(error)):
            return "unknown op", unknown.group(1)
        if unknown := _UNKNOWN_ATTR.search(str(error)):
            return "unknown attribute or type", unknown.group(1)
        return "syntax", f"{_line_op(text, error)}: {_short(head)}"
    except VerifyException as error:
        return "verifier rejection", _short(str(error).splitlines()[0])
    except Exception as error:  # a crash is a finding, not the end of the measurement
        return "crash", f"{type(error).__name__}: {_short(str(error))}"
    try:
        _, second_bare = _render(ctx, first, chunk.where)
    except Exception as error:
        return "printer mismatch", f"re-parse: {_short(str(error).strip().splitlines()[-1])}"
    if first_bare != second_bare:
        return "printer mismatch", "second print differs"
    return None


def _rejects(ctx: Context, chunk: Chunk) -> bool:
    """Whether a chunk upstream rejects fails to parse or verify here too."""
    try:
        _render(ctx, _substituted(chunk), chunk.where)
    except Exception:
        return True
    return False


def _substituted(chunk: Chunk) -> str:
    text = chunk.text
    for key in PLACEHOLDERS:
        text = re.sub(rf"\b{key}\b", _device_for(chunk.path, key), text)
    return text


def _short(text: str) -> str:
    return re.sub(r"\d+", "N", text.strip())[:110]


def main(argv: list[str] | None = None) -> int:
    """Measure and print the coverage figure."""
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args.add_argument("checkout", type=Path, help="an mlir-aie checkout (its test/ is read)")
    args.add_argument("--show", help="list the chunks whose failure detail contains this text")
    args.add_argument("-v", "--verbose", action="store_true", help="list every failing chunk")
    opts = args.parse_args(argv)
    if not (opts.checkout / "test").is_dir():
        print(f"aie_coverage: {opts.checkout}/test is not a directory", file=sys.stderr)
        return 1
    ctx = context()
    excluded: Counter[str] = Counter()
    failures: dict[str, Counter[str]] = defaultdict(Counter)
    examples: dict[tuple[str, str], list[str]] = defaultdict(list)
    passed = total = negative = rejected = 0
    for chunk in chunks(opts.checkout):
        if reason := exclusion(chunk):
            excluded[reason] += 1
            if reason == "expected-error":
                negative += 1
                rejected += _rejects(ctx, chunk)
            continue
        total += 1
        outcome = check(ctx, chunk)
        if outcome is None:
            passed += 1
            continue
        cause, detail = outcome
        failures[cause][detail] += 1
        examples[outcome].append(chunk.where.removeprefix(str(opts.checkout) + "/"))
    _report(passed, total, excluded, failures, examples, opts)
    print(
        f"upstream's expected-error chunks we reject too (for any reason): {rejected} / {negative}"
    )
    return 0


def _report(
    passed: int,
    total: int,
    excluded: Counter[str],
    failures: dict[str, Counter[str]],
    examples: dict[tuple[str, str], list[str]],
    opts: argparse.Namespace,
) -> None:
    print(f"valid inputs passing: {passed} / {total} ({100 * passed / max(total, 1):.1f}%)")
    print(f"excluded chunks: {sum(excluded.values())}")
    for reason, n in excluded.most_common(12):
        print(f"  {n:5d}  {reason}")
    print("failures by cause:")
    for cause, details in sorted(failures.items(), key=lambda kv: -sum(kv[1].values())):
        print(f"  {sum(details.values()):5d}  {cause}")
        for detail, n in details.most_common(None if opts.verbose else 15):
            print(f"    {n:5d}  {detail}")
            if opts.verbose or (opts.show and opts.show in detail):
                for where in examples[(cause, detail)][:8]:
                    print(f"             {where}")


if __name__ == "__main__":
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `| head` ends the report quietly
    sys.exit(main())
