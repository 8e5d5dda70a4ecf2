"""Filter verdicts and raw scores per node, shared by pods that read nodes alike, and the sampled scan over them."""

# Replicas of one workload read every node the same way, so their Filter verdicts and raw scores are cached
# per node in a Plan until the node changes. The scan (findNodesThatPassFilters from nextStartNodeIndex
# until enough feasible nodes were found) then works on runs of positions: between two rejected or
# not-yet-evaluated nodes every node is feasible, and a run is taken with one list slice. A cycle costs
# the number of rejected and changed nodes it passes, not the number of nodes it samples.

from __future__ import annotations

from bisect import bisect_left, insort
from collections.abc import Callable

from drasim.scheduler.filters import Status

# A node's cached Filter verdict: (rejection or None, score class id). A score class is (raw scores id,
# spread key); the spread key has, per spread score constraint, the node's matching-pod count for the
# hostname constraint and the node's label value for the others (None: no such label).
Entry = tuple[Status | None, int]
SpreadKey = tuple[int | str | None, ...]
RawScores = tuple[int, int, int, int, int]
MAX_PLANS = 128


class Plan:
    """Per-node Filter verdicts (by position in the scan order) and raw scores of one kind of pod.

    Valid until a node changes: the scheduler lists nodes whose pods or devices changed, and each plan
    forgets those positions before use (`forget`). Raw scores: (taint, affinity, least allocated,
    balanced, DRA or -1).
    """

    __slots__ = ("bad", "by_pos", "classes", "cls", "cursor", "dra_memo", "fit_memo", "generation", "ids",
                 "raw_ids", "raws", "unknown", "why")

    def __init__(self, cursor: int, generation: int, size: int) -> None:
        self.cursor = cursor
        self.generation = generation
        self.by_pos: list[Entry | None] = [None] * size
        self.cls: list[int] = [-1] * size  # score class of each feasible position
        self.why: list[Status | None] = [None] * size  # the rejection of each rejected position
        self.bad: list[int] = []  # rejected positions, sorted
        self.unknown: list[int] = list(range(size))  # positions without a verdict, sorted
        self.raws: list[RawScores] = []
        self.raw_ids: dict[RawScores, int] = {}
        self.classes: list[tuple[int, SpreadKey]] = []
        self.ids: dict[tuple[int, SpreadKey], int] = {}
        self.fit_memo: dict[int, tuple[int, int]] = {}
        self.dra_memo: dict[object, int] = {}

    def score_class(self, raw: RawScores, spread: SpreadKey) -> int:
        rid = self.raw_ids.get(raw)
        if rid is None:
            rid = self.raw_ids[raw] = len(self.raws)
            self.raws.append(raw)
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
        if entry[0] is not None:
            del self.bad[bisect_left(self.bad, pos)]
        self.by_pos[pos] = None
        insort(self.unknown, pos)

    def _settle(self, pos: int, index: int, entry: Entry) -> None:
        """Record the verdict of the unknown position `pos` (at `index` in `unknown`)."""
        del self.unknown[index]
        self.by_pos[pos] = entry
        if entry[0] is None:
            self.cls[pos] = entry[1]
        else:
            self.why[pos] = entry[0]
            insort(self.bad, pos)

    def scan(self, names: list[str], want: int, start: int, evaluate: Callable[[str], Entry]
             ) -> tuple[list[str], list[int], dict[str, Status]]:
        """From position `start`, wrapping, until `want` feasible nodes were found (or every node was seen):
        the feasible nodes in scan order, their score classes, and the rejected nodes passed on the way."""
        n = len(names)
        feasible: list[str] = []
        classes: list[int] = []
        statuses: dict[str, Status] = {}
        bad, unknown, cls, why = self.bad, self.unknown, self.cls, self.why
        found = 0
        for lo, hi in ((start, n), (0, start)):
            p = lo
            while p < hi:
                i = bisect_left(bad, p)
                next_bad = bad[i] if i < len(bad) else n
                j = bisect_left(unknown, p)
                next_unknown = unknown[j] if j < len(unknown) else n
                stop = min(next_bad, next_unknown, hi)
                if stop > p:  # a run of feasible nodes
                    take = min(stop - p, want - found)
                    feasible += names[p:p + take]
                    classes += cls[p:p + take]
                    found += take
                    p += take
                    if found >= want:
                        return feasible, classes, statuses
                    continue
                if p == next_unknown:
                    self._settle(p, j, evaluate(names[p]))
                    continue  # look at p again, now with its verdict
                # A run of rejected nodes: bad[i:k] are consecutive positions (binary search for k).
                lo_k, hi_k = i + 1, bisect_left(bad, hi, i)
                while lo_k < hi_k:
                    mid = (lo_k + hi_k + 1) // 2
                    if bad[mid - 1] - p == mid - 1 - i:
                        lo_k = mid
                    else:
                        hi_k = mid - 1
                q = p + lo_k - i
                statuses.update(zip(names[p:q], why[p:q], strict=True))  # type: ignore[arg-type]
                p = q
        return feasible, classes, statuses

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
