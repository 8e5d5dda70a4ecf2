"""The GET-only HTTP client of one API server: TLS as kubectl sets it up, bounded responses, sanitised messages."""

from __future__ import annotations

import json
import os
import re
import ssl
import tempfile
import time
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import httpx2 as httpx
import msgspec

from drasim import __version__
from drasim.errors import InputError
from drasim.sources.jsondepth import check_json_depth
from drasim.sources.kubeauth import Credentials, decode_base64, read_credential_file, user_credentials
from drasim.sources.kubeconfig import ClusterAccessError, KubeConfig, KubeTarget
from drasim.sources.secrets import Secrets

__all__ = ["LiveClient", "MiB", "ReadLimits", "server_text"]

MiB = 1024 * 1024


@dataclass(frozen=True)
class ReadLimits:
    """How much drasim reads from one API server before it stops with an error (every bound is far above what a
    real cluster sends: 150,000 pods and 5,000 nodes, kube's scalability limits, fit with room)."""

    body_bytes: int = 256 * MiB  # one response, after decompression
    error_body_bytes: int = 64 * 1024  # an error response (only its message is shown)
    list_items: int = 1_000_000  # objects in one list, over all its pages
    list_pages: int = 10_000  # pages of one list (a server may send short pages, never endless ones)
    message_chars: int = 1_000  # a server's message as drasim prints it
    deadline_factor: float = 6.0  # a request may take this many --timeout in all (a slow dribble ends too)


# --- what a server says ----------------------------------------------------------------------------

# CSI/OSC escape sequences first (so no `[31m` remains), then any other C0/C1 control character.
_ESCAPES = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-Z\\-_])|\x9b[0-?]*[ -/]*[@-~]")
_CONTROLS = re.compile(r"[\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]+")


def server_text(text: str, limit: int = ReadLimits.message_chars) -> str:
    """Text a server sent, fit to print: terminal escapes and control characters (bidi overrides included)
    replaced by a space, at most `limit` characters (the rest counted)."""
    text = _CONTROLS.sub(" ", _ESCAPES.sub("", text)).strip()
    if len(text) > limit:
        text = f"{text[:limit]}... ({len(text) - limit:,} more characters)"
    return text


_MESSAGE = re.compile(rb'"message"\s*:\s*"((?:[^"\\]|\\.)*)')


def _status_message(body: bytes, reason: str, limit: int) -> str:
    """The `message` of a Kubernetes Status body, or the start of whatever the server said."""
    try:
        check_json_depth(body, source="")
        doc = msgspec.json.decode(body)
    except (InputError, msgspec.DecodeError):
        doc = None
    if isinstance(doc, dict) and isinstance(doc.get("message"), str):
        return server_text(str(doc["message"]), limit)
    partial = _MESSAGE.search(body)  # a Status cut at the error-body bound: its message's start
    if doc is None and partial:
        text = partial.group(1).decode("utf-8", "replace")
        try:
            return server_text(json.loads(f'"{text.rstrip(chr(92))}"'), limit)
        except ValueError:
            return server_text(text, limit)
    return server_text(body[:200].decode("utf-8", "replace"), limit) or server_text(reason, limit)


# --- TLS -------------------------------------------------------------------------------------------

def _tls_context(config: KubeConfig, creds: Credentials) -> ssl.SSLContext:
    """The TLS settings client-go's transport makes of the kubeconfig (transport/transport.go, v0.36)."""
    cluster = config.cluster
    ca: bytes | None = None
    ca_field = cluster.field("certificate-authority-data")
    if cluster.certificate_authority_data:
        ca = decode_base64(cluster.certificate_authority_data, field=ca_field, source=cluster.source)
    elif cluster.certificate_authority:
        ca_field = cluster.field("certificate-authority")
        ca = read_credential_file(cluster.certificate_authority, field=ca_field, source=cluster.source,
                                  what="certificate-authority", owner=cluster.name)
    if ca is not None and cluster.insecure:
        raise ClusterAccessError(f"{cluster.field('insecure-skip-tls-verify')}: specifying a root certificates file "
                                 "with the insecure flag is not allowed", source=cluster.source)
    if cluster.insecure:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
    else:
        ctx = ssl.create_default_context()
        if ca is not None:
            try:
                ctx = ssl.create_default_context(cadata=ca.decode("ascii", "replace"))
            except (ssl.SSLError, ValueError) as exc:
                raise ClusterAccessError(f"{ca_field}: unable to load root certificates: {exc}",
                                         source=cluster.source) from None
    ctx.minimum_version = ssl.TLSVersion.TLSv1_2
    if creds.client_cert is not None and creds.client_key is not None:
        _load_pair(ctx, creds.client_cert, creds.client_key, config)
    return ctx


def _load_pair(ctx: ssl.SSLContext, cert: bytes, key: bytes, config: KubeConfig) -> None:
    """Python's ssl loads a certificate pair only from files: a private directory, removed at once."""
    with tempfile.TemporaryDirectory(prefix="drasim-tls-") as tmp:
        cert_file, key_file = os.path.join(tmp, "client.crt"), os.path.join(tmp, "client.key")
        for path, data in ((cert_file, cert), (key_file, key)):
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "wb") as f:
                f.write(data)
        try:
            ctx.load_cert_chain(cert_file, key_file)
        except (ssl.SSLError, OSError) as exc:
            user = config.user
            raise ClusterAccessError(f"{user.field('client-certificate')}: failed parsing client key/certificate: "
                                     f"{getattr(exc, 'reason', None) or exc}", source=user.source) from None


# --- the client ------------------------------------------------------------------------------------

def _refuse_writes(request: Any) -> None:
    # drasim only reads; this guard makes any other method a bug that fails before leaving the process.
    if request.method != "GET":
        raise ClusterAccessError(f"refusing to send {request.method} {request.url.path}: drasim only reads")


class _BodyTooLarge(Exception):
    pass


class LiveClient:
    """A GET-only client of one API server, with the kubeconfig's TLS settings, credentials and proxy."""

    def __init__(self, config: KubeConfig, *, timeout: float = 10.0, page_size: int = 500,
                 limits: ReadLimits | None = None) -> None:
        self.target: KubeTarget = config.target
        self.page_size = page_size
        self.limits = limits or ReadLimits()
        self.secrets = Secrets()
        self._timeout = timeout
        cluster = config.cluster
        for url in (cluster.server, cluster.proxy_url or ""):  # user info in a URL is basic auth
            info = url.partition("://")[2].partition("/")[0].rpartition("@")[0]
            if info:
                user, _, password = info.partition(":")
                self.secrets.add_basic(user, password)
                self.secrets.add(info)
        creds = user_credentials(config, self.secrets)
        https = cluster.server.lower().startswith("https://")
        verify: ssl.SSLContext | bool = _tls_context(config, creds) if https else True
        self._extensions = {"sni_hostname": cluster.tls_server_name} if cluster.tls_server_name and https else {}
        headers = {"Accept": "application/json", "User-Agent": f"drasim/{__version__} (read-only)",
                   # gzip only: drasim inflates it itself, within the body bound.
                   "Accept-Encoding": "identity" if cluster.disable_compression else "gzip"}
        if creds.authorization:
            headers["Authorization"] = creds.authorization
        try:
            self._http = httpx.Client(base_url=cluster.server, verify=verify, headers=headers, proxy=cluster.proxy_url,
                                      timeout=httpx.Timeout(timeout), follow_redirects=False, trust_env=True,
                                      event_hooks={"request": [_refuse_writes], "response": []})
        except (ValueError, TypeError, httpx.InvalidURL) as exc:
            raise ClusterAccessError(self.secrets.scrub(f"{cluster.field('server')}: cannot use the server address "
                                                        f"or proxy: {exc}"), source=cluster.source) from None

    def close(self) -> None:
        """Close the connection pool."""
        self._http.close()

    def __enter__(self) -> LiveClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def get_bytes(self, path: str, *, what: str, params: dict[str, Any] | None = None,
                  missing_ok: bool = False) -> bytes | None:
        """GET `path` (its body at most `limits.body_bytes`, inflated); `what` names the resource in errors. None
        for a 404 when `missing_ok`. No credential drasim holds survives in the body or any error message."""
        try:
            return self._get_bytes(path, what=what, params=params, missing_ok=missing_ok)
        except ClusterAccessError as err:
            raise ClusterAccessError(self.secrets.scrub(err.message), source=err.source) from None

    @contextmanager
    def _errors(self, path: str, what: str) -> Iterator[None]:
        try:
            yield
        except httpx.TimeoutException:
            raise ClusterAccessError(
                f"{self.target}: timed out after {self._timeout:g}s reading {what} (GET {path}); check the network "
                "path to the API server or pass a longer --timeout") from None
        except httpx.ConnectError as exc:
            raise ClusterAccessError(
                f"cannot connect to the API server at {self.target.server} (context {self.target.context}): "
                f"{server_text(str(exc)) or type(exc).__name__}. Is the cluster running, and is the kubeconfig's "
                f"server address right? (try: kubectl --context {self.target.context} cluster-info)") from None
        except (httpx.HTTPError, OSError, zlib.error, ValueError) as exc:  # ValueError: a name TLS refuses
            raise ClusterAccessError(f"{self.target}: GET {path} ({what}) failed: "
                                     f"{server_text(str(exc)) or type(exc).__name__}") from None

    def _get_bytes(self, path: str, *, what: str, params: dict[str, Any] | None,
                   missing_ok: bool) -> bytes | None:
        deadline = time.monotonic() + self._timeout * self.limits.deadline_factor
        with self._errors(path, what), self._http.stream("GET", path, params=params,
                                                         extensions=self._extensions) as response:
            status = response.status_code
            cap = self.limits.body_bytes if status == 200 else self.limits.error_body_bytes
            try:
                body = _read_body(response, cap, deadline, cut=status != 200)
            except _BodyTooLarge:
                raise ClusterAccessError(
                    f"{self.target}: GET {path} ({what}): the response is larger than {cap // MiB:,} MiB "
                    "(after decompression); drasim reads at most that much in one response") from None
            except TimeoutError:
                raise ClusterAccessError(
                    f"{self.target}: GET {path} ({what}) did not finish within "
                    f"{self._timeout * self.limits.deadline_factor:g}s (the server sends too slowly)") from None
        if self.secrets:
            body = self.secrets.scrub_bytes(body)
        if status == 200:
            return body
        message = _status_message(body, response.reason_phrase or "", self.limits.message_chars)
        if status == 404 and missing_ok:
            return None
        if status == 401:
            raise ClusterAccessError(
                f"{self.target}: the API server rejected the credentials (401 Unauthorized) while reading {what}: "
                f"{message}. Log in again or refresh the token of context {self.target.context}")
        if status == 403:
            check = f" (check: kubectl auth can-i list {what} --all-namespaces)" if " " not in what else ""
            raise ClusterAccessError(
                f"{self.target}: not allowed to read {what} (403 Forbidden): {message}. drasim only needs "
                f"get/list; ask for read access{check}")
        raise ClusterAccessError(f"{self.target}: GET {path} ({what}) failed: HTTP {status}: {message}")

    def check_depth(self, data: bytes, path: str) -> None:
        """`ClusterAccessError` for a response nested deeper than any decoder may read: they recurse, so a
        hostile server's nesting would overflow them."""
        try:
            check_json_depth(data, source=path)
        except InputError as err:
            raise ClusterAccessError(f"{self.target}: GET {path}: {err.message}") from None

    def get_json(self, path: str, *, what: str, missing_ok: bool = False) -> Any:
        """GET `path` and parse it as JSON (None for a tolerated 404)."""
        data = self.get_bytes(path, what=what, missing_ok=missing_ok)
        if data is None:
            return None
        self.check_depth(data, path)
        try:
            return msgspec.json.decode(data)
        except msgspec.DecodeError:
            raise ClusterAccessError(f"{self.target}: GET {path} did not return JSON: is "
                                     f"{self.target.server} a Kubernetes API server?") from None


def _read_body(response: Any, cap: int, deadline: float, *, cut: bool = False) -> bytes:
    """The body, inflated here (gzip or deflate) chunk by chunk so that no more than `cap` bytes ever exist;
    with `cut`, its first `cap` bytes instead of an error (an error response: only its message is wanted)."""
    length = response.headers.get("content-length", "")
    encoding = response.headers.get("content-encoding", "").strip().lower()
    if encoding in ("", "identity"):
        inflate = None
        if length.isdigit() and int(length) > cap and not cut:
            raise _BodyTooLarge
    elif encoding in ("gzip", "x-gzip"):
        inflate = zlib.decompressobj(16 + zlib.MAX_WBITS)
    elif encoding == "deflate":
        inflate = zlib.decompressobj()
    else:
        raise httpx.DecodingError(f"unsupported Content-Encoding {server_text(encoding, 40)!r} (drasim asked "
                                  "for gzip)")
    out = bytearray()
    for raw in response.iter_raw():
        if time.monotonic() > deadline:
            raise TimeoutError
        data = raw
        while data:
            if inflate is None:
                piece, data = data, b""
            else:
                piece = inflate.decompress(data, cap + 1 - len(out))
                data = inflate.unconsumed_tail
            out += piece
            if len(out) > cap:
                if cut:
                    return bytes(out[:cap])
                raise _BodyTooLarge
            if inflate is not None and inflate.eof:
                break
    if inflate is not None:
        out += inflate.flush()  # all input went through decompress(): at most a few buffered bytes
        if len(out) > cap:
            raise _BodyTooLarge
    return bytes(out)

