"""Tensors no task writes take no part in the reference's dependency inference: simgen finds
them statically (``read_only_args``) and tells the builder (``GraphBuilder.read_only``); the
graph is the one of a builder that knows nothing of it (no writer: no edge)."""

from __future__ import annotations

import pytest

from pto_wsp.lowering.regions import TensorRegion
from pto_wsp.runtime.graph import GraphBuilder


def _row(tensor: str, b: int, access: str) -> TensorRegion:
    return TensorRegion(tensor, (b, 0), (1, 4), None, access)


def test_writing_a_read_only_tensor_raises_before_creating_anything():
    b = GraphBuilder()
    assert b.read_only(["K"]) == {"K"}
    b.add_task("r", regions=[_row("K", 0, "in")])
    with pytest.raises(ValueError, match=r"task 1 \(kernel 'w'\).*'K'.*read-only"):
        b.add_task("w", regions=[_row("X", 0, "out"), _row("K", 0, "inout")])
    assert b.num_nodes == 1
    g = b.build()
    assert g.num_nodes == 1 and g.num_edges == 0


def test_a_tensor_already_written_is_not_declared_read_only():
    """Its later readers need the edge from the earlier writer."""
    b = GraphBuilder()
    w = b.add_task("w", regions=[_row("K", 0, "out")])
    b.add_task("r0", regions=[_row("V", 0, "in")])
    assert b.read_only(["K", "V"]) == {"V"}
    r = b.add_task("r", regions=[_row("K", 0, "in")])
    b.add_task("w2", regions=[_row("K", 0, "out")])  # allowed: K is not read-only
    src, dst = b.build().edges()
    assert (w, r) in set(zip(src.tolist(), dst.tolist()))
