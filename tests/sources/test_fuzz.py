"""Fuzz (issue 11): mutated real manifests, conformance vectors and fleet options through the decoders and every
command that reads input. Never a traceback; a success, or one message naming the file (or object) with a
non-zero exit, and nothing partial written. CI-sized here; `pytest --thorough` runs 10,000 cases each."""

from __future__ import annotations

import os
import signal
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from drasim.api.encode import encode_object
from drasim.api.meta import INT64_MAX, INT64_MIN
from drasim.cli.main import cli
from drasim.errors import DrasimError, InputError
from drasim.sources.files import load_bytes, parse_yaml
from drasim.sources.scenario import parse_scenario
from fuzz_inputs import COMMANDS, RULE, SCENARIOS, mutated_manifest, run
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


@settings(max_examples=examples(200))
@given(mutated_manifest())
def test_decoded_integers_fit_go_int64(case: tuple[bytes, str, str]) -> None:
    """Whatever decodes holds no integer the API server's int64 decoder would refuse (int32 fields are checked
    at their own bound in tests/api/test_int_ranges.py). A driver's opaque `parameters` are raw JSON to the API
    server (runtime.RawExtension, never decoded into Go integers), so any number may stand there."""
    try:
        objects = load_bytes(case[0], source="in" + case[1], keep_going=True).objects
    except InputError:
        return
    stack: list[Any] = [encode_object(o) for o in objects]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            stack += [v for k, v in value.items() if k != "parameters"]
        elif isinstance(value, list):
            stack += value
        elif isinstance(value, int) and not isinstance(value, bool):
            assert INT64_MIN <= value <= INT64_MAX


def _hang_guard(signum: int, frame: object) -> None:
    raise AssertionError("blocked reading a special file")


@pytest.mark.parametrize("special", ["fifo", "device"])
@pytest.mark.parametrize("command", ["validate", "lint", "simulate", "explain", "taint dry-run"])
def test_commands_skip_fifos_and_devices_in_a_directory(command: str, special: str, tmp_path: Path) -> None:
    """A FIFO or a link to a device among a directory's files is skipped with a warning, never read (it would
    block or never end); the rest of the directory is used."""
    folder = tmp_path / "in"
    folder.mkdir()
    (tmp_path / "out").mkdir()
    (tmp_path / "rule.yaml").write_text(RULE)
    (folder / "a.yaml").write_text(RULE)
    if special == "fifo":
        os.mkfifo(folder / "b.yaml")
    else:
        (folder / "b.yaml").symlink_to("/dev/zero")
    old = signal.signal(signal.SIGALRM, _hang_guard)
    signal.alarm(60)
    try:
        result = CliRunner().invoke(cli, COMMANDS[command](folder, tmp_path), catch_exceptions=True)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    assert result.exception is None or isinstance(result.exception, SystemExit | DrasimError), result.exception
    assert f"{folder / 'b.yaml'}: skipped: a " in result.output


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
