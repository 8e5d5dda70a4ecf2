"""A tiny stand-in for kube-apiserver: serves recorded JSON fixtures on 127.0.0.1 and records every request."""

# Fixture files mirror URL paths: `/apis/resource.k8s.io/v1/resourceslices` is served from
# `fixtures/<cluster>/apis/resource.k8s.io/v1/resourceslices.json`. Lists honour `limit`/`continue` like the real
# server. Every method but GET is answered 405 and recorded, so tests can assert that nothing tried to write.

from __future__ import annotations

import json
import ssl
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

FIXTURES = Path(__file__).parent / "fixtures"
TOKEN = "drasim-test-token"


def status(code: int, reason: str, message: str, **details: Any) -> dict[str, Any]:
    """A `Status` body as the API server sends with errors."""
    return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "message": message,
            "reason": reason, "details": details, "code": code}


Body = dict[str, Any] | bytes


@dataclass
class Route:
    """An override for one path: a status code and a body (dict -> JSON, bytes as is, or a function of the
    request's query and headers giving one), optionally delayed and with extra response headers."""

    code: int
    body: Body | Callable[[dict[str, list[str]], dict[str, str]], Body]
    content_type: str = "application/json"
    delay: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class Request:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]


@dataclass
class FakeApiServer:
    """Serve `cluster`'s fixtures (None: only `routes`); `token` makes every request need that bearer token."""

    cluster: str | None
    routes: dict[str, Route] = field(default_factory=dict)
    token: str | None = None
    tls: ssl.SSLContext | None = None  # serve HTTPS with this server-side context
    requests: list[Request] = field(default_factory=list)
    _server: ThreadingHTTPServer | None = None
    _thread: threading.Thread | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def url(self) -> str:
        assert self._server is not None
        return f"{'https' if self.tls else 'http'}://127.0.0.1:{self._server.server_port}"

    @property
    def methods(self) -> set[str]:
        return {r.method for r in self.requests}

    def paths(self) -> list[str]:
        return [r.path for r in self.requests]

    def start(self) -> FakeApiServer:
        server = _QuietServer(("127.0.0.1", 0), _handler(self))
        if self.tls is not None:
            server.socket = self.tls.wrap_socket(server.socket, server_side=True, do_handshake_on_connect=False)
        server.daemon_threads = True
        self._server = server
        self._thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    # --- request handling -----------------------------------------------------------------------

    def record(self, method: str, path: str, query: dict[str, list[str]], headers: dict[str, str]) -> None:
        with self._lock:
            self.requests.append(Request(method, path, query, headers))

    def answer(self, path: str, query: dict[str, list[str]], headers: dict[str, str]
               ) -> tuple[int, bytes, str, float, dict[str, str]]:
        if self.token is not None and headers.get("authorization") != f"Bearer {self.token}":
            return _json(401, status(401, "Unauthorized", "Unauthorized"))
        route = self.routes.get(path)
        if route is not None:
            body = route.body(query, headers) if callable(route.body) else route.body
            data = body if isinstance(body, bytes) else json.dumps(body).encode()
            return route.code, data, route.content_type, route.delay, route.headers
        file = FIXTURES / str(self.cluster) / (path.strip("/") + ".json") if self.cluster and path != "/" else None
        if file is None or not file.is_file():
            return _json(404, status(404, "NotFound", "the server could not find the requested resource"))
        doc = json.loads(file.read_text())
        if "limit" in query and isinstance(doc.get("items"), list):
            doc = _page(doc, int(query["limit"][0]), int((query.get("continue") or ["0"])[0]))
        return _json(200, doc)


class _QuietServer(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client refusing the certificate (the TLS tests) is expected, not worth a traceback


def _json(code: int, doc: dict[str, Any]) -> tuple[int, bytes, str, float, dict[str, str]]:
    return code, json.dumps(doc).encode(), "application/json", 0.0, {}


def _page(doc: dict[str, Any], limit: int, offset: int) -> dict[str, Any]:
    """One page of a list; the continue token is simply the next offset (real tokens are opaque)."""
    items = doc["items"]
    out = {**doc, "metadata": dict(doc.get("metadata") or {}), "items": items[offset:offset + limit]}
    if offset + limit < len(items):
        out["metadata"]["continue"] = str(offset + limit)
        out["metadata"]["remainingItemCount"] = len(items) - offset - limit
    return out


def _handler(api: FakeApiServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        timeout = 5  # a stuck client cannot hold a handler thread for long

        def _serve(self) -> None:
            url = urlsplit(self.path)
            query = parse_qs(url.query)
            headers = {k.lower(): v for k, v in self.headers.items()}
            api.record(self.command, url.path, query, headers)
            if self.command != "GET":
                code, body, ctype, delay, extra = _json(405, status(405, "MethodNotAllowed", "read-only test server"))
            else:
                code, body, ctype, delay, extra = api.answer(url.path, query, headers)
            if delay:
                time.sleep(delay)
            try:
                self.send_response(code)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                for name, value in extra.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(body)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (the timeout test): nothing to answer

        do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = _serve

        def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
            pass

    return Handler


def kubeconfig_doc(server: str, *, context: str = "test", token: str | None = TOKEN,
                   current: str | None = "test", **extra: Any) -> dict[str, Any]:
    """A kubeconfig with one cluster, user and context (the way kind or kubeadm write them)."""
    user: dict[str, Any] = {"token": token} if token else {}
    doc: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Config",
        "preferences": {},
        "clusters": [{"name": f"{context}-cluster", "cluster": {"server": server}}],
        "users": [{"name": f"{context}-user", "user": user}],
        "contexts": [{"name": context, "context": {"cluster": f"{context}-cluster", "user": f"{context}-user"}}],
    }
    if current is not None:
        doc["current-context"] = current
    doc.update(extra)
    return doc
