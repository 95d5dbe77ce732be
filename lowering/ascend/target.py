"""``-t ascend``: the Ascend emitter as an xDSL Target that writes a directory.

xDSL targets print to the output stream; this one writes a tree of files, so it takes the
directory as an option: ``pto-opt FILE -t ascend -o DIR`` (pto-opt passes -o to it) or
``xdsl-opt ... -t 'ascend{out-dir="DIR"}'``; a wsp/csp module goes through the shared
lowering to tg first, as with ``-t aie``. The stream gets the list of files written, one per
line. Options: ``soc`` (910b, 910c, 950), ``program`` (emit one program and
its callees), ``stub-kernels`` (empty bodies for kernels without an Ascend body),
``kernel-dirs`` (comma-separated folders to find body files in).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import IO, ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.target import Target

from .backend import lower_to_tg
from .emit import emit_tree, report_warnings
from .errors import AscendEmitError
from .pipeline import receipt_keys


@dataclass(frozen=True)
class AscendTarget(Target):
    """Emit the Ascend source tree of a module of tg programs into ``out_dir``."""

    name = "ascend"
    #: pto-opt gives this target the -o path as its directory.
    writes_directory: ClassVar[bool] = True

    out_dir: str = ""
    #: 950 parses as a number in pto-opt's option syntax (``-t 'ascend{soc=950}'``).
    soc: str | int = "910b"
    program: str = ""
    stub_kernels: bool = False
    kernel_dirs: str = ""

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        """Write the tree (after the shared lowering to tg, when the input is wsp/csp)."""
        if not self.out_dir:
            raise AscendEmitError(
                "the ascend target writes a directory: give it with -o DIR "
                '(pto-opt) or ascend{out-dir="DIR"} (xdsl-opt)'
            )
        tree = emit_tree(
            lower_to_tg(module),
            receipt_keys=receipt_keys(module),
            soc=str(self.soc),
            program=self.program or None,
            stub_kernels=self.stub_kernels,
            kernel_dirs=[d for d in self.kernel_dirs.split(",") if d],
        )
        report_warnings(tree)
        out = tree.write(self.out_dir)
        for path in sorted(tree.files):
            output.write(f"{out / path}\n")
