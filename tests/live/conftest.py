"""Fixtures for the live-cluster tests: fake API servers (always stopped, never written to) and kubeconfigs."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from apiserver import TOKEN, FakeApiServer, Route, kubeconfig_doc


@pytest.fixture
def apiserver() -> Iterator[Callable[..., FakeApiServer]]:
    """Start fake API servers: `apiserver("k136", routes={...})`. On teardown each is stopped and checked
    to have received GET requests only."""
    started: list[FakeApiServer] = []

    def start(cluster: str | None, routes: dict[str, Route] | None = None, token: str | None = TOKEN,
              tls: Any = None) -> FakeApiServer:
        server = FakeApiServer(cluster, routes=dict(routes or {}), token=token, tls=tls).start()
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()
    for server in started:
        writes = [(r.method, r.path) for r in server.requests if r.method != "GET"]
        assert not writes, f"non-GET requests reached the API server: {writes}"


@pytest.fixture
def write_kubeconfig(tmp_path: Path) -> Callable[..., str]:
    """Write a kubeconfig for `server` (see kubeconfig_doc) and return its path."""
    counter = iter(range(1000))

    def write(server: str, **kwargs: Any) -> str:
        path = tmp_path / f"kubeconfig-{next(counter)}"
        path.write_text(yaml.safe_dump(kubeconfig_doc(server, **kwargs)))
        return str(path)

    return write


@pytest.fixture(autouse=True)
def _no_ambient_kubeconfig(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # Tests must never fall back to a real ~/.kube/config or $KUBECONFIG of the machine running them.
    monkeypatch.delenv("KUBECONFIG", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
