"""The credentials of a kubeconfig user: token, token file, basic auth, client certificate, exec plugin (bounded)."""

from __future__ import annotations

import base64
import binascii
import contextlib
import io
import json
import os
import subprocess
import sys
import threading
from dataclasses import dataclass
from typing import Any

from drasim.sources.kubeconfig import (
    ClusterAccessError,
    ClusterEntry,
    KubeConfig,
    UnreadableFile,
    UserEntry,
    read_regular,
)
from drasim.sources.secrets import Secrets

__all__ = ["CREDENTIAL_FILE_MAX", "EXEC_OUTPUT_MAX", "EXEC_TIMEOUT", "Credentials", "decode_base64",
           "read_credential_file", "user_credentials"]

# A token, certificate, key or CA bundle is kilobytes; anything past this is not one (/dev/zero, a log file).
CREDENTIAL_FILE_MAX = 4 * 1024 * 1024
# An ExecCredential is a token or a certificate pair: kilobytes.
EXEC_OUTPUT_MAX = 1024 * 1024
# Seconds an exec plugin may run (client-go waits forever; drasim is a batch tool and says why it stopped).
EXEC_TIMEOUT = 60.0
EXEC_TIMEOUT_INTERACTIVE = 300.0


@dataclass(frozen=True)
class Credentials:
    """What a request carries: an Authorization header value and/or a client certificate pair (PEM)."""

    authorization: str | None = None
    client_cert: bytes | None = None
    client_key: bytes | None = None


# --- files -----------------------------------------------------------------------------------------

def read_credential_file(path: str, *, field: str, source: str, what: str, owner: str) -> bytes:
    """The bytes of a credential file (`read_regular`, at most `CREDENTIAL_FILE_MAX` bytes). Errors name the
    kubeconfig, the field and the file, in kubectl's words."""
    try:
        return read_regular(path, CREDENTIAL_FILE_MAX)
    except UnreadableFile as exc:
        raise ClusterAccessError(f"{field}: unable to read {what} {path} for {owner} due to {exc.reason}",
                                 source=source) from None


def decode_base64(data: str, *, field: str, source: str) -> bytes:
    """A kubeconfig `*-data` field's bytes; a field that is not base64 is refused by name."""
    try:
        return base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        raise ClusterAccessError(f"{field}: not valid base64", source=source) from None


# --- the user's credentials ------------------------------------------------------------------------

def user_credentials(config: KubeConfig, secrets: Secrets) -> Credentials:
    """The credentials of the context's user, each remembered in `secrets` before anything could print it.
    Runs the exec plugin when there is one (bounded in time and output)."""
    user = config.user
    secrets.add(user.token)
    secrets.add_basic(user.username, user.password)
    secrets.add_base64(user.client_key_data)
    if user.exec is not None:
        for _, value in user.exec.env:
            secrets.add(value)
        for arg in user.exec.args:  # `--token=...`-style arguments
            secrets.add(arg.split("=", 1)[1] if "=" in arg else None)
    if user.auth_provider is not None:
        raise ClusterAccessError(f"{user.field('auth-provider')}: the {user.auth_provider!r} auth provider is not "
                                 "supported (kubectl removed auth providers in 1.26; use an exec plugin)",
                                 source=user.source)
    cert, key = _client_pair(user, secrets)
    authorization: str | None = None
    if user.token_file:
        file_token = read_credential_file(user.token_file, field=user.field("tokenFile"), source=user.source,
                                          what="tokenFile", owner=user.name).decode("utf-8", "replace").strip()
        secrets.add(file_token)
        if not file_token:
            raise ClusterAccessError(f'{user.field("tokenFile")}: read empty token from file "{user.token_file}"',
                                     source=user.source)
        authorization = f"Bearer {file_token}"
    elif user.token:
        authorization = f"Bearer {user.token}"
    elif user.exec is not None:
        token, exec_cert, exec_key = run_exec_plugin(config, secrets)
        authorization = f"Bearer {token}" if token else None
        if exec_cert:
            cert, key = exec_cert, exec_key
    elif user.username is not None or user.password is not None:
        pair = base64.b64encode(f"{user.username or ''}:{user.password or ''}".encode()).decode()
        authorization = f"Basic {pair}"
    return Credentials(authorization=authorization, client_cert=cert, client_key=key)


def _client_pair(user: UserEntry, secrets: Secrets) -> tuple[bytes | None, bytes | None]:
    # As client-go: `*-data` wins over the file.
    if user.client_certificate_data:
        cert = decode_base64(user.client_certificate_data, field=user.field("client-certificate-data"),
                             source=user.source)
    elif user.client_certificate:
        cert = read_credential_file(user.client_certificate, field=user.field("client-certificate"),
                                    source=user.source, what="client-cert", owner=user.name)
    else:
        return None, None
    if user.client_key_data:
        key = decode_base64(user.client_key_data, field=user.field("client-key-data"), source=user.source)
    else:
        assert user.client_key is not None  # kubeconfig loading requires a key with a certificate
        key = read_credential_file(user.client_key, field=user.field("client-key"), source=user.source,
                                   what="client-key", owner=user.name)
    secrets.add(key)
    return cert, key


# --- exec plugins ----------------------------------------------------------------------------------

def _cluster_info(cluster: ClusterEntry) -> dict[str, Any]:
    """ExecCredential `spec.cluster` (provideClusterInfo)."""
    info: dict[str, Any] = {"server": cluster.server}
    if cluster.tls_server_name:
        info["tls-server-name"] = cluster.tls_server_name
    if cluster.insecure:
        info["insecure-skip-tls-verify"] = True
    ca = cluster.certificate_authority_data
    if not ca and cluster.certificate_authority:
        ca = base64.b64encode(read_credential_file(
            cluster.certificate_authority, field=cluster.field("certificate-authority"), source=cluster.source,
            what="certificate-authority", owner=cluster.name)).decode()
    if ca:
        info["certificate-authority-data"] = ca
    if cluster.proxy_url:
        info["proxy-url"] = cluster.proxy_url
    if cluster.disable_compression:
        info["disable-compression"] = True
    return info


def _interactive(mode: str, fail: Any) -> bool:
    try:
        tty = sys.stdin is not None and sys.stdin.isatty()
    except ValueError:  # a closed stdin
        tty = False
    if mode == "Always" and not tty:
        raise fail("exec plugin cannot support interactive mode: standard input is not a terminal")
    return tty and mode != "Never"


def run_exec_plugin(config: KubeConfig, secrets: Secrets) -> tuple[str | None, bytes | None, bytes | None]:
    """Run the user's exec credential plugin as client-go does (KUBERNETES_EXEC_INFO, the ExecCredential checks and
    messages of plugin/pkg/client/auth/exec/exec.go, v0.36) and return (token, client cert, client key). Its stderr
    is never shown unless it runs interactively (then it is the user's terminal); its output is bounded."""
    spec = config.user.exec
    assert spec is not None
    name = os.path.basename(spec.command)

    def fail(message: str) -> ClusterAccessError:
        return ClusterAccessError(f"{config.target}: getting credentials failed: {message}",
                                  source=config.target.kubeconfig)

    interactive = _interactive(spec.interactive_mode, fail)
    request: dict[str, Any] = {"kind": "ExecCredential", "apiVersion": spec.api_version,
                               "spec": {"interactive": interactive}}
    if spec.provide_cluster_info:
        request["spec"]["cluster"] = _cluster_info(config.cluster)
    env = {**os.environ, **dict(spec.env), "KUBERNETES_EXEC_INFO": json.dumps(request, separators=(",", ":"))}
    timeout = EXEC_TIMEOUT_INTERACTIVE if interactive else EXEC_TIMEOUT
    try:
        proc = subprocess.Popen([spec.command, *spec.args], env=env, stdout=subprocess.PIPE,
                                stdin=None if interactive else subprocess.DEVNULL,
                                stderr=None if interactive else subprocess.DEVNULL)
    except FileNotFoundError:
        hint = f"\n\n{spec.install_hint}" if spec.install_hint else ""
        raise fail(f"exec: executable {spec.command} not found{hint}") from None
    except (OSError, ValueError) as exc:
        raise fail(f"exec: executable {spec.command} could not be run: "
                   f"{(getattr(exc, 'strerror', None) or str(exc)).lower()}") from None
    out, over = _bounded_output(proc, timeout)
    if over == "time":
        raise fail(f"exec: executable {spec.command} did not finish within {timeout:g}s (stopped)")
    if over == "size":
        raise fail(f"exec: executable {spec.command} printed more than {EXEC_OUTPUT_MAX:,} bytes (stopped)")
    if proc.returncode != 0:
        raise fail(f"exec: executable {spec.command} failed with exit code {proc.returncode} (its output is not "
                   f"shown: it may hold credentials; run the plugin {name!r} yourself to see it)")
    return _exec_credential(out, spec.api_version, secrets, fail)


def _bounded_output(proc: subprocess.Popen[bytes], timeout: float) -> tuple[bytes, str]:
    """The process's stdout, at most `EXEC_OUTPUT_MAX` bytes and `timeout` seconds; ('', 'time'|'size') when it
    ran over (the process is killed)."""
    chunks: list[bytes] = []
    over: list[str] = []
    stdout = proc.stdout
    assert isinstance(stdout, io.BufferedReader)

    def pump() -> None:
        total = 0
        while chunk := stdout.read1(65536):
            total += len(chunk)
            if total > EXEC_OUTPUT_MAX:
                over.append("size")
                proc.kill()
                return
            chunks.append(chunk)

    reader = threading.Thread(target=pump, daemon=True)
    reader.start()
    reader.join(timeout)
    if reader.is_alive():
        over.append("time")
        proc.kill()
        reader.join(1.0)  # a grandchild may still hold the pipe: the daemon thread is left behind
    with contextlib.suppress(subprocess.TimeoutExpired):  # killed processes end; a stuck one is left alone
        proc.wait(5.0)
    if not reader.is_alive():
        stdout.close()
    return (b"", over[0]) if over else (b"".join(chunks), "")


def _exec_credential(out: bytes, api_version: str, secrets: Secrets,
                     fail: Any) -> tuple[str | None, bytes | None, bytes | None]:
    try:
        doc = json.loads(out)
    except (ValueError, RecursionError):
        raise fail("decoding stdout: the exec plugin did not print an ExecCredential (JSON)") from None
    if not isinstance(doc, dict) or doc.get("kind") != "ExecCredential":
        raise fail("decoding stdout: the exec plugin did not print an ExecCredential")
    status = doc.get("status")
    status = status if isinstance(status, dict) else {}
    token, cert, key = (status.get(k) for k in ("token", "clientCertificateData", "clientKeyData"))
    for value in (token, key):
        secrets.add(value if isinstance(value, str) else None)
    if doc.get("apiVersion") != api_version:
        returned = doc.get("apiVersion") if isinstance(doc.get("apiVersion"), str) else "(none)"
        raise fail(f"exec plugin is configured to use API version {api_version}, plugin returned version {returned}")
    if not isinstance(doc.get("status"), dict):
        raise fail("exec plugin didn't return a status field")
    if not all(v is None or isinstance(v, str) for v in (token, cert, key)):
        raise fail("decoding stdout: status.token, status.clientCertificateData and status.clientKeyData must be "
                   "strings")
    if not token and not cert and not key:
        raise fail("exec plugin didn't return a token or cert/key pair")
    if bool(cert) != bool(key):
        raise fail("exec plugin returned only certificate or key, not both")
    return token or None, cert.encode() if cert else None, key.encode() if key else None
