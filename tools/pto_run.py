"""``pto-run``: run a workload or pipeline on the CPU simulator and summarize what happened.

``pto-run FILE.mlir|FILE.py [--workload NAME] [--schedule NAME] [--bind name=value ...]
[--mode functional|cycles] [--workers N] [--stats-json PATH] [--trace PATH] [--gantt PATH]``

An ``.mlir`` file is parsed (with pto-wsp's dialects) and compiled with ``target="cpu_sim"``;
a ``.py`` file is run as a script and what it builds is compiled (``--entry``, default: its
``functional()`` function, else the one workload, schedule or module it defines). Bindings:
``n=4``, ``lens=[3,0,2]``, ``x=@file.npy``, ``x=zeros(4,64)``, ``x=rand(4,64)`` (seeded,
float32 unless ``dtype=``: ``rand(4,64,dtype=float64)``). In functional mode ``--save
x=out.npy`` writes a bound array after the run. The run (from binding on) takes at most the
memory the machine had available when it started, or ``--max-memory SIZE``: beyond it, an
out-of-memory error.

As pto-opt, bad input never ends in a traceback: ``file:line:col: error: ...`` for the
input, ``pto-run: error: ...`` otherwise, and exit code 1.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import json
import os
import re
import runpy
import sys
import time
import traceback
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

TOOL = "pto-run"
# (tools/diagnostics.TRACEBACK_ENV, not imported at start-up: diagnostics loads xDSL)
TRACEBACK_ENV = "PTO_WSP_TRACEBACK"


class ToolError(Exception):
    """An error reported as ``pto-run: error: <message>``."""


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=TOOL,
        description="Run a pto-wsp workload or pipeline on the CPU simulator (cpu_sim).",
    )
    p.add_argument(
        "file",
        nargs="?",
        help="an .mlir module, a .pto file, a .py program built with the Python API, or - "
        "(MLIR on stdin)",
    )
    p.add_argument("--workload", help="the workload or pipeline to run (when there are several)")
    p.add_argument("--schedule", help="the schedule to apply (when the workload has several)")
    p.add_argument("--entry", help="(.py) the function or variable giving what to run")
    p.add_argument(
        "--bind",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="an argument: n=4, lens=[3,0,2], x=@file.npy, x=zeros(4,64), x=rand(4,64)",
    )
    p.add_argument("--mode", choices=("functional", "cycles"), default="functional")
    p.add_argument(
        "--workers", type=int, help="number of workers (default: from the schedule, else 4)"
    )
    p.add_argument("--stats-json", metavar="PATH", help="write the statistics as JSON")
    p.add_argument("--trace", metavar="PATH", help="write a Chrome/Perfetto trace (JSON)")
    p.add_argument("--gantt", metavar="PATH", help="write a Gantt chart (PNG)")
    p.add_argument(
        "--save",
        action="append",
        default=[],
        metavar="NAME=PATH",
        help="write a bound array (.npy) after the run",
    )
    p.add_argument(
        "--max-memory",
        type=_memory_size,
        metavar="SIZE",
        help="the most memory the run may take, at least 1G, e.g. 8G (default: what the "
        "machine has available when the run starts; 0: no limit): beyond it the run stops "
        "with an out-of-memory error instead of meeting the system's out-of-memory killer",
    )
    p.add_argument(
        "--precompile",
        action="store_true",
        help="build the native runtime core now with the system C++ compiler (once per "
        "machine, seconds; the first run would otherwise build it); without FILE, only that",
    )
    p.add_argument("--quiet", action="store_true", help="print nothing but errors")
    return p


_SIZE = re.compile(r"^\s*(\d+(?:\.\d*)?)\s*([kmgt]?)i?b?\s*$", re.IGNORECASE)


#: The smallest memory budget: below it the libraries a run loads may fail in ways of their
#: own (OpenBLAS, under numpy, spins when it cannot map its buffers).
MIN_BUDGET = 1 << 30


def _memory_size(text: str) -> int:
    """``--max-memory``'s value in bytes: a number with an optional K, M, G or T (powers of
    1024; ``8G``, ``1536MiB``, ``1.5g``), at least ``MIN_BUDGET``, or ``0``."""
    match = _SIZE.match(text)
    if not match:
        raise argparse.ArgumentTypeError(f"{text!r} is not a size (e.g. 2G, 1536M, 0)")
    scale = 1024 ** " KMGT".index(match.group(2).upper() or " ")
    size = int(float(match.group(1)) * scale)
    if 0 < size < MIN_BUDGET:
        raise argparse.ArgumentTypeError(f"{text!r} is less than 1G (the least a run may take)")
    if size > sys.maxsize:  # what setrlimit takes
        raise argparse.ArgumentTypeError(
            f"{text!r} is beyond this platform's address range (at most {sys.maxsize // 2**40:,}T)"
        )
    return size


def _address_space() -> int | None:
    """This process's address space in bytes (Linux), else None."""
    try:
        with open("/proc/self/statm") as f:
            pages = int(f.read().split()[0])
        return pages * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError, AttributeError):
        return None


def limit_memory(budget: int | None) -> int | None:
    """Let the run take at most ``budget`` more bytes of address space (None: the memory
    available now; 0: no limit): an allocation beyond it raises MemoryError, which ``main``
    reports in one line, where the system's out-of-memory killer would end the process with
    no word (and, on the way, starve the rest of the machine). Address space is what the
    limit (RLIMIT_AS) counts; it is at least the memory used. Returns the limit set (None:
    none, e.g. not on Linux, or an existing lower limit kept)."""
    if budget == 0:
        return None
    try:
        import resource
    except ImportError:  # pragma: no cover - not on POSIX
        return None
    used = _address_space()
    source = "--max-memory"
    if budget is None:
        from pto_wsp.runtime.memory import available

        budget = available()
        source = "the memory (and swap) available when it started"
        if budget is not None and budget < MIN_BUDGET:
            budget, source = MIN_BUDGET, "1G, the least a run may take"
    if used is None or budget is None:
        return None
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    limit = min(used + budget, sys.maxsize)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    if soft != resource.RLIM_INFINITY and soft <= limit:
        return None  # a lower limit set by whoever started us: theirs
    try:
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    except (ValueError, OSError):  # pragma: no cover - refused by the system
        return None
    # What lifting needs, made now: at the limit even a tuple may not be allocated.
    _MEMORY_LIMIT[:] = [resource.setrlimit, resource.RLIMIT_AS, (soft, hard), (budget, source)]
    return limit


#: While a limit is set: setrlimit, RLIMIT_AS, the limits before, the run's budget and where
#: it comes from.
_MEMORY_LIMIT: list = []


def lift_memory_limit() -> tuple[int, str] | None:
    """Put back the address-space limit ``limit_memory`` replaced (so that an error can be
    reported, and the state of a run that failed freed); return the run's budget and where
    it came from, None if no limit was set."""
    if not _MEMORY_LIMIT:
        return None
    setrlimit, which, before, budget = _MEMORY_LIMIT
    setrlimit(which, before)
    _MEMORY_LIMIT.clear()
    return budget


# --------------------------------------------------------------------------- bindings

_SHAPED = re.compile(r"^(zeros|ones|rand)\((.*)\)$")


def parse_binding(text: str) -> tuple[str, Any]:
    """``name=value`` -> (name, int | np.ndarray)."""
    name, sep, value = text.partition("=")
    name, value = name.strip(), value.strip()
    if not sep or not name.isidentifier():
        raise ToolError(f"bad binding '{text}' (expected name=value)")
    if value.startswith("@"):
        try:
            return name, np.load(Path(value[1:]))
        except (OSError, ValueError) as error:
            raise ToolError(f"cannot load {name} from {value[1:]}: {error}") from None
    shaped = _SHAPED.match(value)
    if shaped:
        return name, _shaped(name, shaped.group(1), shaped.group(2))
    try:
        parsed = ast.literal_eval(value)
    except (ValueError, SyntaxError):
        raise ToolError(
            f"{name}={value} is not an integer, a [list], @file.npy, zeros(...), ones(...) "
            "or rand(...)"
        ) from None
    if isinstance(parsed, bool) or not isinstance(parsed, int | list | tuple):
        raise ToolError(f"{name}={value} is not an integer or a list")
    if isinstance(parsed, int):
        return name, parsed
    from pto_wsp.runtime.program import integers_only

    if not integers_only(parsed):
        raise ToolError(f"{name}={value}: a list binds integers (lengths, CSR arrays), in rows")
    try:
        return name, np.asarray(parsed, dtype=np.int64)
    except (ValueError, OverflowError) as error:  # ragged rows, beyond 64 bits
        raise ToolError(f"{name}={value}: {error}") from None


def _shaped(name: str, kind: str, args: str) -> np.ndarray:
    dims: list[int] = []
    dtype = "float32"
    for part in (a.strip() for a in args.split(",") if a.strip()):
        if part.startswith("dtype="):
            dtype = part.removeprefix("dtype=")
            continue
        if not part.isdigit():
            raise ToolError(f"{name}={kind}({args}): extents are integers (and dtype=...)")
        dims.append(int(part))
    try:
        np_dtype = np.dtype(dtype)
    except TypeError:
        raise ToolError(f"{name}: unknown dtype {dtype!r}") from None
    if kind == "zeros":
        return np.zeros(dims, np_dtype)
    if kind == "ones":
        return np.ones(dims, np_dtype)
    rng = np.random.default_rng(sum(map(ord, name)))
    return rng.standard_normal(dims).astype(np_dtype)


# --------------------------------------------------------------------------- inputs


def _load_module(path: str) -> Any:
    """The module of an .mlir or .pto file (by its extension), or of MLIR text on stdin
    (``-``), as pto-opt reads them."""
    from xdsl.utils.exceptions import DiagnosticException, ParseError

    from pto_wsp.interop.pto_parser import parse as parse_pto
    from pto_wsp.tools.diagnostics import LocatingParser, Report, universe_context

    stdin = path == "-"
    try:
        data = sys.stdin.buffer.read() if stdin else Path(path).read_bytes()
        text = data.decode("utf-8")
    except OSError as error:
        raise ToolError(f"cannot open input file '{path}': {error.strerror}") from None
    except UnicodeDecodeError as error:
        raise ToolError(f"input file '{path}' is not UTF-8: {error}") from None
    name = "<stdin>" if stdin else path
    lines = text.split("\n")
    try:
        if Path(path).suffix == ".pto":
            module = parse_pto(text, name, universe_context(), verify=False)
        else:
            module = LocatingParser(universe_context(), text, name).parse_module()
        module.verify()
    except ParseError as error:
        raise _Reported(Report.from_parse_error(error).render(TOOL, name, lines)) from None
    except DiagnosticException as error:
        from pto_wsp.tools.diagnostics import failing_op, op_location

        op = failing_op(error)
        location = op_location(op) if op is not None else None
        report = Report(location, f"'{op.name}' op {error}" if op is not None else str(error))
        raise _Reported(report.render(TOOL, name, lines)) from None
    return module


def _load_python(path: str, entry: str | None) -> Any:
    from xdsl.dialects.builtin import ModuleOp

    from pto_wsp import Schedule, Workload

    if not os.path.isfile(path):
        raise ToolError(f"cannot open input file '{path}': No such file or directory")
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    try:
        with _program_errors(path):
            namespace = runpy.run_path(path, run_name="__pto_run__")
    finally:
        sys.path.pop(0)
    names = [entry] if entry else ["functional"]
    for name in names:
        if name in namespace:
            value = namespace[name]
            what = f"{path}: {name}"
            if callable(value) and not isinstance(value, Workload):
                with _program_errors(path):
                    value = value()
                what += "()"
            if not isinstance(value, ModuleOp | Schedule | Workload) and not hasattr(
                value, "module"
            ):
                raise ToolError(
                    f"{what} is {type(value).__name__} {value!r:.60}, not a module, workload "
                    "or schedule to run"
                )
            return value
    if entry:
        raise ToolError(f"{path} defines no {entry!r}")
    found = [v for v in namespace.values() if isinstance(v, ModuleOp | Schedule | Workload)]
    if len(found) == 1:
        return found[0]
    raise ToolError(
        f"{path}: say what to run with --entry NAME (a function returning a module, workload "
        "or schedule, or a variable holding one)"
    )


@contextlib.contextmanager
def _program_errors(path: str) -> Iterator[None]:
    """A Python program that fails to load (a syntax error, an exception of its own code) as
    one error line at its innermost frame in the user's files, not a traceback through
    pto-run; pto-wsp's own errors (which name their place already) pass through."""
    if os.environ.get(TRACEBACK_ENV):
        yield  # the program's own traceback, as it is
        return
    try:
        yield
    except SyntaxError as error:
        where = f"{error.filename or path}:{error.lineno or 0}:{error.offset or 0}"
        raise ToolError(f"{where}: SyntaxError: {error.msg}") from None
    except SystemExit as error:  # the program ended itself before giving what to run
        raise ToolError(
            f"{path}: the program exited (sys.exit({error.code!r})) before giving what to run"
        ) from None
    except Exception as error:
        if type(error).__module__.startswith("pto_wsp"):
            raise
        frames = traceback.extract_tb(error.__traceback__)
        mine = [f for f in frames if not _library_file(f.filename)]
        where = f"{mine[-1].filename}:{mine[-1].lineno}: " if mine else f"{path}: "
        raise ToolError(f"{where}{type(error).__name__}: {error}") from None


def _library_file(filename: str) -> bool:
    """Whether a traceback frame is pto-wsp's (the directory of one of its loaded modules,
    or its generated code) or Python's own (runpy)."""
    from pto_wsp.errors import own_folders

    return filename.startswith("<") or os.path.abspath(filename).startswith(own_folders())


class _Reported(Exception):
    """An error already rendered (file:line:col: error: ... with the source line)."""


# --------------------------------------------------------------------------- running


def run(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.file is None and not args.precompile:
        parser.error("the following arguments are required: file")
    if args.precompile:
        _precompile(args.quiet)
        if args.file is None:
            return 0
    bindings = dict(parse_binding(b) for b in args.bind)
    saves = [s.partition("=") for s in args.save]
    for name, sep, target in saves:
        if not sep or not name or not target:
            raise ToolError(f"bad --save '{name}{sep}{target}' (expected NAME=PATH)")
        if name not in bindings:
            raise ToolError(f"--save {name}: {name} is not bound")
    # Outputs are written after the run: a path that cannot be written fails now, not after
    # a long run whose results would be lost.
    for path in (args.stats_json, args.trace, args.gantt, *(t for _, _, t in saves)):
        if path:
            _check_writable(path)
    import pto_wsp
    from pto_wsp import CompileError
    from pto_wsp.lowering.cpu.backend import compile_cpu_sim

    if args.file.endswith(".py"):
        item = _load_python(args.file, args.entry)
    else:
        item = _load_module(args.file)
    options: dict[str, Any] = {"mode": args.mode}
    if args.workers is not None:
        options["workers"] = args.workers
    if args.workload:
        options["workload"] = args.workload
    if args.schedule:
        options["schedule"] = args.schedule
    from xdsl.dialects.builtin import ModuleOp

    if not isinstance(item, ModuleOp):
        item = item.module() if hasattr(item, "module") else item
    try:
        program = compile_cpu_sim(item, **options)
    except CompileError as error:
        if args.file != "-" and os.path.abspath(error.loc.filename) == os.path.abspath(args.file):
            raise  # a line of the user's program (.py): its own place
        # The API names the line that called compile() (pto-run's caller, outside the
        # package): name the input, and the options as pto-run spells them.
        name = "<stdin>" if args.file == "-" else args.file
        message = _as_flags(error.message)
        located = message.startswith(f"{name}:")  # already at a line of the input
        raise ToolError(message if located else f"{name}: {message}") from None
    if not args.quiet:
        print(f"{TOOL}: @{program.name} ({program.mode} mode, {program.config.workers} workers)")
    limit_memory(args.max_memory)
    program.bind(**bindings)
    progress = None if args.quiet else _Progress(sys.stderr.isatty())
    program.execute(progress=progress)
    if progress is not None:
        progress.finish()
    stats = program.stats()
    for name, _, target in saves:
        try:
            with open(target, "wb") as file:  # (np.save would add .npy to a path without it)
                np.save(file, bindings[name])
        except OSError as error:
            raise ToolError(f"cannot write {target}: {error.strerror}") from None
    if args.stats_json:
        _write(args.stats_json, json.dumps(stats.as_dict(), indent=2) + "\n")
    if args.trace:
        from pto_wsp.runtime.trace import chrome_trace

        _write(args.trace, json.dumps(chrome_trace(program)) + "\n")
    if args.gantt:
        from pto_wsp.runtime.trace import write_gantt

        try:
            write_gantt(program, args.gantt)
        except ImportError as error:
            raise ToolError(f"--gantt needs matplotlib: {error}") from None
        except OSError as error:
            raise ToolError(f"cannot write {args.gantt}: {error.strerror}") from None
    if not args.quiet:
        print(stats.summary())
        for label, path in (
            ("stats", args.stats_json),
            ("trace", args.trace),
            ("gantt", args.gantt),
        ):
            if path:
                print(f"{label}: {path}")
    del pto_wsp
    return 0


def _precompile(quiet: bool) -> None:
    """``--precompile``: build the native runtime core now (once per machine), saying where."""
    from pto_wsp.runtime import precompile
    from pto_wsp.runtime.native_core import NativeCoreError

    start = time.perf_counter()
    try:
        path = precompile()
    except NativeCoreError as error:
        raise ToolError(f"--precompile: {error}") from None
    if not quiet:
        took = time.perf_counter() - start
        print(f"{TOOL}: the native runtime core is ready ({took:.1f} s): {path}")


_BIND_HINT = re.compile(r"\bbind\((\w+)=(\.\.\.|array)\)")


def _as_flags(message: str) -> str:
    """The API's hints in pto-run's spelling: ``bind(n=...)`` -> ``--bind n=...``,
    ``bind(x=array)`` -> ``--bind x=@file.npy``, ``with workload=NAME`` -> ``with
    --workload NAME``."""
    message = message.replace("with workload=NAME", "with --workload NAME")
    message = message.replace('with schedule="NAME"', "with --schedule NAME")
    return _BIND_HINT.sub(
        lambda m: f"--bind {m.group(1)}={'@file.npy' if m.group(2) == 'array' else '...'}",
        message,
    )


def _check_writable(path: str) -> None:
    """Fail (a ToolError) if ``path`` cannot be written: a directory, or in a directory that
    does not exist or that we may not write."""
    target = Path(path)
    if target.is_dir():
        raise ToolError(f"cannot write {path}: Is a directory")
    parent = target.parent
    if not parent.is_dir():
        raise ToolError(f"cannot write {path}: No such directory {str(parent)!r}")
    if not os.access(parent, os.W_OK) or (target.exists() and not os.access(target, os.W_OK)):
        raise ToolError(f"cannot write {path}: Permission denied")


def _write(path: str, text: str) -> None:
    try:
        Path(path).write_text(text)
    except OSError as error:
        raise ToolError(f"cannot write {path}: {error.strerror}") from None


class _Progress:
    """The progress of a long run on stderr: on a terminal one line rewritten in place, else
    (a log, a pipe) a line every ``every`` seconds from the first ``every`` on, so that a run
    of a huge bound size says what it is doing instead of nothing."""

    def __init__(
        self, terminal: bool, every: float = 10.0, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.terminal = terminal
        self.every = every
        self.clock = clock
        self.start = clock()
        self.next = self.start + every
        self.shown = False

    def __call__(self, created: int, completed: int) -> None:
        counts = f"{TOOL}: {created:,} tasks created, {completed:,} completed"
        if self.terminal:
            sys.stderr.write(f"\r{counts}")
            self.shown = True
        else:
            now = self.clock()
            if now < self.next:
                return
            self.next = now + self.every
            sys.stderr.write(f"{counts} after {now - self.start:.0f} s{_budget_note()}\n")
        sys.stderr.flush()

    def finish(self) -> None:
        if self.shown:
            sys.stderr.write("\n")


def _budget_note() -> str:
    """``; the run may take N GiB (why)`` while a memory limit is set, else ''."""
    if not _MEMORY_LIMIT:
        return ""
    budget, source = _MEMORY_LIMIT[3]
    return f"; the run may take {budget / 2**30:.3g} GiB ({source})"


def main(argv: Sequence[str] | None = None) -> int:
    """Run pto-run on ``argv`` (default: the command line); return the exit code."""
    from pto_wsp import ChannelError, CompileError, ExecutionError, ResourceError

    budget = None
    try:
        try:
            return run(argv)
        finally:
            budget = lift_memory_limit()
    except _Reported as error:
        sys.stderr.write(str(error))
    except (
        ToolError,
        CompileError,
        ExecutionError,
        ResourceError,
        ChannelError,
        ValueError,
    ) as error:
        if os.environ.get(TRACEBACK_ENV):
            raise
        print(f"{TOOL}: error: {_as_flags(str(error).rstrip())}", file=sys.stderr)
    except MemoryError as error:  # e.g. a size bound to 10^11: numpy cannot allocate
        if os.environ.get(TRACEBACK_ENV):
            raise
        detail = f" ({str(error).rstrip()})" if str(error) else ""
        error.__traceback__ = error.__context__ = None  # the failed run's frames: freed
        within = ""
        if budget is not None:
            within = f" (the run may take {budget[0] / 2**30:.3g} GiB: {budget[1]})"
        print(
            f"{TOOL}: error: out of memory{detail}{within}; are the bound sizes what you meant?",
            file=sys.stderr,
        )
    except KeyboardInterrupt:
        print(f"{TOOL}: interrupted", file=sys.stderr)
        return 130
    except Exception as error:  # a bug in pto-wsp, not in the input
        from pto_wsp.tools.diagnostics import internal_error

        return internal_error(TOOL, error)
    return 1


if __name__ == "__main__":
    sys.exit(main())
