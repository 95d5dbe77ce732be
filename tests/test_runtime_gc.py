"""runtime/graph.py ``gc_paused``: the collector is off inside; on exit what the block kept is
moved to the collector's oldest generation without a pass, unless the process keeps frozen
objects of its own; garbage is still collected."""

from __future__ import annotations

import gc
import weakref

import pytest

from pto_wsp.runtime.graph import gc_paused


class _Node:
    def __init__(self) -> None:
        self.other = None


def _in_generation(obj: object, generation: int) -> bool:
    return any(o is obj for o in gc.get_objects(generation=generation))


@pytest.fixture(autouse=True)
def _collector_on():
    was = gc.isenabled()
    gc.enable()
    yield
    if not was:
        gc.disable()


def test_kept_objects_leave_the_youngest_generation_unvisited():
    with gc_paused():
        assert not gc.isenabled()
        kept = [[i] for i in range(2000)]
    assert gc.isenabled()
    # Out of the youngest generation and in the oldest (a collection would have moved them
    # one generation only).
    assert not _in_generation(kept, 0) and not _in_generation(kept[-1], 0)
    assert _in_generation(kept, len(gc.get_count()) - 1)


def test_cyclic_garbage_made_inside_is_still_collected():
    with gc_paused():
        a, b = _Node(), _Node()
        a.other, b.other = b, a
        gone = weakref.ref(a)
        del a, b
    assert gone() is not None  # a cycle: only the collector frees it
    gc.collect()
    assert gone() is None


def test_a_process_freezing_objects_keeps_them_frozen():
    frozen = [_Node() for _ in range(10)]
    gc.freeze()
    try:
        count = gc.get_freeze_count()
        with gc_paused():
            kept = [[i] for i in range(100)]
        assert gc.get_freeze_count() == count  # nothing unfrozen
        assert _in_generation(kept, 0)  # and nothing promoted: the collector as usual
    finally:
        gc.unfreeze()
    assert frozen


def test_nested_pauses_and_a_disabled_collector_stay_as_they_were():
    with gc_paused():
        with gc_paused():
            pass
        assert not gc.isenabled()
    assert gc.isenabled()
    gc.disable()
    with gc_paused():
        kept = [[1]]
    assert not gc.isenabled() and _in_generation(kept, 0)  # untouched when it was off
