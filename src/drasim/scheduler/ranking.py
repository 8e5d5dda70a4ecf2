"""The scored feasible nodes of one cycle: totals per score class, the top ties, the ranking on demand."""

from __future__ import annotations

from collections.abc import Callable
from itertools import compress, islice

import msgspec

# Above this many tied classes, one list.count pass each would cost more than listing the ties once.
_PICK_COUNT_MAX = 4


class NodeScore(msgspec.Struct, gc=False):
    """A feasible node's total and its weighted per-plugin scores (the dict may be shared between nodes).

    A msgspec Struct outside the cyclic garbage collector (it holds a str, an int and a str -> int dict, so
    it can never be part of a cycle).
    """

    node: str
    total: int
    plugins: dict[str, int]


class Ranking:
    """Feasible nodes in scan order with their score class; per class its total and weighted plugin scores.

    The ranking (best first, equal totals in scan order) is built only when asked for: a simulation keeps
    one per pod, and a cycle needs only its top ties.
    """

    __slots__ = ("_nodes", "chosen", "classes", "feasible", "plugins", "totals")

    def __init__(self, feasible: list[str], classes: list[int], totals: dict[int, int],
                 plugins: dict[int, dict[str, int]]) -> None:
        self.feasible = feasible
        self.classes = classes
        self.totals = totals
        self.plugins = plugins
        self._nodes: list[NodeScore] | None = None
        self.chosen: int | None = None  # the index of the node the cycle picked (pick_best), once it did

    def _level(self, total: int, limit: int | None = None) -> list[int]:
        """Indices of the feasible nodes with this total, in scan order (the first `limit` of them)."""
        cids = {c for c, t in self.totals.items() if t == total}
        classes = self.classes
        if len(cids) == len(self.totals):  # every node has this total
            return list(range(len(classes) if limit is None else min(limit, len(classes))))
        if limit is not None and limit * len(cids) <= _PICK_COUNT_MAX * 4:
            # The first `limit` of each class by list.index (a C loop of identity compares, several times
            # faster per node than the set lookup below): their first `limit` in scan order are the level's.
            # Per pod the simulation keeps the top 3 of hundreds of feasible nodes.
            first: list[int] = []
            for c in cids:
                pos = -1
                for _ in range(limit):
                    try:
                        pos = classes.index(c, pos + 1)
                    except ValueError:
                        break
                    first.append(pos)
            first.sort()
            return first[:limit]
        found = compress(range(len(classes)), map(cids.__contains__, classes))  # at C speed
        return list(found if limit is None else islice(found, limit))

    def best(self) -> list[int]:
        """Indices of the nodes tied at the highest total, in scan order."""
        return self._level(max(self.totals.values()))

    def pick_best(self, choose: Callable[[int], int]) -> int:
        """`best()[choose(len(best()))]` without listing the ties: the tie count comes from one C-speed
        `list.count` per tied class, and the scan for the chosen one stops there (per pod, the ties can be
        hundreds of nodes of which one is wanted). `choose` is called once, with the same count, so a
        random choice draws the same number as through `best()`."""
        top = max(self.totals.values())
        cids = [c for c, t in self.totals.items() if t == top]
        classes = self.classes
        if len(cids) == len(self.totals):  # every node is tied
            return choose(len(classes))
        if len(cids) > _PICK_COUNT_MAX:
            ties = self._level(top)
            return ties[choose(len(ties))]
        count = sum(map(classes.count, cids))
        r = choose(count)
        wanted = set(cids)
        n = len(classes)
        if 2 * r < count:
            return next(islice(compress(range(n), map(wanted.__contains__, classes)), r, None))
        # The r-th tie is the (count - 1 - r)-th from the end: walk from whichever end is nearer.
        back = next(islice(compress(range(n), map(wanted.__contains__, reversed(classes))), count - 1 - r, None))
        return n - 1 - back

    def top(self, k: int) -> list[NodeScore]:
        """The first `k` of `nodes()`, without ranking the rest."""
        if self._nodes is not None:
            return self._nodes[:k]
        out: list[NodeScore] = []
        for total in sorted(set(self.totals.values()), reverse=True):
            for i in self._level(total, k - len(out)):
                out.append(NodeScore(self.feasible[i], total, self.plugins[self.classes[i]]))
            if len(out) >= k:
                break
        return out

    def truncated(self, k: int) -> Ranking:
        """A ranking of the top `k` nodes only (the same `top(k)`, `best()` within them)."""
        top = self.top(k)
        ids: dict[int, int] = {}  # one class per plugins dict (nodes of a class share theirs, and its total)
        classes: list[int] = []
        totals: dict[int, int] = {}
        plugins: dict[int, dict[str, int]] = {}
        for s in top:  # one loop, no comprehensions: a simulation truncates every scheduled pod's ranking
            c = ids.get(id(s.plugins))
            if c is None:
                c = ids[id(s.plugins)] = len(ids)
                totals[c], plugins[c] = s.total, s.plugins
            classes.append(c)
        out = Ranking([s.node for s in top], classes, totals, plugins)
        # `top` is already the truncated ranking's nodes(): best first, equal totals in scan order (its
        # feasible list is in that order). Reports read top(k) of every pod's kept ranking, twice.
        out._nodes = top
        return out

    def nodes(self) -> list[NodeScore]:
        """Every feasible node, best first; equal totals in scan order."""
        if self._nodes is None:
            totals, classes, plugins, feasible = self.totals, self.classes, self.plugins, self.feasible
            order = sorted(range(len(feasible)), key=lambda i: -totals[classes[i]])
            self._nodes = [NodeScore(feasible[i], totals[classes[i]], plugins[classes[i]]) for i in order]
        return self._nodes
