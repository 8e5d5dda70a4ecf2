"""Filter verdicts and raw scores per node, shared by pods that read nodes alike, and the sampled scan over them."""

# Replicas of one workload read every node the same way, so their Filter verdicts and raw scores are cached
# per node in a Plan until the node changes. The scan (findNodesThatPassFilters from nextStartNodeIndex
# until enough feasible nodes were found) then works on sorted position lists: the nodes it would pass
# are known from the feasible positions alone, so only changed nodes inside that stretch are evaluated
# (in scan order, each possibly extending it), and the feasible and rejected nodes are list slices.
# A cycle costs its changed nodes plus C-speed copying, not a Python step per sampled node.

from __future__ import annotations

from bisect import bisect_left, insort
from collections.abc import Callable, ItemsView, Iterator, KeysView, Mapping, ValuesView
from operator import itemgetter
from typing import Any, TypeVar

from drasim.scheduler.filters import Status

# A node's cached Filter verdict: (rejection or None, score class id). A score class is (raw scores id,
# spread key); the spread key has, per spread score constraint, the node's matching-pod count for the
# hostname constraint and the node's label value for the others (None: no such label).
Entry = tuple[Status | None, int]
SpreadKey = tuple[int | str | None, ...]
RawScores = tuple[int, int, int, int, int]
MAX_PLANS = 128
T = TypeVar("T")


class Plan:
    """Per-node Filter verdicts (by position in the scan order) and raw scores of one kind of pod.

    Valid until a node changes: the scheduler lists nodes whose pods or devices changed, and each plan
    forgets those positions before use (`forget`). Raw scores: (taint, affinity, least allocated,
    balanced, DRA or -1).
    """

    __slots__ = ("bad", "by_pos", "classes", "cls", "cursor", "dra_memo", "fit_memo", "generation", "good", "ids",
                 "raw_ids", "raws", "score_memo", "unknown", "why")

    def __init__(self, cursor: int, generation: int, size: int) -> None:
        self.cursor = cursor
        self.generation = generation
        self.by_pos: list[Entry | None] = [None] * size
        self.cls: list[int] = [-1] * size  # score class of each feasible position
        self.why: list[Status | None] = [None] * size  # the rejection of each rejected position
        self.bad: list[int] = []  # rejected positions, sorted
        self.good: list[int] = []  # feasible positions, sorted
        self.unknown: list[int] = list(range(size))  # positions without a verdict, sorted
        self.raws: list[RawScores] = []
        self.raw_ids: dict[RawScores, int] = {}
        self.classes: list[tuple[int, SpreadKey]] = []
        self.ids: dict[tuple[int, SpreadKey], int] = {}
        self.fit_memo: dict[int, tuple[int, int]] = {}
        self.dra_memo: dict[object, int] = {}
        # Score's per-class totals and plugin scores by class mix (Scheduler._score, framework._score_memo_key).
        self.score_memo: dict[tuple[object, ...], tuple[dict[int, int], dict[int, dict[str, int]]]] = {}

    def score_class(self, raw: RawScores, spread: SpreadKey) -> int:
        rid = self.raw_ids.get(raw)
        if rid is None:
            rid = self.raw_ids[raw] = len(self.raws)
            self.raws.append(raw)
        return self.class_of(rid, spread)

    def class_of(self, rid: int, spread: SpreadKey) -> int:
        """The id of the score class of these raw scores (by id) and spread key."""
        key = (rid, spread)
        cid = self.ids.get(key)
        if cid is None:
            cid = self.ids[key] = len(self.classes)
            self.classes.append(key)
        return cid

    def forget(self, pos: int) -> None:
        """The node at `pos` changed: its verdict is computed again when a scan reaches it."""
        entry = self.by_pos[pos]
        if entry is None:
            return
        known = self.bad if entry[0] is not None else self.good
        del known[bisect_left(known, pos)]
        self.by_pos[pos] = None
        insort(self.unknown, pos)

    def _settle(self, pos: int, index: int, entry: Entry) -> None:
        """Record the verdict of the unknown position `pos` (at `index` in `unknown`)."""
        del self.unknown[index]
        self.by_pos[pos] = entry
        if entry[0] is None:
            self.cls[pos] = entry[1]
            insort(self.good, pos)
        else:
            self.why[pos] = entry[0]
            insort(self.bad, pos)

    def _extent(self, start: int, want: int, n: int) -> int:
        """How many nodes from `start` (wrapping) a scan passes to meet `want` feasible ones, by the
        verdicts known now."""
        good = self.good
        g0 = bisect_left(good, start)
        after = len(good) - g0
        if want <= after:
            return good[g0 + want - 1] - start + 1
        if want - after <= g0:
            return good[want - after - 1] + n - start + 1
        return n

    def scan(self, names: list[str], want: int, start: int, evaluate: Callable[[str], Entry]
             ) -> tuple[list[str], list[int], Mapping[str, Status]]:
        """From position `start`, wrapping, until `want` feasible nodes were found (or every node was seen):
        the feasible nodes in scan order, their score classes, and the rejected nodes passed on the way."""
        n = len(names)
        unknown = self.unknown
        extent = self._extent(start, want, n)
        while unknown:  # the first node without a verdict, if the scan reaches it, is evaluated
            j = bisect_left(unknown, start)
            if j == len(unknown):
                j = 0
            u = unknown[j]
            if (u - start) % n >= extent:
                break
            self._settle(u, j, evaluate(names[u]))
            extent = self._extent(start, want, n)
        end = start + extent  # exclusive; past n it wraps
        good, bad = self.good, self.bad
        cls = self.cls
        if end <= n:
            on = good[bisect_left(good, start):bisect_left(good, end)]
            off = bad[bisect_left(bad, start):bisect_left(bad, end)]
            why = self.why[start:end]  # a snapshot: later cycles settle positions again in place
            return _pick_sorted(names, on), _pick_sorted(cls, on), Rejected(names, why, off, base=start)
        head, tail = good[bisect_left(good, start):], good[:bisect_left(good, end - n)]
        off = bad[bisect_left(bad, start):] + bad[:bisect_left(bad, end - n)]
        return (_pick_sorted(names, head) + _pick_sorted(names, tail),
                _pick_sorted(cls, head) + _pick_sorted(cls, tail), Rejected(names, self.why[:], off, base=0))

    def scanned_index(self, pos: int, first: int, last: int) -> int:
        """The index of position `pos` among the feasible nodes of the full `scan` just made, whose first and
        last feasible positions were `first` and `last` (-1: not among them). That scan took every feasible
        position from `first` to `last`, wrapping, so the index is a count of feasible positions."""
        entry = self.by_pos[pos]
        n = len(self.by_pos)
        if entry is None or entry[0] is not None or (pos - first) % n > (last - first) % n:
            return -1
        good = self.good
        g = bisect_left(good, first)
        k = bisect_left(good, pos)
        return k - g if pos >= first else len(good) - g + k

    def scan_subset(self, names: list[str], positions: list[int], want: int, start: int,
                    evaluate: Callable[[str], Entry]) -> tuple[list[str], list[int], dict[str, Status]]:
        """`scan` over some of the nodes only (`positions` of `names`, in scan order)."""
        feasible: list[str] = []
        classes: list[int] = []
        statuses: dict[str, Status] = {}
        by_pos = self.by_pos
        found = 0
        for p in positions[start:] + positions[:start] if start else positions:
            entry = by_pos[p]
            if entry is None:
                entry = evaluate(names[p])
                self._settle(p, bisect_left(self.unknown, p), entry)
            if entry[0] is None:
                feasible.append(names[p])
                classes.append(entry[1])
                found += 1
                if found >= want:
                    break
            else:
                statuses[names[p]] = entry[0]
        return feasible, classes, statuses


class Rejected(Mapping[str, Status]):
    """The nodes a scan rejected and why (node -> Status, in scan order), made a dict only when first read:
    a scheduled pod's are rarely read, and a cycle that passes thousands of full nodes would build one each."""

    __slots__ = ("_base", "_dict", "_names", "_off", "_why")

    def __init__(self, names: list[str], why: list[Status | None], off: list[int], base: int) -> None:
        self._names: list[str] | None = names  # never changed in place (the scheduler replaces the list)
        self._why = why  # why[p - base] for each position p in off
        self._off = off
        self._base = base
        self._dict: dict[str, Status] | None = None

    def _built(self) -> dict[str, Status]:
        if self._dict is None:
            assert self._names is not None
            off = [p - self._base for p in self._off] if self._base else self._off
            self._dict = dict(zip(_pick(self._names, self._off), _pick(self._why, off), strict=True))  # type: ignore[arg-type]
            self._names, self._why, self._off = None, [], []
        return self._dict

    def __getitem__(self, name: str) -> Status:
        return self._built()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._built())

    def __len__(self) -> int:
        return len(self._dict) if self._dict is not None else len(self._off)

    # The dict's own views, at C speed (Mapping's mixins would look every key up through __getitem__).
    def keys(self) -> KeysView[str]:
        return self._built().keys()

    def values(self) -> ValuesView[Status]:
        return self._built().values()

    def items(self) -> ItemsView[str, Status]:
        return self._built().items()

    def get(self, name: str, default: Any = None) -> Any:
        return self._built().get(name, default)

    def __eq__(self, other: object) -> bool:
        return self._built() == (dict(other) if isinstance(other, Rejected) else other)

    __hash__ = None  # type: ignore[assignment]


def _pick(values: list[T], positions: list[int]) -> list[T]:
    """values[p] for each position, at C speed."""
    if len(positions) > 1:
        return list(itemgetter(*positions)(values))
    return [values[positions[0]]] if positions else []


def _pick_sorted(values: list[T], positions: list[int]) -> list[T]:
    """`_pick` for ascending, distinct positions: one slice when they are consecutive (a stretch of nodes
    that all passed), which sorted distinct integers are exactly when last - first + 1 == their count."""
    if positions and positions[-1] - positions[0] + 1 == len(positions):
        return values[positions[0]:positions[-1] + 1]
    return _pick(values, positions)
