"""``pto-fuzz``: mutation fuzzing of ``pto-opt`` and ``pto-run`` (docs/fuzzing.md).

Each input (tools/fuzz_inputs.py: a mutated seed and a random command) runs in a child
forked from this process (the tools stay imported, so a child costs milliseconds) under a
timeout and an address-space limit. An outcome is a success, a clean error (exit 1 or 2 and
an error message), an internal error (a traceback, an ``internal error`` line, another exit
code, or a failure that says nothing), a hang, a crash (a signal), or an output that
``pto-opt`` cannot read back. Each new kind of failure (a class and a first error line) is
minimized and saved with its command line; a table of outcomes ends the run.
"""

from __future__ import annotations

import os

# Set before numpy loads: children are forked, and OpenBLAS's thread pool does not survive it.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse
import contextlib
import dataclasses
import faulthandler
import hashlib
import random
import re
import resource
import select
import shutil
import signal
import sys
import tempfile
import time
import traceback
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pto_wsp.tools.fuzz_inputs import (
    REPOSITORY,
    TOKEN,
    Case,
    Corpus,
    Seed,
    load_corpus,
    make_case,
    registered,
)

SUCCESS = "success"
CLEAN = "clean error"
INTERNAL = "internal error"
HANG = "hang"
CRASH = "crash"
NO_READBACK = "does not read back"
CLASSES = (SUCCESS, CLEAN, INTERNAL, HANG, CRASH, NO_READBACK)
#: The outcomes that are bugs: each kind is minimized and saved.
FAILURES = (INTERNAL, HANG, CRASH, NO_READBACK)

_LOCATION = re.compile(r"^\S*:\d+:\d+: ")
_INTERNAL = re.compile(r"^[\w-]+: internal error\b")


# --- Running one input -------------------------------------------------------------------


@dataclass
class Outcome:
    """How a case ended: its class and the first line of its error."""

    kind: str
    line: str = ""
    stderr: str = ""

    @property
    def signature(self) -> str:
        """The first error line without its location and numbers: what makes a kind."""
        text = _LOCATION.sub("", self.line.strip())
        return re.sub(r"\d+", "N", text)[:160]


def _child(case: Case, memory: int | None) -> None:
    """The forked child: run ``case`` in the current directory and exit; never returns."""
    code = 70
    try:
        os.setpgid(0, 0)  # the parent kills the group: subprocesses a target starts too
        if memory:
            resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        Path(case.input_name).write_text(case.text, encoding="utf-8")
        Path("a-file").write_text("")
        _redirect("stdout", "stderr")
        faulthandler.enable()  # a crash's Python stack into the input's stderr (pytest's is ours)
        code = _call(case.tool, case.args)
        if code == 0 and case.readback is not None:
            _read_back(case)
    except BaseException:
        traceback.print_exc()
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except BaseException:
                pass
        os._exit(code)


def _redirect(stdout: str, stderr: str) -> None:
    """Point stdin at /dev/null and stdout, stderr at files, for Python and for C code."""
    for fd, path, mode in ((0, os.devnull, os.O_RDONLY), (1, stdout, 0), (2, stderr, 0)):
        flags = mode or os.O_WRONLY | os.O_CREAT | os.O_TRUNC
        target = os.open(path, flags, 0o644)
        os.dup2(target, fd)
        os.close(target)
    sys.stdin = open(0, closefd=False)  # noqa: SIM115
    sys.stdout = open(1, "w", closefd=False)  # noqa: SIM115
    sys.stderr = open(2, "w", closefd=False)  # noqa: SIM115


def _call(tool: str, args: list[str]) -> int:
    """Run a tool's ``main`` in process; its exit code (70 when an exception escaped it)."""
    from pto_wsp.tools import pto_opt, pto_run

    main = pto_opt.main if tool == "pto-opt" else pto_run.main
    try:
        return main(args)
    except SystemExit as exit_:  # argparse's usage errors, and any sys.exit() on the way
        if exit_.code is None or isinstance(exit_.code, int):
            return exit_.code or 0
        print(exit_.code, file=sys.stderr)
        return 1
    except BaseException:
        traceback.print_exc()
        return 70


def _read_back(case: Case) -> None:
    """Parse the output again with pto-opt; its exit code and errors go to readback-*."""
    written = f"out.{case.readback}"
    output = written if written in case.args else "stdout"
    sys.stdout.flush()
    shutil.copyfile(output, f"output.{case.readback}")
    _redirect(os.devnull, "readback-stderr")
    flags = [a for a in case.args if a == "--allow-unregistered-dialect"]
    code = _call("pto-opt", [f"output.{case.readback}", *flags])
    Path("readback-code").write_text(str(code))


@dataclass
class Child:
    """A running case."""

    pid: int
    pidfd: int
    case: Case
    scratch: str
    deadline: float


def start(case: Case, timeout: float, memory: int | None) -> Child:
    """Fork a child running ``case`` in a fresh directory."""
    scratch = tempfile.mkdtemp(prefix="pto-fuzz-")
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        try:
            os.chdir(scratch)
        finally:
            _child(case, memory)
    with contextlib.suppress(OSError):  # the child does it too: whichever runs first
        os.setpgid(pid, pid)
    return Child(pid, os.pidfd_open(pid), case, scratch, time.monotonic() + timeout)


def finish(child: Child, timeout: float) -> Outcome:
    """Reap ``child`` (killing it if it outlived its deadline) and classify its outcome."""
    pid, status = os.waitpid(child.pid, os.WNOHANG)
    hung = pid == 0
    kill(child)
    if hung:
        _, status = os.waitpid(child.pid, 0)
    os.close(child.pidfd)
    scratch = Path(child.scratch)
    stderr = _read(scratch / "stderr")
    readback = None
    if (scratch / "readback-code").exists():
        readback = (int(_read(scratch / "readback-code")), _read(scratch / "readback-stderr"))
    shutil.rmtree(scratch, ignore_errors=True)
    if hung:  # no error line: the command's flags, passes and target tell hangs apart
        return Outcome(HANG, f"no result after {timeout:g} s: {_shape(child.case)}", stderr)
    return classify(os.waitstatus_to_exitcode(status), stderr, readback)


def _shape(case: Case) -> str:
    """The command without its input, values and options: ``pto-opt -p wsp-to-tg -t aie``."""
    args = case.args
    kept = [
        re.sub(r"\{[^}]*\}", "", arg) if args[i - 1] in ("-p", "-t") else arg
        for i, arg in enumerate(args[1:], 1)
        if arg.startswith("-") or args[i - 1] in ("-p", "-t")
    ]
    return " ".join([case.tool, *kept])


def kill(child: Child) -> None:
    """Kill the child's process group: the child, and what it started and left behind."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(child.pid, signal.SIGKILL)


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def classify(code: int, stderr: str, readback: tuple[int, str] | None) -> Outcome:
    """The outcome of a run that ended with exit code ``code`` (negative: a signal)."""
    lines = [line for line in stderr.splitlines() if line.strip()]
    if code < 0:
        return Outcome(CRASH, f"killed by {signal.Signals(-code).name}", stderr)
    internal = [line for line in lines if _INTERNAL.match(line)]
    if "Traceback (most recent call last)" in stderr:
        exceptions = [line for line in lines if re.match(r"\w+(\.\w+)*(Error|Exception)\b", line)]
        return Outcome(INTERNAL, (exceptions or internal or lines)[-1], stderr)
    if internal:
        return Outcome(INTERNAL, internal[0], stderr)
    if code not in (0, 1, 2):
        return Outcome(INTERNAL, f"exit code {code}: {lines[0] if lines else ''}", stderr)
    if code:
        errors = [line for line in lines if "error" in line]
        if not errors:  # a failure that says nothing
            return Outcome(INTERNAL, f"exit code {code} without an error message", stderr)
        return Outcome(CLEAN, errors[0], stderr)
    if readback is not None and readback[0] != 0:
        errors = [line for line in readback[1].splitlines() if "error" in line] or ["(none)"]
        return Outcome(NO_READBACK, errors[0], readback[1])
    return Outcome(SUCCESS)


def run_case(case: Case, timeout: float, memory: int | None) -> Outcome:
    """Run ``case`` to its end."""
    child = start(case, timeout, memory)
    select.select([child.pidfd], [], [], timeout)
    return finish(child, timeout)


# --- Minimizing --------------------------------------------------------------------------


def ddmin(items: list[str], fails: Callable[[list[str]], bool]) -> list[str]:
    """Delta debugging: a smaller sublist of ``items`` that still ``fails``."""
    chunks = 2
    while len(items) >= 2:
        size = -(-len(items) // chunks)
        for begin in range(0, len(items), size):
            rest = items[:begin] + items[begin + size :]
            if fails(rest):
                items, chunks = rest, max(chunks - 1, 2)
                break
        else:
            if chunks >= len(items):
                break
            chunks = min(2 * chunks, len(items))
    return items


def minimize(case: Case, outcome: Outcome, seconds: float, timeout: float, memory: int | None):
    """``case`` with as few arguments, then lines, then tokens, as still give the same class
    and the same first error line, within ``seconds``."""
    deadline = time.monotonic() + seconds
    goal = (outcome.kind, outcome.signature)

    def same(candidate: Case) -> bool:
        if time.monotonic() > deadline:
            return False
        got = run_case(candidate, timeout, memory)
        return (got.kind, got.signature) == goal

    while (simpler := next((c for c in _simpler_commands(case) if same(c)), None)) is not None:
        case = simpler

    def fails(pieces: list[str]) -> bool:
        return same(dataclasses.replace(case, text="".join(pieces)))

    text = "".join(ddmin(case.text.splitlines(keepends=True), fails))
    starts = [0] + [m.end() for m in TOKEN.finditer(text)]
    pieces = [text[a:b] for a, b in zip(starts, starts[1:] + [len(text)], strict=True)]
    return dataclasses.replace(case, text="".join(ddmin([p for p in pieces if p], fails)))


#: The flags a command may hold that take a value.
_VALUED = {"-p", "-t", "-o", "--bind", "--workers", "--workload", "--schedule", "--mode"}


def _simpler_commands(case: Case) -> Iterator[Case]:
    """``case`` without one of its flags, one pass of its pipeline, or the options of one."""
    args = case.args
    for i, arg in enumerate(args[1:], 1):  # args[0] is the input
        if arg.startswith("-"):
            width = 2 if arg in _VALUED else 1
            yield dataclasses.replace(case, args=args[:i] + args[i + width :])
        if args[i - 1] in ("-p", "-t"):
            passes = re.split(r",(?![^{]*\})", arg)
            shorter = [passes[:k] + passes[k + 1 :] for k in range(len(passes))]
            shorter += [
                passes[:k] + [p.split("{")[0]] + passes[k + 1 :]
                for k, p in enumerate(passes)
                if "{" in p
            ]
            for pipeline in shorter:
                if pipeline:
                    yield dataclasses.replace(
                        case, args=[*args[:i], ",".join(pipeline), *args[i + 1 :]]
                    )


# --- A campaign --------------------------------------------------------------------------


@dataclass
class Kind:
    """A kind of outcome: a class and a first error line, with its first input."""

    outcome: Outcome
    case: Case
    count: int = 0
    saved: Path | None = None


@dataclass
class Summary:
    """What a campaign met."""

    inputs: int = 0
    seconds: float = 0.0
    counts: Counter[str] = field(default_factory=Counter)
    kinds: dict[tuple[str, str], Kind] = field(default_factory=dict)

    def failures(self) -> list[Kind]:
        """The kinds of failure met, most frequent first."""
        found = [k for k in self.kinds.values() if k.outcome.kind in FAILURES]
        return sorted(found, key=lambda k: -k.count)


@dataclass
class Options:
    """A campaign's settings (the command line's options)."""

    seed: int = 0
    count: int | None = 500
    minutes: float | None = None
    jobs: int = 1
    timeout: float = 10.0
    memory_mb: int = 2048
    out: Path | None = Path("fuzz-findings")
    minimize_seconds: float = 60.0
    progress: bool = False


def campaign(options: Options, corpus: Corpus | None = None) -> Summary:
    """Run a campaign: cases drawn from ``corpus``, ``options.jobs`` at a time."""
    corpus = corpus or load_corpus()
    with _multiverse_looked_up_once():
        return _campaign(options, corpus)


def _campaign(options: Options, corpus: Corpus) -> Summary:
    passes, targets = registered()
    _warm_up(corpus)
    corpus.seeds += _pto_seeds(corpus)
    memory = _address_space() + options.memory_mb * 2**20 if options.memory_mb else None
    summary = Summary()
    begin = time.monotonic()
    stop = begin + options.minutes * 60 if options.minutes is not None else None
    reported = begin
    running: dict[int, Child] = {}
    poll = select.poll()
    drawn = 0

    def more() -> bool:
        if stop is not None:
            return time.monotonic() < stop and (options.count is None or drawn < options.count)
        return drawn < (options.count or 0)

    try:
        while True:
            while len(running) < options.jobs and more():
                rng = random.Random(f"{options.seed}:{drawn}")
                case = make_case(corpus.draw(rng), corpus, rng, passes, targets)
                child = start(case, options.timeout, memory)
                running[child.pidfd] = child
                poll.register(child.pidfd, select.POLLIN)
                drawn += 1
            if not running:
                break
            wait = max(0.0, min(c.deadline for c in running.values()) - time.monotonic())
            ready = {fd for fd, _ in poll.poll(wait * 1000 + 1)}
            now = time.monotonic()
            for fd, child in list(running.items()):
                if fd in ready or now >= child.deadline:
                    poll.unregister(fd)
                    del running[fd]
                    outcome = finish(child, options.timeout)
                    _record(summary, child.case, outcome, options, memory)
            if options.progress and now - reported >= 60:
                reported = now
                print(_progress(summary, now - begin), file=sys.stderr, flush=True)
    finally:  # interrupted: no child outlives the campaign
        for child in running.values():
            kill(child)
            os.waitpid(child.pid, 0)
            shutil.rmtree(child.scratch, ignore_errors=True)
    summary.seconds = time.monotonic() - begin
    return summary


def _record(summary: Summary, case: Case, outcome: Outcome, options: Options, memory) -> None:
    summary.inputs += 1
    summary.counts[outcome.kind] += 1
    key = (outcome.kind, outcome.signature)
    kind = summary.kinds.get(key)
    if kind is None:
        kind = summary.kinds[key] = Kind(outcome, case)
        if outcome.kind in FAILURES and options.out is not None:
            kind.saved = _save(kind, options, memory)
    kind.count += 1


def _save(kind: Kind, options: Options, memory: int | None) -> Path:
    """Minimize a new failing input and write it, its command line and its errors."""
    case, outcome = kind.case, kind.outcome
    small = case
    if options.minimize_seconds > 0:
        small = minimize(case, outcome, options.minimize_seconds, options.timeout, memory)
    slug = outcome.kind.replace(" ", "-")
    digest = hashlib.sha1(outcome.signature.encode()).hexdigest()[:8]
    folder = options.out / f"{slug}-{digest}"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / small.input_name).write_text(small.text, encoding="utf-8")
    (folder / f"original.{case.ext}").write_text(case.text, encoding="utf-8")
    (folder / "command.txt").write_text(
        f"# in a directory holding {small.input_name} and an empty file a-file\n"
        f"{small.command()}\n# seed: {case.seed}\n# {outcome.kind}: {outcome.line}\n",
        encoding="utf-8",
    )
    (folder / "stderr.txt").write_text(outcome.stderr, encoding="utf-8")
    return folder


def _warm_up(corpus: Corpus) -> None:
    """Load what each child would load: the dialects the corpus names, the tools' modules,
    and the caches a first run fills, so that a child starts with them."""
    import io

    from xdsl.universe import Universe

    import pto_wsp.interop.pto_builder  # noqa: F401
    import pto_wsp.interop.pto_parser  # noqa: F401
    import pto_wsp.interop.pto_target  # noqa: F401
    import pto_wsp.lowering.cpu.backend  # noqa: F401
    import pto_wsp.runtime.trace  # noqa: F401
    from pto_wsp.tools import pto_opt, pto_run  # noqa: F401
    from pto_wsp.universe import ALL_TARGETS

    named = {token.lstrip('"').split(".")[0] for token in corpus.tokens if "." in token}
    for name, factory in Universe.get_multiverse().all_dialects.items():
        if name in named:
            factory()
    for factory in ALL_TARGETS.values():
        factory()
    example = REPOSITORY / "examples" / "attention.mlir"
    if example.exists():
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            for target in ("pto", "mlir"):
                pto_opt.main([str(example), "-p", "wsp-inline-calls,wsp-to-tg", "-t", target])


def _pto_seeds(corpus: Corpus) -> list[Seed]:
    """The examples written as .pto (``-t pto``): the lit tests hold few .pto files."""
    import io

    from pto_wsp.tools import pto_opt

    found = []
    with tempfile.TemporaryDirectory(prefix="pto-fuzz-") as scratch:
        for seed in corpus.seeds:
            if seed.runnable and seed.ext == "mlir" and seed.name.startswith("examples/"):
                source, output = Path(scratch, "seed.mlir"), Path(scratch, "seed.pto")
                source.write_text(seed.text, encoding="utf-8")
                with (
                    contextlib.redirect_stdout(io.StringIO()),
                    contextlib.redirect_stderr(io.StringIO()),
                ):
                    code = pto_opt.main([str(source), "-t", "pto", "-o", str(output)])
                if code == 0:
                    text = output.read_text(encoding="utf-8")
                    found.append(Seed(f"{seed.name} as .pto", text, "pto", seed.binds))
    return found


@contextlib.contextmanager
def _multiverse_looked_up_once() -> Iterator[None]:
    """Each run of a tool looks xDSL's entry points up (~90 ms, most of a small input's
    time); they cannot change during a campaign, so the children get the parent's."""
    from xdsl.universe import Universe

    look_up = Universe.__dict__["get_multiverse"]
    found = Universe.get_multiverse()

    def copy() -> Universe:
        return Universe(
            all_dialects=dict(found.all_dialects),
            all_passes=dict(found.all_passes),
            all_targets=dict(found.all_targets),
        )

    Universe.get_multiverse = staticmethod(copy)
    try:
        yield
    finally:
        Universe.get_multiverse = look_up


def _address_space() -> int:
    """This process's address space in bytes."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")


def _progress(summary: Summary, seconds: float) -> str:
    failures = sum(summary.counts[k] for k in FAILURES)
    return (
        f"pto-fuzz: {summary.inputs:,} inputs in {seconds:.0f} s "
        f"({summary.inputs / max(seconds, 1e-9):.1f}/s), {failures} failures"
    )


def report(summary: Summary, options: Options) -> str:
    """The summary table: inputs by class, then each kind of failure by its first line."""
    rate = summary.inputs / max(summary.seconds, 1e-9)
    out = [
        f"pto-fuzz: {summary.inputs:,} inputs in {summary.seconds:.1f} s ({rate:.1f} inputs/s), "
        f"seed {options.seed}, {options.jobs} job{'s' if options.jobs > 1 else ''}",
        "",
        f"{'class':<20} {'inputs':>9}",
    ]
    out += [f"{kind:<20} {summary.counts[kind]:>9,}" for kind in CLASSES]
    failures = summary.failures()
    if failures:
        out += ["", "failures by class and first error line:"]
        for kind in failures:
            where = f"  -> {kind.saved}" if kind.saved else ""
            out.append(f"{kind.count:>7,}  {kind.outcome.kind}: {kind.outcome.line}{where}")
    clean = sorted(
        (k for k in summary.kinds.values() if k.outcome.kind == CLEAN), key=lambda k: -k.count
    )
    if clean:
        out += ["", f"clean errors: {len(clean)} kinds, the most frequent:"]
        out += [f"{k.count:>7,}  {k.outcome.signature}" for k in clean[:10]]
    return "\n".join(out)


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="pto-fuzz",
        description="Mutation fuzzing of pto-opt and pto-run with the repository's examples "
        "and lit inputs as seeds (docs/fuzzing.md). Exit 1 when a failure was found.",
    )
    p.add_argument("--seed", type=int, default=0, help="the random seed (default 0)")
    p.add_argument(
        "--count", type=int, help="inputs to run (default 500, or no limit with --minutes)"
    )
    p.add_argument("--minutes", type=float, help="run for this long")
    p.add_argument("--jobs", type=int, default=1, help="inputs run at once (default 1)")
    p.add_argument(
        "--out", default="fuzz-findings", help="where findings go (default fuzz-findings/)"
    )
    p.add_argument(
        "--timeout",
        type=float,
        default=10.0,
        help="seconds per input before it is a hang (default 10)",
    )
    p.add_argument(
        "--memory",
        type=int,
        default=2048,
        metavar="MB",
        help="memory per input beyond the fuzzer's own (default 2048; 0: no limit)",
    )
    p.add_argument(
        "--minimize",
        type=float,
        default=60.0,
        metavar="SECONDS",
        help="time to minimize each new failure (default 60; 0: do not)",
    )
    return p  # fmt: skip


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``pto-fuzz`` on ``argv``; exit 0 when no failure was found, 1 otherwise."""
    args = _parser().parse_args(argv)
    for name in ("count", "jobs", "timeout", "minutes", "memory", "minimize"):
        value = getattr(args, name)
        least = "positive" if name in ("count", "jobs", "timeout", "minutes") else "0 or more"
        if value is not None and (value < 0 or value == 0 and least == "positive"):
            print(f"pto-fuzz: error: --{name} must be {least}", file=sys.stderr)
            return 1
    if Path(args.out).exists() and not Path(args.out).is_dir():
        print(f"pto-fuzz: error: --out {args.out} is not a directory", file=sys.stderr)
        return 1
    options = Options(
        seed=args.seed,
        count=args.count if args.count is not None or args.minutes else 500,
        minutes=args.minutes,
        jobs=args.jobs,
        timeout=args.timeout,
        memory_mb=args.memory,
        out=Path(args.out),
        minimize_seconds=args.minimize,
        progress=True,
    )
    try:
        summary = campaign(options)
    except KeyboardInterrupt:
        print("pto-fuzz: interrupted", file=sys.stderr)
        return 130
    except FileNotFoundError as error:
        print(f"pto-fuzz: error: {error}", file=sys.stderr)
        return 1
    print(report(summary, options))
    return 1 if summary.failures() else 0


if __name__ == "__main__":
    sys.exit(main())
