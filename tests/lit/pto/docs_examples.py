# RUN: %PYTHON %s

# docs/kernels.md stays true: every complete ```mlir block parses and verifies, and the
# outlining example's "After" block is what pto-outline-incore-scopes prints for "Before".

import re
from pathlib import Path

from xdsl.context import Context
from xdsl.dialects import arith, builtin, func, scf
from xdsl.parser import Parser

from pto_wsp.dialects.pto import PTO
from pto_wsp.passes.pto_outline_incore import OutlineIncoreScopesPass

DOC = Path(__file__).resolve().parents[3] / "docs" / "kernels.md"
blocks = re.findall(r"```mlir\n(.*?)```", DOC.read_text(), re.S)
ctx = Context()
for dialect in (builtin.Builtin, func.Func, arith.Arith, scf.Scf, PTO):
    ctx.load_dialect(dialect)
modules = []
for text in blocks:
    if "..." in text:  # a fragment
        continue
    module = Parser(ctx, text, str(DOC)).parse_module()
    module.verify()
    modules.append(module)

before, after = modules[-2], modules[-1]
OutlineIncoreScopesPass().apply(ctx, before)
assert str(before) == str(after), f"{before}\n!=\n{after}"
print(f"{len(modules)} blocks")
