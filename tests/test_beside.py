"""runtime/beside.py: a Program's choice between a plain schedule beside its build and after
it, from the times its executes took (a clock given by the test: no timing here)."""

from pto_wsp.runtime.beside import (
    AFTER_EVERY,
    AFTER_EVERY_EXECUTES,
    BESIDE_FIRST,
    BESIDE_LAST,
    STALE,
    Beside,
)


class Clock:
    """A Beside driven by executes of given speeds, one every ``step`` seconds."""

    def __init__(self, step: float = 0.01) -> None:
        self.choice, self.now, self.step = Beside(), 0.0, step

    def execute(self, beside_cost: float, after_cost: float) -> bool:
        """One execute: the way chosen, taken at its cost; whether it was beside."""
        beside = self.choice.beside(self.now)
        self.now += self.step
        self.choice.took(beside, beside_cost if beside else after_cost, self.now)
        return beside

    def run(self, n: int, beside_cost: float, after_cost: float) -> list[bool]:
        return [self.execute(beside_cost, after_cost) for _ in range(n)]


def test_a_new_program_starts_beside_and_tries_after_once_a_second():
    """Beside faster: every execute beside but one a second (and once in 16 at most)."""
    clock = Clock(step=0.01)
    ways = clock.run(400, beside_cost=1.0, after_cost=1.3)
    afters = [i for i, beside in enumerate(ways) if not beside]
    assert ways[0] and len(afters) == 3
    assert all(b - a >= AFTER_EVERY / clock.step for a, b in zip(afters, afters[1:]))


def test_sparse_executes_are_never_scheduled_after_while_beside_is_faster():
    """Fewer than 16 executes between two after the build: none after the first's."""
    clock = Clock(step=0.5)
    assert all(clock.run(AFTER_EVERY_EXECUTES - 1, beside_cost=1.0, after_cost=1.3))


def test_after_faster_is_taken_and_beside_tried_again_ever_later():
    """Once after is faster (the second CPU shared), executes are after the build, beside
    tried again after 0.1 s, then 0.2, 0.4 ... at most 1.6 s apart while it loses."""
    clock = Clock(step=0.01)
    clock.run(200, beside_cost=1.0, after_cost=1.3)
    start = clock.now
    ways = clock.run(1000, beside_cost=1.6, after_cost=1.3)
    besides = [start + clock.step * i for i, beside in enumerate(ways) if beside]
    gaps = [round(b - a, 6) for a, b in zip(besides, besides[1:])]
    assert sum(ways) < 20  # (of 1,000 executes over 10 s)
    slack = 3 * clock.step  # (a try starts with the first execute after its time)
    assert BESIDE_LAST <= gaps[-1] <= BESIDE_LAST + slack
    assert all(g <= BESIDE_LAST + slack for g in gaps)
    assert any(2 * BESIDE_FIRST <= g <= 2 * BESIDE_FIRST + slack for g in gaps)


def test_beside_taken_again_once_it_is_faster():
    """After beside lost, a try that is faster again wins it back."""
    clock = Clock(step=0.01)
    clock.run(200, beside_cost=1.0, after_cost=1.3)
    clock.run(300, beside_cost=1.6, after_cost=1.3)
    ways = clock.run(800, beside_cost=1.0, after_cost=1.3)
    assert sum(ways[-300:]) >= 300 - 3  # (after once a second)


def test_a_single_slow_execute_beside_changes_nothing():
    """A way's best of its last executes: one slow execute beside (an interrupt) keeps
    beside."""
    choice = Beside()
    now = 0.0
    for cost in (1.0, 1.0, 1.0, 1.0, 5.0):
        assert choice.beside(now)
        now += 0.01
        choice.took(True, cost, now)
    choice.took(False, 1.2, now)
    assert choice.estimate(True, now) == 1.0
    assert choice.beside(now + 0.01)


def test_stale_times_do_not_count():
    """An execute older than STALE s no longer counts: after's old win is forgotten."""
    choice = Beside()
    choice.took(True, 2.0, 0.0)
    choice.took(False, 1.0, 0.1)
    assert not choice.beside(0.15)
    late = 0.1 + STALE + 0.5
    assert choice.estimate(False, late) is None and choice.estimate(True, late) is None
    assert choice.beside(late)


def test_the_tries_of_beside_wait_ever_longer():
    """Found slower than after, beside is tried again in BESIDE_FIRST s, then twice that."""
    choice = Beside()
    choice.took(True, 2.0, 0.0)
    choice.took(False, 1.0, 1.0)  # (after found faster: beside tried in BESIDE_FIRST s)
    assert not choice.beside(1.0 + BESIDE_FIRST / 2)
    assert choice.beside(1.0 + BESIDE_FIRST)
    choice.took(True, 2.0, 1.2)  # (lost again: the next try in twice as long)
    assert not choice.beside(1.2 + 1.5 * BESIDE_FIRST)
    assert choice.beside(1.2 + 2 * BESIDE_FIRST)
