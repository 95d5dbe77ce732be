"""Tensor regions: the strided hyper-rectangles tasks read and write, and their exact overlap test.

A region names a tensor (by name or number) and, per dimension of the tensor's index space, an
offset, a size and a stride: along dimension d it covers the indices
``offsets[d] + k * strides[d]`` for ``0 <= k < sizes[d]`` — exactly what ``memref.subview``
describes. Overlap is decided in index space, not on memory addresses, so it is exact whatever
the tensor's layout, and it is exact for strided regions (two progressions may interleave
without meeting).
"""

from __future__ import annotations

from math import gcd

__all__ = [
    "ACCESS_IN",
    "ACCESS_INOUT",
    "ACCESS_OUT",
    "TensorRegion",
    "progressions_intersect",
]

ACCESS_IN = "in"
ACCESS_OUT = "out"
ACCESS_INOUT = "inout"
_ACCESSES = (ACCESS_IN, ACCESS_OUT, ACCESS_INOUT)
_UNIT: dict[int, tuple[int, ...]] = {}


def progressions_intersect(o1: int, n1: int, s1: int, o2: int, n2: int, s2: int) -> bool:
    """Whether ``{o1 + k*s1 | k < n1}`` and ``{o2 + k*s2 | k < n2}`` share an integer.

    Exact in O(log(min(s1, s2))): a common element x satisfies x = o1 (mod s1) and
    x = o2 (mod s2), which has a solution iff g = gcd(s1, s2) divides o2 - o1 (Chinese remainder
    theorem); the solutions are then one residue class modulo lcm(s1, s2), and it only remains
    to see whether that class meets the intersection of the two progressions' bounding ranges.
    """
    if n1 <= 0 or n2 <= 0:
        return False
    lo = o1 if o1 > o2 else o2
    e1 = o1 + (n1 - 1) * s1
    e2 = o2 + (n2 - 1) * s2
    hi = e1 if e1 < e2 else e2
    if lo > hi:
        return False
    if s1 == s2:
        # The common case (both dense, or the same tiling): same residue class or none.
        return (o2 - o1) % s1 == 0
    if n1 == 1:
        return (o1 - o2) % s2 == 0
    if n2 == 1:
        return (o2 - o1) % s1 == 0
    g = gcd(s1, s2)
    diff = o2 - o1
    if diff % g:
        return False
    m = s2 // g
    # x = o1 + s1 * t with s1 * t = diff (mod s2)  <=>  (s1/g) t = diff/g (mod s2/g).
    t = (diff // g) * pow(s1 // g, -1, m) % m if m > 1 else 0
    x0 = o1 + s1 * t
    lcm = s1 * m
    # lo + (x0 - lo) mod lcm is the smallest member of x0's class that is >= lo.
    return lo + (x0 - lo) % lcm <= hi


class TensorRegion:
    """A strided hyper-rectangle of one tensor's index space, with the access a task makes to it.

    ``tensor`` is a name or number; ``offsets``, ``sizes`` and ``strides`` have one entry per
    dimension (strides >= 1, sizes >= 0; an omitted ``strides`` means all ones); ``access`` is
    ``"in"``, ``"out"`` or ``"inout"``. Regions are immutable and hashable; ``key`` is the
    geometry (tensor, offsets, sizes, strides) without the access, so two accesses to the same
    region share a key.
    """

    __slots__ = (
        "tensor",
        "offsets",
        "sizes",
        "strides",
        "access",
        "key",
        "reads",
        "writes",
        "unit",
        "_lasts",
    )

    def __init__(
        self,
        tensor: str | int,
        offsets: tuple[int, ...] | list[int],
        sizes: tuple[int, ...] | list[int],
        strides: tuple[int, ...] | list[int] | None = None,
        access: str = ACCESS_IN,
    ) -> None:
        offsets = tuple(offsets)
        sizes = tuple(sizes)
        rank = len(sizes)
        if strides is None:
            # One shared tuple of ones per rank: regions are many, their strides mostly unit.
            strides = _UNIT.get(rank)
            if strides is None:
                strides = _UNIT[rank] = (1,) * rank
            unit = True
        else:
            strides = tuple(strides)
            unit = strides == _UNIT.get(rank)
            if len(strides) == rank and rank and min(strides) < 1:
                raise ValueError(f"region of {tensor!r}: stride {min(strides)} < 1")
        if len(offsets) != rank or len(strides) != rank:
            raise ValueError(
                f"region of {tensor!r}: offsets, sizes and strides have different ranks "
                f"({len(offsets)}, {rank}, {len(strides)})"
            )
        if rank and min(sizes) < 0:
            raise ValueError(f"region of {tensor!r}: negative size {min(sizes)}")
        if access not in _ACCESSES:
            raise ValueError(f"region of {tensor!r}: access {access!r} is not in, out or inout")
        self.tensor = tensor
        self.offsets = offsets
        self.sizes = sizes
        self.strides = strides
        self.access = access
        self.key = (tensor, offsets, sizes, strides)
        self.reads = access != ACCESS_OUT
        self.writes = access != ACCESS_IN
        # Whether every stride is 1 (a dense box).
        self.unit = unit
        self._lasts: tuple[int, ...] | None = None

    @classmethod
    def dense(
        cls, tensor: str | int, offsets: tuple[int, ...], sizes: tuple[int, ...], access: str
    ) -> TensorRegion:
        """A region with unit strides."""
        return cls(tensor, offsets, sizes, None, access)

    @property
    def rank(self) -> int:
        """The number of dimensions."""
        return len(self.sizes)

    @property
    def is_empty(self) -> bool:
        """Whether the region covers no element (some size is 0)."""
        return 0 in self.sizes

    @property
    def num_elements(self) -> int:
        """How many index points the region covers."""
        n = 1
        for s in self.sizes:
            n *= s
        return n

    @property
    def lasts(self) -> tuple[int, ...]:
        """The last index covered along each dimension (for a non-empty region)."""
        lasts = self._lasts
        if lasts is None:
            lasts = self._lasts = tuple(
                o + (n - 1) * s for o, n, s in zip(self.offsets, self.sizes, self.strides)
            )
        return lasts

    def bounds(self, dim: int) -> tuple[int, int]:
        """The first and last index the region covers along ``dim`` (for a non-empty region)."""
        return (
            self.offsets[dim],
            self.offsets[dim] + (self.sizes[dim] - 1) * self.strides[dim],
        )

    def with_access(self, access: str) -> TensorRegion:
        """The same geometry with another access."""
        return TensorRegion(self.tensor, self.offsets, self.sizes, self.strides, access)

    def overlaps(self, other: TensorRegion) -> bool:
        """Whether the two regions share an index point: same tensor and, in every dimension,
        intersecting progressions. Empty regions overlap nothing; the accesses do not matter."""
        if self.tensor != other.tensor:
            return False
        a_off, a_n, a_s = self.offsets, self.sizes, self.strides
        b_off, b_n, b_s = other.offsets, other.sizes, other.strides
        if len(a_n) != len(b_n):
            raise ValueError(
                f"regions of tensor {self.tensor!r} have different ranks ({len(a_n)}, {len(b_n)})"
            )
        if 0 in a_n or 0 in b_n:
            return False
        # The element sets are Cartesian products, so they meet iff they meet per dimension.
        for d in range(len(a_n)):
            o1, n1, s1, o2, n2, s2 = a_off[d], a_n[d], a_s[d], b_off[d], b_n[d], b_s[d]
            if s1 == 1 and s2 == 1:
                if o1 + n1 <= o2 or o2 + n2 <= o1:
                    return False
            elif not progressions_intersect(o1, n1, s1, o2, n2, s2):
                return False
        return True

    def contains(self, other: TensorRegion) -> bool:
        """Whether every index point of ``other`` is also in this region (same tensor)."""
        if self.tensor != other.tensor or len(self.sizes) != len(other.sizes):
            return False
        if 0 in other.sizes:
            return True
        if 0 in self.sizes:
            return False
        for d in range(len(self.sizes)):
            o1, n1, s1 = self.offsets[d], self.sizes[d], self.strides[d]
            o2, n2, s2 = other.offsets[d], other.sizes[d], other.strides[d]
            last2 = o2 + (n2 - 1) * s2
            if o2 < o1 or last2 > o1 + (n1 - 1) * s1 or (o2 - o1) % s1:
                return False
            # Past the first point, other's steps must land on ours.
            if n2 > 1 and s2 % s1:
                return False
        return True

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, TensorRegion)
            and self.key == other.key
            and self.access == other.access
        )

    def __hash__(self) -> int:
        return hash((self.key, self.access))

    def __repr__(self) -> str:
        return (
            f"TensorRegion({self.tensor!r}, {list(self.offsets)}, {list(self.sizes)}, "
            f"{list(self.strides)}, {self.access!r})"
        )

    def __str__(self) -> str:
        """The static-form spelling: ``T[offsets][sizes][strides] access``."""
        return (
            f"{self.tensor}{list(self.offsets)}{list(self.sizes)}{list(self.strides)} {self.access}"
        )
