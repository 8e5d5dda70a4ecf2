"""Fuzz (issue 26): mutated kubeconfigs and mutated API server answers. Never a traceback: a client or a snapshot,
or one ClusterAccessError (exit code 2). CI-sized here; `pytest --thorough` runs 10,000 cases each."""

from __future__ import annotations

import base64
import copy
import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from apiserver import TOKEN, FakeApiServer, Route, kubeconfig_doc
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from drasim.sources.kubehttp import ReadLimits
from drasim.sources.live import ClusterAccessError, connect, read_cluster
from fuzz_inputs import mutate_tree
from hypothesis_budget import examples

Start = Callable[..., FakeApiServer]
FIXTURES = Path(__file__).parent / "fixtures/k136"
LISTS = ("/api/v1/nodes", "/api/v1/pods", "/apis/resource.k8s.io/v1/resourceslices",
         "/apis/resource.k8s.io/v1/resourceclaims", "/version", "/apis")


def rich_kubeconfig(tmp: Path) -> dict[str, Any]:
    """A kubeconfig using every field drasim reads."""
    (tmp / "token").write_text("file-token-value\n")
    doc = kubeconfig_doc("https://127.0.0.1:9", token=None)
    doc["clusters"].append({"name": "other", "cluster": {
        "server": "http://127.0.0.1:9", "certificate-authority-data": base64.b64encode(b"not a pem").decode(),
        "tls-server-name": "kubernetes.test", "proxy-url": "http://127.0.0.1:9", "disable-compression": True}})
    doc["clusters"][0]["cluster"].update({"insecure-skip-tls-verify": True})
    doc["users"] += [
        {"name": "file", "user": {"tokenFile": "token"}},
        {"name": "basic", "user": {"username": "u", "password": "secret-password"}},
        {"name": "cert", "user": {"client-certificate-data": "Zm9v", "client-key-data": "YmFy"}},
        {"name": "exec", "user": {"exec": {"apiVersion": "client.authentication.k8s.io/v1", "command": "plugin",
                                           "args": ["--token=x"], "env": [{"name": "A", "value": "b"}],
                                           "interactiveMode": "Never", "provideClusterInfo": True}}}]
    doc["contexts"] += [{"name": name, "context": {"cluster": "other", "user": name, "namespace": "ml"}}
                        for name in ("file", "basic", "cert", "exec")]
    return doc


@pytest.fixture
def no_plugins(monkeypatch: pytest.MonkeyPatch) -> None:
    # A mutated exec command is any short text: nothing is ever run.
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise FileNotFoundError(2, "not run in the fuzz test")

    monkeypatch.setattr(subprocess, "Popen", refuse)  # the module kubeauth runs plugins with


@pytest.mark.usefixtures("no_plugins")
def test_mutated_kubeconfigs(tmp_path: Path) -> None:
    base = rich_kubeconfig(tmp_path)
    path = tmp_path / "config"

    @settings(max_examples=examples(150), suppress_health_check=[HealthCheck.too_slow])
    @given(st.data())
    def one(data: st.DataObject) -> None:
        docs = data.draw(mutate_tree([copy.deepcopy(base)]))
        path.write_text(yaml.safe_dump_all(docs) if data.draw(st.booleans()) else json.dumps(docs[0] if docs else None))
        context = data.draw(st.sampled_from([None, "test", "file", "basic", "cert", "exec"]))
        try:
            connect(str(path), context).close()
        except ClusterAccessError as exc:
            assert exc.exit_code == 2 and str(exc)
            assert "secret-password" not in str(exc) and "file-token-value" not in str(exc)

    one()


def test_mutated_server_answers(apiserver: Start, write_kubeconfig: Callable[..., str]) -> None:
    server = apiserver("k136")
    config = write_kubeconfig(server.url)
    originals = {p: json.loads((FIXTURES / (p.strip("/") + ".json")).read_text()) for p in LISTS}
    limits = ReadLimits(body_bytes=4 * 1024 * 1024, list_items=2_000, list_pages=50)

    @settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(st.data())
    def one(data: st.DataObject) -> None:
        path = data.draw(st.sampled_from(LISTS))
        docs = data.draw(mutate_tree([copy.deepcopy(originals[path])]))
        doc = docs[0] if docs else None
        body = json.dumps(doc).encode()
        if data.draw(st.booleans()):
            body = body[:data.draw(st.integers(0, len(body)))]
        code = data.draw(st.sampled_from([200, 200, 200, 404, 500, 403, 401]))
        server.routes.clear()
        server.routes[path] = Route(code, body)
        try:
            read_cluster(config, limits=limits, timeout=5)
        except ClusterAccessError as exc:
            assert exc.exit_code == 2 and str(exc)
            assert TOKEN not in str(exc)

    one()
