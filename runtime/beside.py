"""Whether a Program's next plain schedule is made beside its build or after it.

On two free CPUs the schedule made beside the build (docs/native.md "The schedule beside the
build") saves the whole schedule's time; with the second CPU shared (another process on it,
or the two CPUs halves of one core on the host) it can cost more than it saves. The results
are the same either way, so the choice is only speed, and it is made from what the
Program's executes took, a node: a Program starts beside; now and then one execute tries the
other way, and if it took less than the way taken at its best (the least of that way's last
eight executes: slow executes, an interrupt or another process's time slice, change
nothing) the Program goes on that way.
While beside is taken, after is tried once a second (and once in 16 executes at most);
while after is taken, beside is tried 0.1 s after it lost, then 0.2, 0.4 ... up to 1.6 s
apart while it keeps losing; and a way that turns slower (its best a quarter up: another
process took the second CPU) tries the other at the next execute. A try is compared with the executes just before it: the
machine's speed, which changes from one second to the next on a shared host, is the same
for both.
"""

from __future__ import annotations

#: While beside is taken: after tried at most this often (seconds, and executes since).
AFTER_EVERY, AFTER_EVERY_EXECUTES = 1.0, 16
#: Seconds before beside is tried again after it lost, doubled each time it loses again.
BESIDE_FIRST, BESIDE_LAST = 0.1, 1.6
#: A way whose best grows by this factor tries the other way at once.
SLOWER = 1.25
#: Seconds after which an execute's time no longer counts.
STALE = 4.0
#: How many of a way's last executes count.
KEPT = 8


class Beside:
    """The choice between beside and after the build for one Program's executes."""

    __slots__ = ("way", "_when", "_took", "_next", "_since", "_losses")

    def __init__(self) -> None:
        self.way = True  # the way taken: True beside the build, False after it
        #: Per way (0 after, 1 beside) when its last executes ended, and what they took.
        self._when: tuple[list, list] = ([], [])
        self._took: tuple[list, list] = ([], [])
        self._next: float | None = None  # when the other way is tried (None: not yet set)
        self._since = 0  # executes the way taken since the last try
        self._losses = 0  # tries of beside in a row that lost

    def estimate(self, beside: bool, now: float) -> float | None:
        """Seconds a node the way took lately, at its best (None: not taken in the last
        STALE s)."""
        when, took = self._when[beside], self._took[beside]
        while when and now - when[0] > STALE:  # (oldest first)
            del when[0], took[0]
        return min(took) if took else None

    def beside(self, now: float) -> bool:
        """Whether the execute starting at ``now`` (seconds) makes its schedule beside."""
        due = self._next is not None and now >= self._next
        if self.way:
            due = due and self._since >= AFTER_EVERY_EXECUTES
        return self.way != due

    def took(self, beside: bool, seconds_per_node: float, now: float) -> None:
        """An execute ending at ``now`` made its schedule ``beside`` its build (else after
        it) and took ``seconds_per_node``."""
        mine = self.estimate(self.way, now)
        when, took = self._when[beside], self._took[beside]
        when.append(now)
        took.append(seconds_per_node)
        if len(when) > KEPT:
            del when[0], took[0]
        if beside == self.way:
            self._since += 1
            if self._next is None:
                self._next = now + AFTER_EVERY
            if mine is not None and self.estimate(beside, now) > SLOWER * mine:
                self._next, self._since = now, AFTER_EVERY_EXECUTES  # (turned slower)
            return
        faster = seconds_per_node < mine if mine is not None else beside
        if faster:
            self.way = beside
        self._since = 0
        if beside:  # (a try of beside: lost once more, or won)
            self._losses = 0 if faster else self._losses + 1
        else:  # (a try of after: beside lost once if after was faster)
            self._losses = 1 if faster else 0
        if self.way:
            self._next = now + AFTER_EVERY
        else:
            self._next = now + min(BESIDE_FIRST * 2 ** (self._losses - 1), BESIDE_LAST)
