"""Finding scenario files on disk and turning them into runner inputs (the edge for `allocate`)."""

from __future__ import annotations

import os
from typing import IO, Any

import click

from drasim.allocator import DeviceID, Features
from drasim.errors import InputError
from drasim.runner.scenario import ScenarioInput, StepSpec
from drasim.sources.files import decode_text, input_files, parse_yaml, read_stream
from drasim.sources.scenario import Scenario, load_scenario, parse_scenario


def scenario_paths(args: list[str]) -> list[tuple[str, str]]:
    """(path, base) pairs: files as given, directories expanded recursively (sorted `.yaml`/`.yml`)."""
    out: list[tuple[str, str]] = []
    for arg in args:
        if arg == "-":
            out.append(("-", ""))
        elif os.path.isdir(arg):
            found, skipped = input_files(arg, extensions=(".yaml", ".yml"))
            for warning in skipped:
                click.echo(f"warning: {warning}", err=True)
            out += [(p, arg) for p in found]
        elif os.path.exists(arg):
            out.append((arg, ""))
        else:
            raise InputError("no such file or directory", source=arg)
    return out


def to_input(sc: Scenario) -> ScenarioInput:
    """Map a loaded scenario file onto what the runner needs."""
    try:
        features = Features.from_flags(sc.features)
    except ValueError as err:
        raise InputError(str(err), source=sc.source, path="features") from None
    state = sc.allocated_state
    return ScenarioInput(
        name=sc.name,
        objects=list(sc.objects),
        steps=[StepSpec(claims=list(s.claims), node=s.node, commit=s.commit) for s in sc.steps],
        node=sc.node,
        features=features,
        flags=dict(sc.features),
        apply_defaults=sc.apply_defaults,
        variant=sc.allocator,
        allocated_devices=[DeviceID(d.driver, d.pool, d.device) for d in state.devices],
        shared_devices=[(DeviceID(d.driver, d.pool, d.device), d.share_id) for d in state.shared_devices],
        consumed_capacity=[(DeviceID(c.driver, c.pool, c.device), dict(c.capacity))
                           for c in state.consumed_capacity],
    )


def load_scenario_input(path: str, *, stdin: IO[Any] | None = None) -> tuple[ScenarioInput, list[dict[str, Any]]]:
    """Load one scenario file (`-` reads stdin): the runner input and the file's `expect` block."""
    if path == "-":
        if stdin is None:
            raise InputError("no standard input", source="-")
        text = decode_text(read_stream(stdin, source="-"), source="-")
        docs = [d for d in parse_yaml(text, source="-") if d is not None]
        if len(docs) != 1:
            raise InputError(f"a scenario holds exactly one YAML document, found {len(docs)}", source="-")
        sc = parse_scenario(docs[0], source="-")
    else:
        sc = load_scenario(path)
    return to_input(sc), sc.expect
