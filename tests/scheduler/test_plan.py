"""The run-based scan of a Plan finds what a node-by-node scan finds, in the same order."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from drasim.scheduler.filters import UNSCHEDULABLE, Status
from drasim.scheduler.plan import Entry, Plan, _pick, _pick_sorted
from hypothesis_budget import examples

REJECT = {i: Status(UNSCHEDULABLE, (f"reason {i}",), "Test") for i in range(4)}


def naive(verdicts: list[int], want: int, start: int) -> tuple[list[str], list[int], dict[str, Status]]:
    """findNodesThatPassFilters one node at a time (verdict >= 0: a score class; < 0: rejected)."""
    n = len(verdicts)
    feasible, classes, statuses = [], [], {}
    for k in range(n):
        p = (start + k) % n
        v = verdicts[p]
        if v >= 0:
            feasible.append(f"n{p}")
            classes.append(v)
            if len(feasible) >= want:
                break
        else:
            statuses[f"n{p}"] = REJECT[-v - 1]
    return feasible, classes, statuses


@given(st.data())
@settings(max_examples=examples(150))
def test_scan_matches_a_node_by_node_scan_across_changes(data: st.DataObject) -> None:
    n = data.draw(st.integers(1, 40))
    verdict = st.integers(-4, 3)  # rejected with one of 4 reasons, or feasible in one of 4 classes
    verdicts = data.draw(st.lists(verdict, min_size=n, max_size=n))
    names = [f"n{i}" for i in range(n)]
    plan = Plan(0, 0, n)
    evaluated: list[int] = []

    def evaluate(name: str) -> Entry:
        p = int(name[1:])
        evaluated.append(p)
        v = verdicts[p]
        return (None, v) if v >= 0 else (REJECT[-v - 1], -1)

    for _ in range(data.draw(st.integers(1, 6))):
        want = data.draw(st.integers(1, n))
        start = data.draw(st.integers(0, n - 1))
        evaluated.clear()
        got = plan.scan(names, want, start, evaluate)
        assert got == naive(verdicts, want, start)
        assert len(evaluated) == len(set(evaluated))  # each node evaluated at most once per change
        assert {f"n{p}" for p in evaluated} <= set(got[0]) | set(got[2])  # none past where the scan stops
        unread = plan.scan(names, want, start, evaluate)[2]  # read only after the nodes below changed
        expected = naive(verdicts, want, start)[2]
        for p in data.draw(st.lists(st.integers(0, n - 1), max_size=5)):  # nodes change
            verdicts[p] = data.draw(verdict)
            plan.forget(p)
        subset = sorted(data.draw(st.sets(st.integers(0, n - 1), min_size=1)))
        sub_start = data.draw(st.integers(0, len(subset) - 1))
        expect = naive([verdicts[p] if p in subset else -1 for p in range(n)], n, 0)
        got = plan.scan_subset(names, subset, n, sub_start, evaluate)
        assert set(got[0]) == set(expect[0]) and got[2].keys() <= set(names)
        assert dict(unread) == expected and list(unread) == list(expected)  # the rejections as of their scan


_RUNS = st.tuples(st.integers(0, 40), st.integers(0, 40)).map(lambda t: list(range(t[0], t[0] + t[1])))


@settings(max_examples=examples(300))
@given(st.one_of(_RUNS, st.lists(st.integers(0, 80), unique=True)), st.integers(0, 40))
def test_pick_sorted_is_the_pick(positions: list[int], size: int) -> None:
    """The slice shortcut for consecutive positions picks what the item-by-item pick does."""
    values = [f"n{i}" for i in range(81 + size)]
    positions.sort()
    assert _pick_sorted(values, positions) == _pick(values, positions) == [values[p] for p in positions]


@given(st.data())
@settings(max_examples=examples(150))
def test_scanned_index_is_the_index_in_the_scan(data: st.DataObject) -> None:
    """Plan.scanned_index (spread.count_on_hosts) finds each node where the full scan just made put it."""
    n = data.draw(st.integers(1, 40))
    verdicts = data.draw(st.lists(st.integers(-2, 3), min_size=n, max_size=n))
    names = [f"n{i}" for i in range(n)]
    plan = Plan(0, 0, n)

    def evaluate(name: str) -> Entry:
        v = verdicts[int(name[1:])]
        return (None, v) if v >= 0 else (REJECT[-v - 1], -1)

    for _ in range(data.draw(st.integers(1, 6))):
        feasible = plan.scan(names, data.draw(st.integers(1, n)), data.draw(st.integers(0, n - 1)), evaluate)[0]
        if feasible:
            span = (int(feasible[0][1:]), int(feasible[-1][1:]))
            for p in range(n):
                expected = feasible.index(f"n{p}") if f"n{p}" in feasible else -1
                assert plan.scanned_index(p, *span) == expected
        for p in data.draw(st.lists(st.integers(0, n - 1), max_size=5)):  # nodes change
            verdicts[p] = data.draw(st.integers(-2, 3))
            plan.forget(p)
