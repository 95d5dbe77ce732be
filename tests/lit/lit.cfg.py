# Configuration of the lit + FileCheck suite: `python -m lit -v tests/lit` (pytest runs it too,
# through tests/test_lit.py). One folder per dialect (wsp/, csp/, sched/), per pass
# (passes/<pass>/) and per tool (tools/); `Inputs/` folders hold files the tests read.
#
# RUN lines may use:
#   pto-opt              the installed console script (`pip install -e ".[dev]"`)
#   FileCheck, filecheck the Python `filecheck` package's command
#   %PYTHON              the interpreter running lit, for Python-driven tests (`.py`)
#   PTO_ROUNDTRIP        print, reparse and check:        pto-opt | pto-opt | filecheck
#   PTO_GENERIC_ROUNDTRIP  check the generic form under CHECK-GENERIC
#   PTO_VERIFY_DIAG      check the verifier diagnostics of each `// -----` chunk
#   PTO_PARSING_DIAG     check the parse errors of each `// -----` chunk
#   PTO_UPSTREAM         hand the IR on stdin to upstream MLIR (IRDL-loaded dialects: parse,
#                        verify, read back the same)
# Error tests that need the exit code: `// RUN: not pto-opt %s 2>&1 | FileCheck %s`.

import os
import re
import shlex
import shutil
import sys
import sysconfig

import lit.formats

config.name = "pto-wsp"
# lit's own shell (execute_external=False): pipes, `not` and `2>&1` behave the same everywhere.
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".py", ".pto"]
config.excludes = ["lit.cfg.py", "Inputs", "Output", "__pycache__"]
config.test_source_root = os.path.dirname(__file__)


def installed(command):
    """The console script `command` of the Python running lit, else the one on PATH."""
    scripts = sysconfig.get_path("scripts")
    return shutil.which(command, path=scripts) or shutil.which(command)


def tool(name):
    """A pattern matching `name` as a command word, not inside a path or a longer name."""
    return rf"(?<![\w./-]){re.escape(name)}(?![\w.-])"


pto_opt = installed("pto-opt")
if pto_opt is None:
    lit_config.fatal('pto-opt is not installed: run `python3 -m pip install -e ".[dev]"`')
python = shlex.quote(sys.executable)
filecheck_script = installed("filecheck")
filecheck = shlex.quote(filecheck_script) if filecheck_script else f"{python} -m filecheck"


# The shortcuts come first: lit substitutes in order, and they expand to pto-opt / filecheck.
config.substitutions.extend(
    [
        (r"\bPTO_UPSTREAM\b", "%PYTHON -m pto_wsp.interop.upstream"),
        (
            r"\bPTO_ROUNDTRIP\b",
            "pto-opt %s --split-input-file --print-op-generic"
            " | pto-opt --split-input-file | filecheck %s",
        ),
        (
            r"\bPTO_GENERIC_ROUNDTRIP\b",
            "pto-opt %s --split-input-file --print-op-generic"
            " | filecheck %s --check-prefix=CHECK-GENERIC",
        ),
        (
            r"\bPTO_VERIFY_DIAG\b",
            "pto-opt %s --split-input-file --verify-diagnostics | filecheck %s",
        ),
        (
            r"\bPTO_PARSING_DIAG\b",
            "pto-opt %s --split-input-file --parsing-diagnostics | filecheck %s",
        ),
        (tool("pto-opt"), shlex.quote(pto_opt)),
        (tool("FileCheck"), filecheck),
        (tool("filecheck"), filecheck),
        ("%PYTHON", python),
    ]
)
