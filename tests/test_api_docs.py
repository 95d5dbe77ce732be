"""docs/python-api.md stays true: its complete examples run and print the IR they describe."""

from __future__ import annotations

import re
from pathlib import Path

DOC = Path(__file__).resolve().parents[1] / "docs" / "python-api.md"


def test_the_opening_example_runs():
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)
    namespace: dict = {}
    exec(compile(blocks[0], str(DOC), "exec"), namespace)
    text = str(namespace["s"])
    assert "wsp.workload @attention(%Q: memref<?x8x64x64xf32>, %O: memref<?x8x64x64xf32>" in text
    assert 'sched.dispatch affinity("b")' in text and "sched.streams 2" in text
    namespace["m"].verify()


def test_every_public_name_is_documented():
    import pto_wsp

    text = DOC.read_text()
    missing = [
        name
        for name in pto_wsp.__all__
        if not name.startswith("_")
        and name not in ("Axis", "DType", "Expr", "Kernel", "Pipeline", "Process", "View")
        and name not in ("Workload", "Schedule", "TARGETS", "__version__")
        and not re.search(rf"\b{re.escape(name)}\b", text)
    ]
    assert not missing, f"not in docs/python-api.md: {missing}"
