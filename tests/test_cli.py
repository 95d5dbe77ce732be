"""pto-opt on bad input: a located one-line error, exit code 1, never a Python traceback.

Most cases run the installed ``pto-opt`` command, as a user would. Errors raised inside a
pass need a pass that raises them, so those run pto-opt's ``main`` in-process with one more
pass registered.
"""

import os
import re
import shutil
import subprocess
import sysconfig
from dataclasses import dataclass
from pathlib import Path

import pytest
from xdsl.context import Context
from xdsl.dialects import arith, builtin
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import DiagnosticException, PassFailedException, VerifyException

from pto_wsp.tools import pto_opt

PTO_OPT = shutil.which("pto-opt", path=sysconfig.get_path("scripts")) or shutil.which("pto-opt")

GOOD = """\
func.func @add(%a: i32, %b: i32) -> i32 {
  %sum = arith.addi %a, %b : i32
  func.return %sum : i32
}
"""

WRONG_RETURN = """\
func.func @f(%a: i32) -> i32 {
  func.return
}
"""


def run_pto_opt(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    assert PTO_OPT is not None, 'pto-opt is not installed: run `python3 -m pip install -e ".[dev]"`'
    return subprocess.run(
        [PTO_OPT, *args], input=stdin, capture_output=True, text=True, check=False
    )


def assert_fails_cleanly(run: subprocess.CompletedProcess[str], expected: str) -> None:
    """Exit code 1, no traceback, and an stderr line matching the regex ``expected``."""
    assert "Traceback" not in run.stdout + run.stderr, run.stderr
    assert run.returncode == 1, run.stderr
    assert re.search(expected, run.stderr, re.MULTILINE), run.stderr


# (input text, the error line expected; {file} stands for the input's path)
BAD_INPUTS = {
    "malformed-syntax": (
        "func.func @f( {\n",
        r"^{file}:1:15: error: Expected argument or type$",
    ),
    "unknown-op": (
        "func.func @f() {\n  %x = arith.frobnicate : i32\n  func.return\n}\n",
        r"^{file}:2:8: error: Operation arith\.frobnicate is not registered$",
    ),
    "unknown-dialect": (
        '"nosuch.op"() : () -> ()\n',
        r"^{file}:1:1: error: Operation nosuch\.op is not registered \(there is no dialect 'nosuch'\)$",
    ),
    "verifier-operand-types": (
        'func.func @f(%a: i32, %b: i64) -> i32 {\n  %s = "arith.addi"(%a, %b) : (i32, i64) -> i32\n'
        "  func.return %s : i32\n}\n",
        r"^{file}:2:8: error: 'arith\.addi' op operand 'rhs' at position 1 does not verify:",
    ),
    "verifier-return-arity": (
        WRONG_RETURN,
        r"^{file}:2:3: error: 'func\.return' op Expected arguments to have the same types",
    ),
    "attribute-verifier-while-parsing": (
        "%c = arith.constant 300 : i8\n",
        r"^{file}:1:6: error: Integer value 300 is out of range for type i8",
    ),
}


@pytest.mark.parametrize("text, expected", BAD_INPUTS.values(), ids=BAD_INPUTS.keys())
def test_bad_input_file(tmp_path: Path, text: str, expected: str):
    path = tmp_path / "input.mlir"
    path.write_text(text)
    assert_fails_cleanly(run_pto_opt(str(path)), expected.replace("{file}", re.escape(str(path))))


@pytest.mark.parametrize("text, expected", BAD_INPUTS.values(), ids=BAD_INPUTS.keys())
def test_bad_input_on_stdin(text: str, expected: str):
    assert_fails_cleanly(run_pto_opt(stdin=text), expected.replace("{file}", "<stdin>"))


def test_verifier_error_shows_line_caret_and_op(tmp_path: Path):
    path = tmp_path / "input.mlir"
    path.write_text(WRONG_RETURN)
    lines = run_pto_opt(str(path)).stderr.splitlines()
    assert lines[1:] == [
        "  func.return",
        "  ^",
        f'{path}:2:3: note: see current operation: "func.return"() : () -> ()',
    ]


BAD_COMMAND_LINES = {
    "unknown-pass": (["-p", "nosuch-pass"], r"^pto-opt: error: unknown pass 'nosuch-pass'"),
    "unknown-pass-option": (
        ["-p", "canonicalize{nosuch=1}"],
        r"^pto-opt: error: invalid options for pass 'canonicalize': .*\"nosuch\"",
    ),
    "pass-option-of-wrong-type": (
        ["-p", "apply-eqsat-pdl{max_iterations=many}"],
        r"^pto-opt: error: invalid options for pass 'apply-eqsat-pdl': option 'max_iterations' "
        r"takes int, given 'many'$",
    ),
    "target-option-of-wrong-type": (
        ["-t", "ascend{stub-kernels=many}"],
        r"^pto-opt: error: invalid options for target 'ascend': option 'stub-kernels' takes "
        r"bool, given 'many'$",
    ),
    "malformed-pipeline": (
        ["-p", "canonicalize{"],
        r"^pto-opt: error: Error parsing pass pipeline specification:\npass-pipeline:1:14$",
    ),
    "unknown-target-option": (
        ["-t", "mlir{nosuch=1}"],
        r"^pto-opt: error: invalid options for target 'mlir'",
    ),
}


@pytest.mark.parametrize("args, expected", BAD_COMMAND_LINES.values(), ids=BAD_COMMAND_LINES.keys())
def test_bad_command_line(tmp_path: Path, args: list[str], expected: str):
    path = tmp_path / "input.mlir"
    path.write_text(GOOD)
    assert_fails_cleanly(run_pto_opt(str(path), *args), expected)


def test_missing_input_file(tmp_path: Path):
    missing = tmp_path / "missing.mlir"
    assert_fails_cleanly(
        run_pto_opt(str(missing)),
        rf"^pto-opt: error: cannot open input file '{re.escape(str(missing))}': No such file",
    )


def test_input_that_is_not_utf8(tmp_path: Path):
    path = tmp_path / "input.mlir"
    path.write_bytes(b"\xff\xfe func.func\n")
    assert_fails_cleanly(run_pto_opt(str(path)), r"^pto-opt: error: input file '.*' is not UTF-8")


@pytest.mark.parametrize("where", ["no-such-dir/out.mlir", "."], ids=["missing-dir", "a-directory"])
def test_unwritable_output(tmp_path: Path, where: str):
    path = tmp_path / "input.mlir"
    path.write_text(GOOD)
    output = tmp_path / where
    assert_fails_cleanly(
        run_pto_opt(str(path), "-o", str(output)),
        rf"^pto-opt: error: cannot write output file '{re.escape(str(output))}'",
    )


def test_failed_run_leaves_no_output_file(tmp_path: Path):
    path = tmp_path / "input.mlir"
    path.write_text(WRONG_RETURN)
    output = tmp_path / "out.mlir"
    assert_fails_cleanly(run_pto_opt(str(path), "-o", str(output)), r"error:")
    assert sorted(os.listdir(tmp_path)) == ["input.mlir"]  # no output, no temporary file


def test_failed_run_keeps_an_existing_output_file(tmp_path: Path):
    path = tmp_path / "input.mlir"
    path.write_text(WRONG_RETURN)
    output = tmp_path / "out.mlir"
    output.write_text("previous result\n")
    assert_fails_cleanly(run_pto_opt(str(path), "-o", str(output)), r"error:")
    assert output.read_text() == "previous result\n"
    assert sorted(os.listdir(tmp_path)) == ["input.mlir", "out.mlir"]


def test_output_file_on_success(tmp_path: Path):
    path = tmp_path / "input.mlir"
    path.write_text(GOOD)
    output = tmp_path / "out.mlir"
    run = run_pto_opt(str(path), "-o", str(output))
    assert (run.returncode, run.stdout, run.stderr) == (0, "", "")
    assert "arith.addi %a, %b : i32" in output.read_text()
    umask = os.umask(0)
    os.umask(umask)
    assert output.stat().st_mode & 0o777 == 0o666 & ~umask  # not mkstemp's private 0o600


def test_version_names_pto_opt():
    run = run_pto_opt("--version")
    assert run.returncode == 0 and run.stdout.startswith("pto-opt ")


# --- Errors raised inside a pass --------------------------------------------------------


@dataclass(frozen=True)
class FailingPass(ModulePass):
    """Fails the way ``how`` says: by raising one of xDSL's diagnostic exceptions, through an
    op's emit_error, or by building an op (without a location) that does not verify."""

    name = "test-failing-pass"
    how: str = "DiagnosticException"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        addi = next(o for o in op.walk() if isinstance(o, arith.AddiOp))
        match self.how:
            case "crash":
                raise ValueError("a bug in the pass")
            case "emit_error":
                addi.emit_error("rejected", PassFailedException("the pass rejects this op"))
            case "invalid_op":
                wide = arith.ConstantOp(builtin.IntegerAttr(1, 64))
                bad = arith.AddiOp(addi.lhs, wide.result, result_type=builtin.i32)
                addi.parent_block().insert_ops_before([wide, bad], addi)
            case _:
                exception = {
                    "DiagnosticException": DiagnosticException,
                    "VerifyException": VerifyException,
                    "PassFailedException": PassFailedException,
                }[self.how]
                raise exception(f"{self.how} from the pass")


class PtoOptWithFailingPass(pto_opt.PtoOptMain):
    def register_all_passes(self) -> None:
        super().register_all_passes()
        self.register_pass(FailingPass.name, lambda: FailingPass)


def run_in_process(monkeypatch, capsys, tmp_path: Path, *args: str) -> tuple[int, str, str]:
    monkeypatch.setattr(pto_opt, "PtoOptMain", PtoOptWithFailingPass)
    path = tmp_path / "input.mlir"
    path.write_text(GOOD)
    code = pto_opt.main([str(path), *args])
    out, err = capsys.readouterr()
    return code, out, err.replace(str(path), "FILE")


@pytest.mark.parametrize("how", ["DiagnosticException", "VerifyException", "PassFailedException"])
def test_pass_error_without_op(monkeypatch, capsys, tmp_path: Path, how: str):
    code, out, err = run_in_process(
        monkeypatch, capsys, tmp_path, "-p", f"test-failing-pass{{how={how}}}"
    )
    assert (code, out) == (1, "")
    assert err == f"pto-opt: error: {how} from the pass\n"


def test_pass_error_on_an_op(monkeypatch, capsys, tmp_path: Path):
    code, _, err = run_in_process(
        monkeypatch, capsys, tmp_path, "-p", "test-failing-pass{how=emit_error}"
    )
    assert code == 1
    assert err.startswith("FILE:2:10: error: 'arith.addi' op the pass rejects this op\n")


def test_invalid_op_built_by_a_pass_is_located_at_its_parent(monkeypatch, capsys, tmp_path: Path):
    code, _, err = run_in_process(
        monkeypatch, capsys, tmp_path, "-p", "test-failing-pass{how=invalid_op}"
    )
    assert code == 1
    assert err.startswith("FILE:1:1: error: 'arith.addi' op operand 'rhs' at position 1")


def test_pass_errors_under_verify_diagnostics(monkeypatch, capsys, tmp_path: Path):
    code, out, err = run_in_process(
        monkeypatch,
        capsys,
        tmp_path,
        "--verify-diagnostics",
        "-p",
        "test-failing-pass{how=emit_error}",
    )
    assert (code, err) == (0, "")
    assert "error: 'arith.addi' op the pass rejects this op" in out


def test_internal_error_has_no_traceback(monkeypatch, capsys, tmp_path: Path):
    monkeypatch.delenv(pto_opt.TRACEBACK_ENV, raising=False)
    code, out, err = run_in_process(
        monkeypatch, capsys, tmp_path, "-p", "test-failing-pass{how=crash}"
    )
    assert (code, out) == (2, "")
    assert err.startswith("pto-opt: internal error: ValueError: a bug in the pass\n")
    assert "Traceback" not in err


def test_internal_error_traceback_on_request(monkeypatch, capsys, tmp_path: Path):
    monkeypatch.setenv(pto_opt.TRACEBACK_ENV, "1")
    with pytest.raises(ValueError, match="a bug in the pass"):
        run_in_process(monkeypatch, capsys, tmp_path, "-p", "test-failing-pass{how=crash}")
