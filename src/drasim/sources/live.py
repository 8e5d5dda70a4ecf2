"""Reading a live cluster with GET and LIST only: discovery, bounded paged lists, objects decoded into v1 structs."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import msgspec

from drasim.api.convert import CONVERTIBLE_VERSIONS
from drasim.api.decode import decode_json_bytes, decode_object
from drasim.api.kinds import KubeObject
from drasim.cluster.snapshot import ClusterSnapshot
from drasim.errors import InputError
from drasim.sources.kubeconfig import ClusterAccessError, KubeConfig, KubeTarget, load_kubeconfig
from drasim.sources.kubehttp import LiveClient, ReadLimits, server_text

__all__ = ["DRA_KINDS", "ClusterAccessError", "KubeConfig", "KubeTarget", "LiveClient", "ReadLimits", "connect",
           "list_pages", "load_kubeconfig", "pick_versions", "read_cluster"]

GROUP = "resource.k8s.io"
# The DRA kinds drasim reads, in the order they are listed (and dumped).
DRA_KINDS = ("DeviceClass", "ResourceSlice", "DeviceTaintRule", "ResourceClaimTemplate", "ResourceClaim")
# core/v1 lists: (kind, path). Pods are filtered to those that use claims.
CORE_LISTS = (("Namespace", "/api/v1/namespaces"), ("Node", "/api/v1/nodes"), ("Pod", "/api/v1/pods"))


def connect(kubeconfig: str | None = None, context: str | None = None, *, timeout: float = 10.0,
            page_size: int = 500, limits: ReadLimits | None = None) -> LiveClient:
    """A read-only client for the kubeconfig context (see `load_kubeconfig`)."""
    return LiveClient(load_kubeconfig(kubeconfig, context), timeout=timeout, page_size=page_size, limits=limits)


# --- lists -----------------------------------------------------------------------------------------

class _ListMeta(msgspec.Struct):
    continue_: str | None = msgspec.field(default=None, name="continue")


class _ItemHead(msgspec.Struct):
    kind: Any = None
    apiVersion: Any = None


class _ListHead(msgspec.Struct):
    kind: Any = None
    apiVersion: Any = None
    metadata: _ListMeta | None = None
    items: list[_ItemHead] | None = None


_list_head_decoder = msgspec.json.Decoder(_ListHead)


def list_pages(client: LiveClient, path: str, *, kind: str, api_version: str) -> Iterator[bytes]:
    """The pages of a list of `kind` (`limit`/`continue`), as raw JSON bytes, within the client's limits: at most
    `list_pages` pages and `list_items` items, every item of `kind` (a response holding another kind is refused)."""
    what = _what(kind, api_version)
    limits = client.limits
    token: str | None = None
    items = 0
    for number in range(1, limits.list_pages + 2):
        if number > limits.list_pages:
            raise ClusterAccessError(
                f"{client.target}: GET {path} ({what}): the list did not end after {limits.list_pages:,} pages "
                f"({items:,} items): the server keeps sending continue tokens; drasim stops there")
        params: dict[str, Any] = {"limit": client.page_size}
        if token:
            params["continue"] = token
        page = client.get_bytes(path, what=what, params=params)
        assert page is not None  # only a tolerated 404 gives None
        client.check_depth(page, path)
        try:
            head = _list_head_decoder.decode(page)
        except (msgspec.DecodeError, msgspec.ValidationError):
            raise ClusterAccessError(f"{client.target}: GET {path} did not return a Kubernetes list") from None
        _check_kinds(client, path, head, kind, api_version)
        items += len(head.items or ())
        if items > limits.list_items:
            raise ClusterAccessError(
                f"{client.target}: GET {path} ({what}): the list has more than {limits.list_items:,} items; drasim "
                "reads at most that many objects of one kind")
        yield page
        previous, token = token, head.metadata.continue_ if head.metadata is not None else None
        if not token:
            return
        if token == previous:
            raise ClusterAccessError(f"{client.target}: GET {path} ({what}): the server sent the same continue "
                                     "token twice: the list would never end")


def _check_kinds(client: LiveClient, path: str, head: _ListHead, kind: str, api_version: str) -> None:
    """A list of `kind` holds objects of `kind` only (a Pod inside the resourceslices list is a broken or hostile
    server: refused, never read as something else)."""
    def refuse(what: str) -> ClusterAccessError:
        return ClusterAccessError(f"{client.target}: GET {path} returned {what} where a {kind}List of "
                                  f"{api_version} was expected: refusing the response")

    if head.kind is not None and head.kind != f"{kind}List":
        return_kind = server_text(str(head.kind), 100)
        raise refuse(f"a list of kind {return_kind!r}")
    if head.apiVersion is not None and head.apiVersion != api_version:
        raise refuse(f"a list of apiVersion {server_text(str(head.apiVersion), 100)!r}")
    for i, item in enumerate(head.items or ()):
        if item.kind is not None and item.kind != kind:
            raise refuse(f"an object of kind {server_text(str(item.kind), 100)!r} (items[{i}])")
        if item.apiVersion is not None and item.apiVersion != api_version:
            raise refuse(f"an object of apiVersion {server_text(str(item.apiVersion), 100)!r} (items[{i}])")


# --- discovery -------------------------------------------------------------------------------------

def server_version(client: LiveClient) -> str:
    """The server's gitVersion (`v1.36.1`)."""
    info = client.get_json("/version", what="the server version")
    version = info.get("gitVersion") if isinstance(info, dict) else None
    if not isinstance(version, str):
        raise ClusterAccessError(f"{client.target}: /version has no gitVersion: is {client.target.server} a "
                                 "Kubernetes API server?")
    return server_text(version, 100)


def group_versions(client: LiveClient, group: str) -> tuple[str, ...]:
    """The versions of an API group the server serves, in its order of preference; () when not served."""
    groups = client.get_json("/apis", what="API discovery")
    for g in (groups.get("groups") or []) if isinstance(groups, dict) else []:
        if isinstance(g, dict) and g.get("name") == group:
            return tuple(v["version"] for v in g.get("versions") or []
                         if isinstance(v, dict) and isinstance(v.get("version"), str))
    return ()


def resources(client: LiveClient, group: str, version: str) -> dict[str, tuple[str, bool]]:
    """kind -> (plural name, namespaced) for the listable resources of group/version."""
    data = client.get_json(f"/apis/{group}/{version}", what=f"discovery of {group}/{version}", missing_ok=True)
    out: dict[str, tuple[str, bool]] = {}
    resources = (data or {}).get("resources") if isinstance(data, dict) or data is None else None
    for res in resources if isinstance(resources, list) else []:
        if not isinstance(res, dict):
            continue
        name, verbs = res.get("name", ""), res.get("verbs") or ["list"]
        if not isinstance(name, str) or "/" in name or not isinstance(verbs, list) or "list" not in verbs:
            continue  # subresources (status) and resources that cannot be listed
        if isinstance(res.get("kind"), str):
            out.setdefault(res["kind"], (name, bool(res.get("namespaced"))))
    return out


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


# --- reading a cluster -----------------------------------------------------------------------------

@dataclass
class _Reader:
    client: LiveClient
    objects: list[KubeObject] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def read(self, kind: str, path: str, api_version: str) -> None:
        source = f"GET {path}"
        for page in list_pages(self.client, path, kind=kind, api_version=api_version):
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
            try:
                head = _pod_decoder.decode(raw)
            except msgspec.ValidationError:  # not shaped like a pod: decoding it says where
                keep.append({"apiVersion": api_version, "kind": "Pod", **msgspec.json.decode(raw)})
                continue
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
        for kind, (plural, _) in resources(client, GROUP, version).items():
            if kind in DRA_KINDS:
                chosen.setdefault(kind, (version, plural))
    return chosen


def read_cluster(kubeconfig: str | None = None, context: str | None = None, *, timeout: float = 10.0,
                 page_size: int = 500, limits: ReadLimits | None = None) -> ClusterSnapshot:
    """Read everything DRA-relevant from the cluster of `context` with GET requests only.

    Objects come back as v1 drasim structs whatever version the server serves (v1beta1 on 1.32 is converted);
    pods are kept only when they reference claims. Raises ClusterAccessError (exit code 2) when the cluster
    cannot be reached or read; an object drasim cannot decode is left out with a warning.
    """
    with connect(kubeconfig, context, timeout=timeout, page_size=page_size, limits=limits) as client:
        version = server_version(client)
        served = group_versions(client, GROUP)
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
