"""Credentials never leave the kubeconfig: planted secrets are absent from every output and dumped file."""

from __future__ import annotations

import base64
import json
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from apiserver import TOKEN, FakeApiServer, Route, kubeconfig_doc, status
from test_doctor import run as run_cli

from drasim.sources.secrets import Secrets

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


# --- a server that echoes request headers: every credential drasim holds is planted -------------------------

FILE_TOKEN = "planted-file-token-k2m8"
EXEC_TOKEN = "planted-exec-token-w5v3"
USER = "planted-user"
KEY_PEM = ("-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgplantedKEYbody01\n"
           "-----END PRIVATE KEY-----\n")
KEY_LINE = "MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgplantedKEYbody01"
NODES = Path(__file__).parent / "fixtures/k136/api/v1/nodes.json"


def forms(*secrets: str) -> list[str]:
    """Each secret raw and in base64 (basic auth travels as base64 of `user:password`)."""
    out = list(secrets)
    out += [base64.b64encode(s.encode()).decode() for s in secrets]
    return out


def echoing(extra: str = "") -> dict[str, Route]:
    """Routes whose answers carry the request's headers (and `extra`): in a node's annotation (what dump writes)
    and in the message of a 500 from /api/v1/namespaces (what every command prints)."""
    def nodes(query: dict[str, list[str]], headers: dict[str, str]) -> dict[str, Any]:
        doc: dict[str, Any] = json.loads(NODES.read_text())
        doc["items"][0]["metadata"].setdefault("annotations", {})["echo"] = json.dumps(headers) + extra
        return doc

    def failing(query: dict[str, list[str]], headers: dict[str, str]) -> dict[str, Any]:
        return status(500, "InternalError", f"proxy saw headers {json.dumps(headers)} {extra}")

    return {"/api/v1/nodes": Route(200, nodes), "/api/v1/namespaces": Route(500, failing)}


def user_kinds(tmp_path: Path) -> dict[str, tuple[dict[str, Any], list[str]]]:
    """user entry -> (the entry, the secrets it makes drasim hold)."""
    (tmp_path / "token").write_text(FILE_TOKEN + "\n")
    exec_out = json.dumps({"apiVersion": "client.authentication.k8s.io/v1", "kind": "ExecCredential",
                           "status": {"token": EXEC_TOKEN}})
    plugin = tmp_path / "plugin"
    plugin.write_text(f"#!/bin/sh\ncat <<'EOF'\n{exec_out}\nEOF\n")
    plugin.chmod(plugin.stat().st_mode | stat.S_IXUSR)
    key_data = base64.b64encode(KEY_PEM.encode()).decode()
    return {
        "tokenFile": ({"tokenFile": str(tmp_path / "token")}, forms(FILE_TOKEN)),
        "exec": ({"exec": {"apiVersion": "client.authentication.k8s.io/v1", "command": str(plugin),
                           "interactiveMode": "Never"}}, forms(EXEC_TOKEN)),
        "basic": ({"username": USER, "password": PASSWORD}, [PASSWORD, f"{USER}:{PASSWORD}",
                                                             *forms(f"{USER}:{PASSWORD}")]),
        "client-key": ({"token": TOKEN, "client-certificate-data": base64.b64encode(b"cert").decode(),
                        "client-key-data": key_data}, [KEY_LINE, key_data, TOKEN]),
        # user:password in the server's URL (sent as basic auth); the user entry is empty
        "url": ({}, [PASSWORD, f"admin:{PASSWORD}", *forms(f"admin:{PASSWORD}")]),
    }


@pytest.mark.parametrize("kind", ["tokenFile", "exec", "basic", "client-key", "url"])
def test_every_credential_is_scrubbed_from_messages_and_dumps(
        kind: str, apiserver: Start, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    user, planted = user_kinds(tmp_path)[kind]
    # The server echoes the headers; for a client key (which travels in no header) it echoes the key itself.
    extra = KEY_PEM.replace("\n", "\\n") + " " + KEY_LINE if kind == "client-key" else ""
    server = apiserver("k136", routes=echoing(extra), token=None)
    doc = kubeconfig_doc(with_user_info(server.url) if kind == "url" else server.url, token=None)
    doc["users"][0]["user"] = user
    config = write(tmp_path / "config", doc)
    code, text = run(monkeypatch, capsys, "doctor", "--kubeconfig", config)
    assert code == 2 and "HTTP 500: proxy saw headers" in text
    assert "<redacted>" in text
    for secret in planted:
        assert secret not in text, (kind, secret)
    # A 200 answer carrying them (a node annotation): the dump's files never hold one either.
    server.routes.pop("/api/v1/namespaces")
    server.cluster = "k136"
    out_dir = tmp_path / "dump"
    code, text = run(monkeypatch, capsys, "dump", "--kubeconfig", config, "--output-dir", str(out_dir))
    assert code == 0, text
    written = "".join(p.read_text(errors="replace") for p in out_dir.rglob("*") if p.is_file())
    assert "<redacted>" in written
    for secret in planted:
        assert secret not in text + written, (kind, secret)


def test_the_scrubber_knows_every_form() -> None:
    secrets = Secrets()
    secrets.add_basic("someone", "pass-word-1")
    secrets.add(KEY_PEM)
    header = "Basic " + base64.b64encode(b"someone:pass-word-1").decode()
    text = f"auth={header} pair=someone:pass-word-1 key={KEY_PEM} json={json.dumps(KEY_PEM)} url=http://u:p@h/"
    scrubbed = secrets.scrub(text)
    for secret in ("pass-word-1", header, "someone:pass-word-1", KEY_LINE, "u:p@"):
        assert secret not in scrubbed
    assert "someone" in secrets.scrub("someone logged in")  # a user name alone is not a secret
    assert secrets.scrub_bytes(header.encode()) == b"<redacted>"
