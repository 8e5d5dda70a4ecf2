"""Credentials never leave the kubeconfig: planted secrets are absent from every output and dumped file."""

from __future__ import annotations

import stat
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml
from apiserver import TOKEN, FakeApiServer, kubeconfig_doc
from test_doctor import run as run_cli

Start = Callable[..., FakeApiServer]
PASSWORD = "planted-P4ssw0rd-zz9"
EXEC_SECRET = "planted-exec-stderr-qq7"
KEY_DATA = "cGxhbnRlZC1jbGllbnQta2V5LWRhdGE="  # base64 of "planted-client-key-data"
SECRETS = (PASSWORD, TOKEN, EXEC_SECRET, KEY_DATA, "planted-client-key-data")


def run(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code, out, err = run_cli(monkeypatch, capsys, *args)
    return code, out + err


def assert_no_secret(text: str) -> None:
    for secret in SECRETS:
        assert secret not in text


def write(path: Path, doc: dict) -> str:
    path.write_text(yaml.safe_dump(doc))
    return str(path)


def with_user_info(url: str) -> str:
    scheme, rest = url.split("://", 1)
    return f"{scheme}://admin:{PASSWORD}@{rest}"


def test_user_info_and_token_stay_out_of_doctor_dump_and_files(
        apiserver: Start, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    server = apiserver("k136")
    config = write(tmp_path / "config", kubeconfig_doc(with_user_info(server.url)))
    code, text = run(monkeypatch, capsys, "doctor", "--kubeconfig", config)
    assert "http://127.0.0.1:" in text  # the server is named, without its user info
    assert_no_secret(text)
    out_dir = tmp_path / "dump"
    code, text = run(monkeypatch, capsys, "dump", "--kubeconfig", config, "--output-dir", str(out_dir))
    assert_no_secret(text)
    written = [p for p in out_dir.rglob("*") if p.is_file()] if out_dir.exists() else []
    if code == 0:
        assert any(p.name == "cluster-info.yaml" for p in written)
    for path in written:
        assert_no_secret(path.read_text(errors="replace"))


def test_wrong_token_error_names_no_secret(apiserver: Start, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    server = apiserver("k136", token="the-server-wants-another-token")
    doc = kubeconfig_doc(with_user_info(server.url))
    doc["users"][0]["user"]["client-key-data"] = KEY_DATA
    code, text = run(monkeypatch, capsys, "doctor", "--kubeconfig", write(tmp_path / "config", doc))
    assert code != 0
    assert_no_secret(text)


def test_exec_plugin_output_is_never_shown(apiserver: Start, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    server = apiserver("k136")
    plugin = tmp_path / "leaky-plugin"
    plugin.write_text(f"#!/bin/sh\necho {EXEC_SECRET} >&2\necho {EXEC_SECRET}\nexit 3\n")
    plugin.chmod(plugin.stat().st_mode | stat.S_IXUSR)
    doc = kubeconfig_doc(server.url, token=None)
    doc["users"][0]["user"] = {"exec": {"apiVersion": "client.authentication.k8s.io/v1beta1",
                                        "command": str(plugin), "env": [{"name": "T", "value": PASSWORD}]}}
    code, text = run(monkeypatch, capsys, "doctor", "--kubeconfig", write(tmp_path / "config", doc))
    assert code != 0
    assert "leaky-plugin" in text  # the plugin is named, its output is not
    assert_no_secret(text)
    assert server.requests == []
