"""The compiled scheduler's stall-span arrays grow mid-run and the run stays the engine's.

The stall spans (pipeline_depth and task-window stalls) go into arrays of
``fastsched.span_capacity(n_tasks)`` entries; when fewer than ``n_tasks + 1`` are free the
compiled loop stops where it is — before a step of the generator's wait, of a window wait
or of the drain — and ``schedule`` grows the arrays and resumes there. These tests shrink
the first capacity so that the arrays grow in a pipeline_depth stall, inside a task-window
wait and several times in one run, and compare everything with the general engine (per
node times, workers, issue numbers, statistics, stall spans, the trace, body order and
results: ``assert_same``).
"""

from __future__ import annotations

import pytest
from test_sim_fastsched import WORKLOADS, assert_same, both

from pto_wsp.runtime import fastsched
from pto_wsp.runtime.trace import chrome_trace


@pytest.fixture(autouse=True)
def _fast_path_for_small_graphs(monkeypatch):
    monkeypatch.setattr(fastsched, "FAST_MIN_TASKS", 0)
    monkeypatch.setattr(fastsched, "FAST_MIN_TASKS_COLD", 0)


def _shrink(monkeypatch, free: int) -> None:
    """The span arrays start with ``free`` entries beyond the ``n_tasks`` the loop keeps free:
    they grow once more than ``free`` spans are recorded."""
    monkeypatch.setattr(fastsched, "span_capacity", lambda n_tasks: n_tasks + free)


def _check(pf, pg, logs, arrays, free):
    assert_same(pf, pg, logs, arrays)
    assert chrome_trace(pf) == chrome_trace(pg)
    run = pf._last()
    growths, in_wait = run.span_growths
    assert len(run.stall_spans) >= free  # (more than the first arrays held)
    return growths, in_wait


@pytest.mark.parametrize("mode", ["cycles", "functional"])
def test_spans_grow_several_times_in_pipeline_depth_stalls(monkeypatch, mode):
    """pipeline_depth(1) on 4 workers: every completion releases the gated tasks (a span
    each) — ~870 spans from 1 free entry: the arrays grow several times, in the
    generator's waits and in the drain."""
    _shrink(monkeypatch, 1)
    schedule = WORKLOADS[0].schedule().pipeline_depth(1)
    pf, pg, logs, arrays = both(schedule, 16, workers=4, mode=mode)
    growths, in_wait = _check(pf, pg, logs, arrays, 1)
    assert growths >= 3 and in_wait == 0
    assert pf.stats().stalls["pipeline_depth"] > 0


@pytest.mark.parametrize("window, gen_cost", [(1, 0), (2, 0), (2, 5)])
def test_spans_grow_inside_a_task_window_wait(monkeypatch, window, gen_cost):
    """task_window with a stall span per wait of the generator: the arrays fill while it
    waits for a completion; with 1 to 8 free entries the loop stops inside the window wait
    (or, with a gen_cost, also in the generator's wait for the events due at its time) and
    resumes there, the generator's time and the stall measured from it unchanged."""
    waits = 0
    for free in range(1, 9):
        _shrink(monkeypatch, free)
        schedule = WORKLOADS[1].schedule().task_window(window)
        pf, pg, logs, arrays = both(schedule, 6, workers=2, mode="cycles", gen_cost=gen_cost)
        growths, in_wait = _check(pf, pg, logs, arrays, free)
        assert growths == 1
        waits += in_wait
        assert pf.stats().stalls["window"] > 0
    assert waits >= (8 if gen_cost == 0 else 1)


@pytest.mark.parametrize("free", [1, 4])
@pytest.mark.parametrize("mode", ["cycles", "functional"])
def test_spans_grow_with_depth_and_window_stalls_together(monkeypatch, free, mode):
    """Both kinds of spans in one run (per-stream depth and a window), the arrays grown
    inside a window wait."""
    _shrink(monkeypatch, free)
    schedule = WORKLOADS[0].schedule().streams(2).pipeline_depth(1, "per_stream").task_window(3)
    pf, pg, logs, arrays = both(schedule, 10, workers=3, mode=mode, gen_cost=2)
    growths, in_wait = _check(pf, pg, logs, arrays, free)
    assert growths >= 1 and in_wait >= 1
    stalls = pf.stats().stalls
    assert stalls["pipeline_depth"] > 0 and stalls["window"] > 0


def test_default_capacity_needs_no_growth_for_few_spans():
    """With the default capacity (2 n_tasks + 16) a run with a few spans never stops."""
    schedule = WORKLOADS[1].schedule().task_window(2)
    pf, pg, logs, arrays = both(schedule, 6, workers=2, mode="cycles")
    assert_same(pf, pg, logs, arrays)
    assert 0 < len(pf._last().stall_spans) <= pf.stats().num_tasks + 16
    assert pf._last().span_growths == (0, 0)
