"""Read-only access to a live cluster: version, discovery, and paged lists decoded into v1 drasim objects."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec
import yaml
from lightkube.config import client_adapter
from lightkube.config.kubeconfig import SingleConfig
from lightkube.config.models import Cluster, Context, User
from lightkube.core.exceptions import ConfigError

from drasim import __version__
from drasim.api.convert import CONVERTIBLE_VERSIONS
from drasim.api.decode import decode_json_bytes, decode_object
from drasim.api.kinds import KubeObject
from drasim.cluster.snapshot import ClusterSnapshot
from drasim.errors import DrasimError, InputError

try:
    import httpx2 as httpx  # what lightkube >= 1.0 builds its clients with
except ImportError:  # pragma: no cover - older lightkube used httpx
    import httpx  # type: ignore[no-redef]

__all__ = ["DRA_KINDS", "ClusterAccessError", "KubeTarget", "LiveClient", "connect", "load_kubeconfig",
           "pick_versions", "read_cluster"]

GROUP = "resource.k8s.io"
# The DRA kinds drasim reads, in the order they are listed (and dumped).
DRA_KINDS = ("DeviceClass", "ResourceSlice", "DeviceTaintRule", "ResourceClaimTemplate", "ResourceClaim")
# core/v1 lists: (kind, path). Pods are filtered to those that use claims.
CORE_LISTS = (("Namespace", "/api/v1/namespaces"), ("Node", "/api/v1/nodes"), ("Pod", "/api/v1/pods"))
DEFAULT_KUBECONFIG = "~/.kube/config"
# kubeconfig fields holding file names, resolved against the file that names them (as kubectl does).
_CLUSTER_FILES = ("certificate-authority",)
_USER_FILES = ("client-certificate", "client-key", "tokenFile")


class ClusterAccessError(DrasimError):
    """The cluster cannot be read: kubeconfig problems, unreachable server, rejected credentials, RBAC."""

    exit_code = 2


@dataclass(frozen=True)
class KubeTarget:
    """Which cluster: the context used, its server URL and the kubeconfig file(s) it came from."""

    context: str
    server: str
    kubeconfig: str

    def __str__(self) -> str:
        return f"context {self.context} ({self.server})"


# --- credentials never leave the kubeconfig ------------------------------------------------------

_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)[^/?#\s@]*@")
REDACTED = "<redacted>"


def strip_userinfo(text: str) -> str:
    """`text` with the user info (`user:password@`) of every URL in it removed."""
    return _USERINFO.sub(r"\1", text)


def _secrets(user: User | None, server: str) -> list[str]:
    """Every credential the kubeconfig entry holds, longest first (what must never be printed)."""
    found: list[str] = []
    if user is not None:
        found += [user.token or "", user.password or "", user.client_key_data or ""]
        if user.exec is not None:
            found += [var.value for var in user.exec.env or [] if var.value]
            found += [a.split("=", 1)[1] for a in user.exec.args or [] if "=" in a]
        provider = getattr(user, "auth_provider", None)
        if isinstance(provider, dict):
            found += [v for v in (provider.get("config") or {}).values() if isinstance(v, str)]
    match = re.match(r"(?i)[a-z][a-z0-9+.-]*://([^/?#\s@]*)@", server)
    if match:
        info = match.group(1)
        found += [info, *info.split(":", 1)]
    # Short values (a user name like "a") would blank out unrelated text; tokens and keys are long.
    return sorted({s for s in found if len(s) >= 6}, key=len, reverse=True)


def scrub(text: str, secrets: list[str]) -> str:
    """`text` without URL user info and without any of `secrets`."""
    text = strip_userinfo(text)
    for secret in secrets:
        text = text.replace(secret, REDACTED)
    return text


# --- kubeconfig ------------------------------------------------------------------------------------

def _kubeconfig_paths(path: str | None) -> list[str]:
    if path:
        return [path]
    env = os.environ.get("KUBECONFIG", "")
    paths = [p for p in env.split(os.pathsep) if p]
    return paths or [DEFAULT_KUBECONFIG]


def _absolute(entry: dict[str, Any], keys: tuple[str, ...], base: Path) -> dict[str, Any]:
    out = dict(entry)
    for key in keys:
        value = out.get(key)
        if isinstance(value, str) and value and not Path(value).expanduser().is_absolute():
            out[key] = str(base / value)
    return out


def _read_kubeconfig(path: str) -> dict[str, Any]:
    file = Path(path).expanduser()
    try:
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ClusterAccessError("kubeconfig not found: pass --kubeconfig PATH or set KUBECONFIG",
                                 source=path) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ClusterAccessError(f"cannot read kubeconfig: {getattr(exc, 'strerror', None) or exc}",
                                 source=path) from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ClusterAccessError(f"kubeconfig is not valid YAML: {exc}", source=path) from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ClusterAccessError("kubeconfig must be a YAML mapping (apiVersion: v1, kind: Config)", source=path)
    base = file.resolve().parent
    for section, inner, keys in (("clusters", "cluster", _CLUSTER_FILES), ("users", "user", _USER_FILES)):
        entries = data.get(section) or []
        if not isinstance(entries, list):
            raise ClusterAccessError(f'"{section}" must be a list', source=path)
        data[section] = [{**e, inner: _absolute(e[inner], keys, base)}
                         if isinstance(e, dict) and isinstance(e.get(inner), dict) else e for e in entries]
    return data


def _named(entries: Any, inner: str, source: str) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for e in entries or []:
        if not isinstance(e, dict) or not isinstance(e.get("name"), str):
            raise ClusterAccessError(f"an entry of {inner}s has no name", source=source)
        value = e.get(inner)
        # Like kubectl merging KUBECONFIG files: the first file that defines a name wins.
        out.setdefault(e["name"], value if isinstance(value, dict) else {})
    return out


def load_kubeconfig(path: str | None = None, context: str | None = None) -> tuple[SingleConfig, KubeTarget]:
    """The connection settings of `context` (default: the current context) in `path` (default: $KUBECONFIG,
    several files separated by `:` merged like kubectl, else ~/.kube/config). Raises ClusterAccessError."""
    paths = _kubeconfig_paths(path)
    label = os.pathsep.join(paths)
    clusters: dict[str, dict[str, Any]] = {}
    contexts: dict[str, dict[str, Any]] = {}
    users: dict[str, dict[str, Any]] = {}
    current: str | None = None
    for p in paths:
        data = _read_kubeconfig(p)
        for merged, section, inner in ((clusters, "clusters", "cluster"), (contexts, "contexts", "context"),
                                       (users, "users", "user")):
            for key, value in _named(data.get(section), inner, p).items():
                merged.setdefault(key, value)
        if not current and isinstance(data.get("current-context"), str):
            current = data["current-context"]
    available = ", ".join(sorted(contexts)) or "none"
    name = context or current
    if not name:
        raise ClusterAccessError(f"kubeconfig has no current-context: pass --context NAME (contexts: {available})",
                                 source=label)
    if name not in contexts:
        raise ClusterAccessError(f"context {name!r} not found in kubeconfig (contexts: {available})", source=label)
    ctx_data = contexts[name]
    cluster_name = ctx_data.get("cluster")
    if not cluster_name or cluster_name not in clusters:
        raise ClusterAccessError(f"context {name!r} refers to cluster {cluster_name!r}, which the kubeconfig does "
                                 "not define", source=label)
    user_name = ctx_data.get("user")
    if user_name and user_name not in users:
        raise ClusterAccessError(f"context {name!r} refers to user {user_name!r}, which the kubeconfig does not "
                                 "define", source=label)
    try:
        ctx = msgspec.convert(ctx_data, Context)
        cluster = msgspec.convert(clusters[cluster_name], Cluster)
        user = msgspec.convert(users[user_name], User) if user_name else User()
    except msgspec.ValidationError as exc:
        raise ClusterAccessError(f"context {name!r}: malformed kubeconfig entry: {exc}", source=label) from None
    if not cluster.server:
        raise ClusterAccessError(f"cluster {cluster_name!r} has no server address", source=label)
    config = SingleConfig(context_name=name, context=ctx, cluster=cluster, user=user,
                          fname=Path(paths[0]).expanduser())
    # The target is what messages and dumps show: never the URL's user info.
    return config, KubeTarget(context=name, server=strip_userinfo(cluster.server).rstrip("/"), kubeconfig=label)


# --- the client ------------------------------------------------------------------------------------

def _refuse_writes(request: Any) -> None:
    # drasim only reads; this guard makes any other method a bug that fails before leaving the process.
    if request.method != "GET":
        raise ClusterAccessError(f"refusing to send {request.method} {request.url.path}: drasim only reads")


def _status_message(response: Any) -> str:
    """The `message` of a Kubernetes Status body, or the start of whatever the server said."""
    try:
        body = msgspec.json.decode(response.content)
    except msgspec.DecodeError:
        body = None
    if isinstance(body, dict) and isinstance(body.get("message"), str):
        return str(body["message"])
    text = response.content[:200].decode("utf-8", "replace").strip()
    return text or response.reason_phrase or ""


class LiveClient:
    """A GET-only client of one API server (TLS and credentials from the kubeconfig, via lightkube)."""

    def __init__(self, config: SingleConfig, target: KubeTarget, *, timeout: float = 10.0,
                 page_size: int = 500) -> None:
        self.target = target
        self.page_size = page_size
        self._secrets = _secrets(config.user, config.cluster.server or "")
        self._exec = config.user.exec.command if config.user is not None and config.user.exec else None
        try:
            params = client_adapter.ConnectionParams(timeout=httpx.Timeout(timeout))
            self._http = client_adapter.Client(config, params)
        except (ConfigError, OSError, ValueError) as exc:
            raise ClusterAccessError(scrub(f"{target}: cannot use the kubeconfig's credentials or certificates: "
                                           f"{exc}", self._secrets), source=target.kubeconfig) from None
        self._http.headers["Accept"] = "application/json"
        self._http.headers["User-Agent"] = f"drasim/{__version__} (read-only)"
        self._http.event_hooks = {"request": [_refuse_writes], "response": []}
        self._timeout = timeout

    def close(self) -> None:
        """Close the connection pool."""
        self._http.close()

    def __enter__(self) -> LiveClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def get_bytes(self, path: str, *, what: str, params: dict[str, Any] | None = None,
                  missing_ok: bool = False) -> bytes | None:
        """GET `path`; `what` names the resource in errors. None for a 404 when `missing_ok`.

        No error message carries a credential: URL user info, tokens, passwords, keys and whatever an exec
        credential plugin printed are left out."""
        try:
            return self._get_bytes(path, what=what, params=params, missing_ok=missing_ok)
        except ClusterAccessError as err:
            raise ClusterAccessError(scrub(err.message, self._secrets), source=err.source) from None

    def _exec_failed(self, exc: Exception) -> ClusterAccessError:
        """An exec credential plugin failed: say which and how, never what it printed."""
        command = os.path.basename(self._exec or "")
        code = re.match(r"Exec .* returned (-?\d+):", str(exc)) if isinstance(exc, ConfigError) else None
        how = (f"exited with status {code.group(1)}" if code else
               "did not print an ExecCredential with status.token" if not isinstance(exc, (ConfigError, OSError))
               else f"could not be run ({getattr(exc, 'strerror', None) or type(exc).__name__})")
        return ClusterAccessError(
            f"{self.target}: getting credentials failed: the exec credential plugin {command!r} {how} (its output "
            f"is not shown: it may hold credentials; run the plugin yourself to see it)",
            source=self.target.kubeconfig)

    def _get_bytes(self, path: str, *, what: str, params: dict[str, Any] | None,
                   missing_ok: bool) -> bytes | None:
        try:
            response = self._http.get(path, params=params)
        except httpx.TimeoutException:
            raise ClusterAccessError(
                f"{self.target}: timed out after {self._timeout:g}s reading {what} (GET {path}); check the network "
                "path to the API server or pass a longer --timeout") from None
        except httpx.ConnectError as exc:
            raise ClusterAccessError(
                f"cannot connect to the API server at {self.target.server} (context {self.target.context}): "
                f"{exc or type(exc).__name__}. Is the cluster running, and is the kubeconfig's server address "
                f"right? (try: kubectl --context {self.target.context} cluster-info)") from None
        except (ConfigError, OSError, ValueError, KeyError, TypeError) as exc:
            # Exec credential plugins fail here (or are not installed, or print something else).
            if self._exec is not None:
                raise self._exec_failed(exc) from None
            raise ClusterAccessError(f"{self.target}: getting credentials failed: {exc}",
                                     source=self.target.kubeconfig) from None
        except httpx.HTTPError as exc:
            raise ClusterAccessError(f"{self.target}: GET {path} ({what}) failed: {exc or type(exc).__name__}"
                                     ) from None
        status = response.status_code
        if status == 200:
            content: bytes = response.content
            return content
        message = _status_message(response)
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

    def get_json(self, path: str, *, what: str, missing_ok: bool = False) -> Any:
        """GET `path` and parse it as JSON (None for a tolerated 404)."""
        data = self.get_bytes(path, what=what, missing_ok=missing_ok)
        if data is None:
            return None
        try:
            return msgspec.json.decode(data)
        except msgspec.DecodeError:
            raise ClusterAccessError(f"{self.target}: GET {path} did not return JSON: is "
                                     f"{self.target.server} a Kubernetes API server?") from None

    def list_pages(self, path: str, *, what: str) -> Iterator[bytes]:
        """The pages of a list (`limit`/`continue`), as raw JSON bytes."""
        token: str | None = None
        while True:
            params: dict[str, Any] = {"limit": self.page_size}
            if token:
                params["continue"] = token
            page = self.get_bytes(path, what=what, params=params)
            assert page is not None  # only a tolerated 404 gives None
            yield page
            try:
                meta = msgspec.json.decode(page, type=_ListHead).metadata
            except (msgspec.DecodeError, msgspec.ValidationError):
                raise ClusterAccessError(f"{self.target}: GET {path} did not return a Kubernetes list") from None
            token = meta.continue_ if meta is not None else None
            if not token:
                return

    def server_version(self) -> str:
        """The server's gitVersion (`v1.36.1`)."""
        info = self.get_json("/version", what="the server version")
        version = info.get("gitVersion") if isinstance(info, dict) else None
        if not isinstance(version, str):
            raise ClusterAccessError(f"{self.target}: /version has no gitVersion: is {self.target.server} a "
                                     "Kubernetes API server?")
        return version

    def group_versions(self, group: str) -> tuple[str, ...]:
        """The versions of an API group the server serves, in its order of preference; () when not served."""
        groups = self.get_json("/apis", what="API discovery")
        for g in (groups.get("groups") or []) if isinstance(groups, dict) else []:
            if isinstance(g, dict) and g.get("name") == group:
                return tuple(v["version"] for v in g.get("versions") or []
                             if isinstance(v, dict) and isinstance(v.get("version"), str))
        return ()

    def resources(self, group: str, version: str) -> dict[str, tuple[str, bool]]:
        """kind -> (plural name, namespaced) for the listable resources of group/version."""
        data = self.get_json(f"/apis/{group}/{version}", what=f"discovery of {group}/{version}", missing_ok=True)
        out: dict[str, tuple[str, bool]] = {}
        for res in (data or {}).get("resources") or []:
            name = res.get("name", "")
            if "/" in name or "list" not in (res.get("verbs") or ["list"]):
                continue  # subresources (status) and resources that cannot be listed
            out.setdefault(res.get("kind", ""), (name, bool(res.get("namespaced"))))
        return out


class _ListMeta(msgspec.Struct):
    continue_: str | None = msgspec.field(default=None, name="continue")


class _ListHead(msgspec.Struct):
    metadata: _ListMeta | None = None


class _PodSpecClaims(msgspec.Struct, rename="camel"):
    resource_claims: list[Any] | None = None


class _PodStatusClaims(msgspec.Struct, rename="camel"):
    extended_resource_claim_status: Any = None


class _PodClaims(msgspec.Struct):
    """Just enough of a pod to know whether it uses DRA (everything else is skipped unparsed)."""

    spec: _PodSpecClaims | None = None
    status: _PodStatusClaims | None = None


class _RawList(msgspec.Struct):
    items: list[msgspec.Raw] | None = None


_pod_decoder = msgspec.json.Decoder(_PodClaims)
_raw_list_decoder = msgspec.json.Decoder(_RawList)


def connect(kubeconfig: str | None = None, context: str | None = None, *, timeout: float = 10.0,
            page_size: int = 500) -> LiveClient:
    """A read-only client for the kubeconfig context (see `load_kubeconfig`)."""
    config, target = load_kubeconfig(kubeconfig, context)
    return LiveClient(config, target, timeout=timeout, page_size=page_size)


# --- reading a cluster -----------------------------------------------------------------------------

@dataclass
class _Reader:
    client: LiveClient
    objects: list[KubeObject] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def read(self, kind: str, path: str, api_version: str) -> None:
        source = f"GET {path}"
        for page in self.client.list_pages(path, what=_what(kind, api_version)):
            if kind == "Pod":
                self._pods(page, api_version, source)
                continue
            try:
                self.objects.extend(decode_json_bytes(page, source=source).objects)
            except InputError:
                self._one_by_one(page, kind, api_version, source)

    def _items(self, page: bytes, source: str) -> list[msgspec.Raw]:
        try:
            return _raw_list_decoder.decode(page).items or []
        except (msgspec.DecodeError, msgspec.ValidationError):
            raise ClusterAccessError(f"{self.client.target}: {source} did not return a Kubernetes list") from None

    def _one_by_one(self, page: bytes, kind: str, api_version: str, source: str) -> None:
        """A page with an object drasim cannot read: keep the others, say which one was left out."""
        self._decode_each([{"apiVersion": api_version, "kind": kind, **msgspec.json.decode(raw)}
                           for raw in self._items(page, source)], source)

    def _pods(self, page: bytes, api_version: str, source: str) -> None:
        keep = []
        for raw in self._items(page, source):
            head = _pod_decoder.decode(raw)
            uses_claims = head.spec is not None and bool(head.spec.resource_claims)
            extended = head.status is not None and head.status.extended_resource_claim_status is not None
            if uses_claims or extended:
                keep.append({"apiVersion": api_version, "kind": "Pod", **msgspec.json.decode(raw)})
        self._decode_each(keep, source)

    def _decode_each(self, docs: list[dict[str, Any]], source: str) -> None:
        """Decode each document on its own: one that does not decode is left out with a warning naming it."""
        for doc in docs:
            try:
                obj = decode_object(doc, source=source, warnings=self.warnings)
            except InputError as exc:
                self.warnings.append(str(exc))
                continue
            if obj is not None:
                self.objects.append(obj)


def _what(kind: str, api_version: str) -> str:
    group = api_version.rpartition("/")[0]
    plural = {"DeviceClass": "deviceclasses", "ResourceSlice": "resourceslices", "ResourceClaim": "resourceclaims",
              "ResourceClaimTemplate": "resourceclaimtemplates", "DeviceTaintRule": "devicetaintrules",
              "Namespace": "namespaces", "Node": "nodes", "Pod": "pods"}.get(kind, kind.lower() + "s")
    return f"{plural}.{group}" if group else plural


def pick_versions(client: LiveClient, served: tuple[str, ...]) -> dict[str, tuple[str, str]]:
    """kind -> (version, plural): for each DRA kind, the newest served version drasim reads."""
    chosen: dict[str, tuple[str, str]] = {}
    for version in CONVERTIBLE_VERSIONS:  # newest first: v1, v1beta2, v1beta1, v1alpha3
        if version not in served:
            continue
        for kind, (plural, _) in client.resources(GROUP, version).items():
            if kind in DRA_KINDS:
                chosen.setdefault(kind, (version, plural))
    return chosen


def read_cluster(kubeconfig: str | None = None, context: str | None = None, *, timeout: float = 10.0,
                 page_size: int = 500) -> ClusterSnapshot:
    """Read everything DRA-relevant from the cluster of `context` with GET requests only.

    Objects come back as v1 drasim structs whatever version the server serves (v1beta1 on 1.32 is converted);
    pods are kept only when they reference claims. Raises ClusterAccessError (exit code 2) when the cluster
    cannot be reached or read; an object drasim cannot decode is left out with a warning.
    """
    with connect(kubeconfig, context, timeout=timeout, page_size=page_size) as client:
        version = client.server_version()
        served = client.group_versions(GROUP)
        chosen = pick_versions(client, served)
        reader = _Reader(client)
        read_versions: dict[str, str] = {}
        for kind, path in CORE_LISTS[:2]:
            reader.read(kind, path, "v1")
            read_versions[kind] = "v1"
        for kind in DRA_KINDS:
            if kind in chosen:
                v, plural = chosen[kind]
                reader.read(kind, f"/apis/{GROUP}/{v}/{plural}", f"{GROUP}/{v}")
                read_versions[kind] = f"{GROUP}/{v}"
        kind, path = CORE_LISTS[2]
        reader.read(kind, path, "v1")
        read_versions[kind] = "v1"
        return ClusterSnapshot(objects=reader.objects, server_version=version, resource_versions=served,
                               read_versions=read_versions, source=str(client.target), warnings=reader.warnings)
