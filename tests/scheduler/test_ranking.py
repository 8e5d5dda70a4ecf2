"""A Ranking's shortcuts (top ties, top k, truncation) agree with the full ranking."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from drasim.scheduler.ranking import Ranking
from hypothesis_budget import examples


@st.composite
def rankings(draw: st.DrawFn) -> Ranking:
    n_classes = draw(st.integers(1, 8))
    totals = {c: draw(st.integers(0, 3)) for c in range(n_classes)}  # few totals: ties across classes
    classes = draw(st.lists(st.integers(0, n_classes - 1), min_size=1, max_size=30))
    present = set(classes)
    return Ranking([f"n{i}" for i in range(len(classes))], classes,
                   {c: t for c, t in totals.items() if c in present},
                   {c: {"p": c} for c in present})


@given(rankings(), st.integers(1, 8))
@settings(max_examples=examples(300))
def test_shortcuts_agree_with_the_full_ranking(ranking: Ranking, k: int) -> None:
    full = Ranking(ranking.feasible, ranking.classes, ranking.totals, ranking.plugins).nodes()
    assert [s.total for s in full] == sorted((s.total for s in full), reverse=True)
    best = full[0].total
    assert [ranking.feasible[i] for i in ranking.best()] == [s.node for s in full if s.total == best]
    assert ranking.top(k) == full[:k]
    small = ranking.truncated(k)
    assert small.nodes() == full[:k] and small.top(k) == full[:k]
    # truncated() hands its top-k over as the new ranking's order: the order its own fields give.
    rebuilt = Ranking(small.feasible, small.classes, small.totals, small.plugins)
    assert rebuilt.nodes() == small.nodes() and rebuilt.best() == small.best()


@given(rankings(), st.integers(0, 1000))
@settings(max_examples=examples(300))
def test_pick_best_is_the_chosen_one_of_the_best_ties(ranking: Ranking, seed: int) -> None:
    # The scheduler's tie break: the same node as best()[choice], with choose asked the same count.
    ties = ranking.best()
    asked: list[int] = []

    def choose(n: int) -> int:
        asked.append(n)
        return seed % n

    assert ranking.pick_best(choose) == ties[seed % len(ties)]
    assert asked == [len(ties)]
