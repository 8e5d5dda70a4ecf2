"""Fuzz (issue 11): mutated real manifests, conformance vectors and fleet options through the decoders and every
command that reads input. Never a traceback; a success, or one message naming the file (or object) with a
non-zero exit, and nothing partial written. CI-sized here; `pytest --thorough` runs 10,000 cases each."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drasim.errors import InputError
from drasim.sources.files import load_bytes, parse_yaml
from drasim.sources.scenario import parse_scenario
from fuzz_inputs import COMMANDS, SCENARIOS, mutated_manifest, run
from hypothesis_budget import examples


@settings(max_examples=examples(300))
@given(mutated_manifest())
def test_decoders(case: tuple[bytes, str, str]) -> None:
    data, suffix, _ = case
    for as_json in (None, suffix == ".json"):
        try:
            load_bytes(data, source="in" + suffix, json=as_json or None)
        except InputError as exc:
            assert exc.source == "in" + suffix


@settings(max_examples=examples(100))
@given(mutated_manifest(corpus=SCENARIOS))
def test_scenario_decoder(case: tuple[bytes, str, str]) -> None:
    data = case[0]
    try:
        docs = [d for d in parse_yaml(data.decode("utf-8", "replace"), source="s.yaml") if d is not None]
        if len(docs) == 1:
            parse_scenario(docs[0], source="s.yaml")
    except InputError as exc:
        assert exc.source == "s.yaml"


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_commands(command: str) -> None:
    @settings(max_examples=examples(12))
    @given(mutated_manifest())
    def one(case: tuple[bytes, str, str]) -> None:
        run(command, case[0], case[1])

    one()


@settings(max_examples=examples(25))
@given(mutated_manifest(corpus=SCENARIOS))
def test_allocate(case: tuple[bytes, str, str]) -> None:
    run("allocate", case[0], ".yaml", lambda f, d: ["allocate", "--check", str(f)])


fleet_values = st.one_of(
    st.sampled_from(["h100", "h100:2", "a100-40gb:mig-dynamic:1", "a100-80gb:mig-static:1", "l40s:0", "x=h100:1",
                     "h100:mig-off:1", "b200:full:1"]),
    st.text(max_size=20), st.from_regex(r"[a-z0-9=-]{0,12}(:[a-z0-9-]{0,10}){0,3}", fullmatch=True),
    st.integers(-5, 10**30).map(lambda n: f"h100:{n}"))


@settings(max_examples=examples(40))
@given(st.lists(fleet_values, min_size=0, max_size=3), st.one_of(st.none(), st.integers(-3, 20).map(str),
                                                                   st.text(max_size=4)))
def test_fleet_options(nodes: list[str], gpus: str | None) -> None:
    args = [a for n in nodes for a in ("--nodes", n)]
    if gpus is not None:
        args += ["--gpus-per-node", gpus]
    try:
        run("fleet", b"", ".yaml", lambda f, d: ["fleet", *args, "--output-dir", str(d / "out" / "fleet")],
            names=("--nodes", "--gpus-per-node"))
    except AssertionError as err:  # a fleet that was written is an output, not a partial one
        if "wrote ['fleet']" not in str(err):
            raise


def test_every_reading_command_is_fuzzed() -> None:
    assert set(COMMANDS) >= {"validate", "lint", "simulate", "explain", "taint dry-run", "capacity", "doctor"}
    assert Path(__file__).name == "test_fuzz.py"


def test_found_by_the_fuzz_a_malformed_expect_block(tmp_path: Path) -> None:
    """`allocate --check` met `claims: {name: null}` in `expect` with a TypeError: now refused on reading."""
    source = sorted(SCENARIOS)[0]
    text = source.read_text().replace("expect:\n", "expect:\n- {status: allocated, claims: {x: null}}\n", 1)
    path = tmp_path / "s.yaml"
    path.write_text(text)
    assert run("allocate", text.encode(), ".yaml", lambda f, d: ["allocate", "--check", str(f)]) == "rejected"
    with pytest.raises(InputError, match=r"expect\[0\]\.claims\.x: expected array, got null"):
        from drasim.sources.scenario import load_scenario
        load_scenario(str(path))
