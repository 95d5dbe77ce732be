"""``pto-opt``: xdsl-opt with pto-wsp's dialects and passes, and MLIR-style diagnostics.

It keeps every convention of ``xdsl-opt`` (``-p`` pipelines with options, ``-o``, stdin,
``--split-input-file``, ``--verify-diagnostics``, ``--parsing-diagnostics``, ``-t`` ...) and
knows every dialect, pass and target of the ``xdsl.universe`` entry points: xDSL's and ours.
What it adds: bad input never ends in a Python traceback. Each error is one
``file:line:col: error: message`` line (``pto-opt: error: message`` when nothing in the input
is to blame) and a non-zero exit; ``-o FILE`` is only written when the whole run succeeds.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import difflib
import inspect
import os
import signal
import sys
import tempfile
import threading
import typing
import warnings
from collections.abc import Callable, Iterator, Sequence
from importlib.metadata import PackageNotFoundError, version
from io import BytesIO, StringIO
from pathlib import Path
from typing import IO, Any

from xdsl.utils.arg_spec import ArgSpec, parse_pipeline, parse_spec
from xdsl.utils.exceptions import (
    ArgSpecParseError,
    DiagnosticException,
    ParseError,
    ShrinkException,
)
from xdsl.utils.hints import isa
from xdsl.xdsl_opt_main import xDSLOptMain

from pto_wsp.tools.diagnostics import (
    TRACEBACK_ENV,
    LocatingParser,
    Report,
    failing_op,
    generic_text,
    internal_error,
    op_location,
)

TOOL = "pto-opt"
STDIN_NAME = "<stdin>"


class ToolError(Exception):
    """An error with no place in the input: reported as ``pto-opt: error: <message>``."""


def _pto_wsp_version() -> str:
    try:
        return version("pto-wsp")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "unknown"


class PtoOptMain(xDSLOptMain):
    """The pto-opt driver: xDSLOptMain with located diagnostics and all-or-nothing output."""

    # VersionAction fills in {xdsl_version}; ours is known now.
    version_format = f"{TOOL} {_pto_wsp_version()} built from xdsl version {{xdsl_version}}"

    def __init__(self, args: Sequence[str] | None = None) -> None:
        # Lines of the input, to quote the line an error points at.
        self._source_lines: list[str] = []
        super().__init__(
            description=f"{TOOL}: the pto-wsp modular optimizer driver (xdsl-opt conventions)",
            args=args,
        )
        self._check_target()

    def register_all_arguments(self, arg_parser: argparse.ArgumentParser) -> None:
        """xdsl-opt's arguments, under pto-opt's name (also when run as ``python -m``)."""
        arg_parser.prog = TOOL
        super().register_all_arguments(arg_parser)
        # mlir-opt spells xdsl-opt's --print-debuginfo this way; accept both.
        arg_parser.add_argument(
            "--mlir-print-debuginfo",
            dest="print_debuginfo",
            action="store_true",
            help="the same as --print-debuginfo (mlir-opt's spelling)",
        )
        arg_parser.add_argument(
            "--emit-irdl",
            action="store_true",
            help="print the IRDL definition of pto-wsp's dialects (docs/interop.md) and exit",
        )

    def register_all_frontends(self) -> None:
        """MLIR, and the .pto assembly of seed 000 §8 (by extension, or ``-f pto``)."""
        super().register_all_frontends()
        from pto_wsp.interop.pto_target import pto_frontend

        self.available_frontends["pto"] = pto_frontend(self)

    def register_all_targets(self) -> None:
        """xDSL's targets, and ``-t pto``: the module printed as .pto text."""
        super().register_all_targets()
        from pto_wsp.interop.pto_target import pto_target

        self.available_targets["pto"] = pto_target

    # --- Command line: pipeline and target -------------------------------------------------

    def setup_pipeline(self) -> None:
        """Build each pass once on its own, so that an error names the pass, then let xDSL
        build the pipeline (with its verify-between-passes callback)."""
        try:
            specs = parse_pipeline(self.args.passes)
        except ArgSpecParseError as error:
            raise ToolError(str(error).rstrip()) from None
        for spec in specs:
            if spec.name not in self.available_passes:
                raise ToolError(_unknown("pass", spec.name, self.available_passes))
            _instantiate("pass", spec, self.available_passes[spec.name])
        super().setup_pipeline()

    def _check_target(self) -> None:
        """Reject bad ``-t name{options}`` now rather than after all the work is done.

        A target that writes a directory (``writes_directory``, e.g. ``ascend``) gets the
        ``-o`` path as its ``out_dir``; it needs one."""
        spec = parse_spec(self.args.target)
        factory = self.available_targets[spec.name]
        self._directory_target = None
        if not inspect.signature(factory).parameters:  # old-style targets take no options
            target = _instantiate("target", spec, factory)
            if getattr(target, "writes_directory", False):
                if self.args.output_file in (None, "-"):
                    raise ToolError(f"target '{spec.name}' writes a directory: give it with -o DIR")
                if self.args.split_input_file:
                    raise ToolError(
                        f"target '{spec.name}' writes one directory per input: "
                        "it cannot take --split-input-file"
                    )
                self._directory_target = dataclasses.replace(target, out_dir=self.args.output_file)

    def output_resulting_program(self, prog: Any) -> str:
        """Print with the target; a directory target writes its files and lists them."""
        if self._directory_target is None:
            return super().output_resulting_program(prog)
        listing = StringIO()
        self._directory_target.emit(self.ctx, prog, listing)
        return listing.getvalue()

    # --- Input ------------------------------------------------------------------------------

    def _reads_stdin(self) -> bool:
        return self.args.input_file in (None, "-")

    def get_input_name(self) -> str:
        """The file name diagnostics use: the path as given, or ``<stdin>``."""
        return STDIN_NAME if self._reads_stdin() else self.args.input_file

    def get_input_stream(self) -> tuple[IO[bytes], str]:
        """Read the whole input now: a missing file is a clean error, and diagnostics quote
        its lines. The extension picks the frontend, as in xdsl-opt (stdin is MLIR)."""
        name = self.get_input_name()
        try:
            data = sys.stdin.buffer.read() if self._reads_stdin() else Path(name).read_bytes()
            text = data.decode("utf-8")
        except OSError as error:
            raise ToolError(f"cannot open input file '{name}': {error.strerror}") from None
        except UnicodeDecodeError as error:
            raise ToolError(f"input file '{name}' is not UTF-8: {error}") from None
        self._source_lines = text.split("\n")
        extension = "mlir" if self._reads_stdin() else Path(name).suffix.removeprefix(".")
        return BytesIO(data), extension

    # --- Processing -------------------------------------------------------------------------

    def run(self) -> int:
        """Process the input chunk by chunk; return 0 if every chunk succeeded, else 1."""
        if self.args.emit_irdl:
            from pto_wsp.interop.irdl import irdl_text

            sys.stdout.write(irdl_text())
            return 0
        try:
            chunks, self._frontend = self.prepare_input()
        except ValueError as error:  # an input extension no frontend handles
            raise ToolError(f"{error}; choose a frontend with -f") from None
        to_stdout = self.args.output_file in (None, "-") or self._directory_target is not None
        output = None if to_stdout else OutputFile(self.args.output_file)
        succeeded = False
        try:
            stream = sys.stdout if output is None else output.stream
            succeeded = self._process_chunks(chunks, stream)
        except ShrinkException:  # xdsl-opt's protocol with the shrinkray test-case reducer
            print("Success, can shrink")
            return 0
        finally:
            if output is not None:
                output.finish(keep=succeeded)
        if self.args.shrink:
            print("Failure, can't shrink")
            return 1
        return 0 if succeeded else 1

    def _process_chunks(self, chunks: list[tuple[IO[bytes], int]], stream: IO[str]) -> bool:
        """Process every chunk, even after one fails (as mlir-opt does); True if none failed."""
        succeeded = True
        for index, (chunk, line_offset) in enumerate(chunks):
            if index > 0:
                stream.write("// -----\n")
            with chunk:
                text = self._process_chunk(chunk.read().decode("utf-8"), line_offset)
            if text is None:
                succeeded = False
            else:
                stream.write(text)
            stream.flush()
        return succeeded

    def _process_chunk(self, text: str, line_offset: int) -> str | None:
        """Parse, transform and print one chunk. On an error, report it and return None, or
        "" when --parsing-diagnostics / --verify-diagnostics say the error is expected.

        The input is MLIR, or .pto (pto_wsp.interop): both parsers locate ops."""
        parser = module = None
        try:
            if getattr(self, "_frontend", "mlir") == "pto":
                from pto_wsp.interop.pto_parser import parse as parse_pto

                module = parse_pto(text, self.get_input_name(), self.ctx, line_offset, False)
            else:
                # The parser lexes its first token at once: a ParseError may come from here.
                parser = LocatingParser(self.ctx, text, self.get_input_name(), line_offset)
                module = parser.parse_module(not self.args.no_implicit_module)
            self.apply_passes(module)
            return self.output_resulting_program(module)
        except ParseError as error:
            report = Report.from_parse_error(error, line_offset)
            expected = self.args.parsing_diagnostics
        except DiagnosticException as error:
            report = _diagnostic_report(error, parser if module is None else None)
            expected = self.args.verify_diagnostics
        rendered = report.render(TOOL, self.get_input_name(), self._source_lines)
        # Expected diagnostics go to stdout, as xdsl-opt prints them, for FileCheck.
        (sys.stdout if expected else sys.stderr).write(rendered)
        return "" if expected else None


def _diagnostic_report(error: DiagnosticException, parser: LocatingParser | None) -> Report:
    """Locate a verifier or pass error: at the op it is about, else (when it was raised while
    parsing, e.g. by an attribute's verifier) at the parser's position, else nowhere."""
    # Errors of the .pto printer name the op that .pto cannot express (no note: the op
    # may be a whole workload).
    exported = getattr(error, "op", None)
    if exported is not None:
        return Report(op_location(exported), f"'{exported.name}' op {error}")
    op = failing_op(error)
    if op is not None:
        location = op_location(op)
        report = Report(location, f"'{op.name}' op {error}")
        report.notes.append((location, f"see current operation: {generic_text(op)}"))
        return report
    if parser is not None:
        return Report(parser.failure_location(), str(error))
    # Without an op, xDSL's notes (the IR with the error marked) are all the context there is.
    notes = [(None, note) for note in getattr(error, "__notes__", [])]
    return Report(None, str(error), notes=notes)


def _unknown(kind: str, name: str, known: dict[str, Any]) -> str:
    message = f"unknown {kind} '{name}'"
    close = difflib.get_close_matches(name, known, n=3)
    if close:
        message += f"; did you mean {', '.join(repr(c) for c in close)}?"
    return message + f" (`{TOOL} --help` lists them)"


def _instantiate(kind: str, spec: ArgSpec, factory: Callable[[], Any]) -> Any:
    """Load a pass or target and apply its options, turning failures into ToolErrors."""
    try:
        return factory().from_spec(spec)
    except ImportError as error:
        raise ToolError(f"{kind} '{spec.name}' cannot be loaded: {error}") from None
    except (ValueError, TypeError) as error:
        detail = _wrong_option(factory(), spec) or str(error)
        raise ToolError(f"invalid options for {kind} '{spec.name}': {detail}") from None


def _wrong_option(cls: Any, spec: ArgSpec) -> str | None:
    """Which option of ``spec`` has a value of the wrong type, in words (xDSL's message,
    "Incompatible types: given (3,), expected <class 'str'>", names neither the option nor
    the type); None when no single option explains the failure."""
    try:
        hints = typing.get_type_hints(cls)
    except Exception:  # a class whose annotations do not resolve: keep xDSL's message
        return None
    for name, values in spec.parameters.items():
        hint = hints.get(name.replace("-", "_"))
        if hint is None or (len(values) == 1 and isa(values[0], hint)) or isa(values, hint):
            continue
        given = ", ".join(map(repr, values)) or "nothing"
        expected = getattr(hint, "__name__", None) or str(hint).replace("typing.", "")
        return f"option '{name}' takes {expected}, given {given}"
    return None


class OutputFile:
    """``-o FILE``: written to a temporary file beside it, renamed over it only on success,
    so a failed run never leaves a half-written file (and leaves an existing FILE alone)."""

    def __init__(self, path: str) -> None:
        self.name = path
        # Through a symbolic link, its target is written (as open(path, "w") would).
        self.path = os.path.realpath(path)
        if os.path.isdir(path):
            raise ToolError(f"cannot write output file '{path}': it is a directory")
        directory = os.path.dirname(self.path)
        try:
            handle, self._temporary = tempfile.mkstemp(
                dir=directory, prefix=".pto-opt-", suffix=".tmp"
            )
        except OSError as error:
            raise ToolError(f"cannot write output file '{path}': {error.strerror}") from None
        self.stream: IO[str] = os.fdopen(handle, "w", encoding="utf-8")

    def finish(self, keep: bool) -> None:
        """Move the result into place if ``keep``, else throw it away."""
        self.stream.close()
        try:
            if keep:
                os.chmod(self._temporary, _new_file_mode(self.path))
                os.replace(self._temporary, self.path)
        except OSError as error:
            raise ToolError(f"cannot write output file '{self.name}': {error.strerror}") from None
        finally:
            if os.path.exists(self._temporary):
                os.unlink(self._temporary)


def _new_file_mode(path: str) -> int:
    """The mode ``open(path, "w")`` would give: the old file's, or 0o666 less the umask
    (mkstemp makes files private, which an output file should not be)."""
    if os.path.exists(path):
        return os.stat(path).st_mode & 0o7777
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


class Terminated(BaseException):
    """SIGTERM, raised where the tool is, so that its ``finally`` blocks remove what a run
    half wrote (the temporary output file) as they do on Ctrl-C."""


@contextlib.contextmanager
def _terminate_as_exception() -> Iterator[None]:
    """While in the block, SIGTERM raises ``Terminated``."""
    if threading.current_thread() is not threading.main_thread():
        yield  # only the main thread may handle signals (pto-opt called in a worker)
        return

    def terminate(signum: int, frame: object) -> None:
        raise Terminated

    previous = signal.signal(signal.SIGTERM, terminate)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def main(args: Sequence[str] | None = None) -> int:
    """Run pto-opt on ``args`` (default: the command line); return the exit code."""
    # As xdsl-opt does: show DeprecationWarnings, which Python hides by default.
    warnings.filterwarnings("default", category=DeprecationWarning)
    try:
        with _terminate_as_exception():
            return PtoOptMain(args=args).run()
    except KeyboardInterrupt:
        print(f"{TOOL}: interrupted", file=sys.stderr)
        return 130
    except Terminated:
        print(f"{TOOL}: terminated", file=sys.stderr)
        return 128 + signal.SIGTERM
    except (ToolError, ArgSpecParseError) as error:
        # ArgSpecParseError: xDSL parses ``-t name{options}`` before we can look at it.
        print(f"{TOOL}: error: {str(error).rstrip()}", file=sys.stderr)
    except ImportError as error:  # a dialect registered by a plugin failed to load
        print(f"{TOOL}: error: cannot load a dialect: {error}", file=sys.stderr)
    except BrokenPipeError:
        # The reader went away (``pto-opt ... | head``); stop Python complaining at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except MemoryError as error:  # e.g. tg-materialize{bind="n=10^14"}: not a bug
        if os.environ.get(TRACEBACK_ENV):
            raise
        detail = f" ({str(error).rstrip()})" if str(error) else ""
        error.__traceback__ = error.__context__ = None  # what the pass built: freed
        print(
            f"{TOOL}: error: out of memory{detail}; are the bound sizes (bind=...) what you meant?",
            file=sys.stderr,
        )
    except Exception as error:  # a bug in a pass or dialect, not in the input
        return internal_error(TOOL, error, "pto-wsp or in a pass")
    return 1


if __name__ == "__main__":
    sys.exit(main())
