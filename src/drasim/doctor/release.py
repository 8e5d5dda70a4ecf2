"""The server's release as the doctor sees it: its version, the resource.k8s.io versions it serves, its DRA
feature gates (the release profile's table, api.profile)."""

from __future__ import annotations

from drasim.api.convert import CONVERTIBLE_VERSIONS
from drasim.api.profile import GATES, RELEASES
from drasim.cluster.snapshot import ClusterSnapshot
from drasim.doctor.model import FeatureGate, Finding

# Gate maturity per release and what each gate is for: the release profile's table (api.profile).
_RELEASES = RELEASES
FEATURE_GATES: dict[str, tuple[tuple[str, ...], str]] = {name: (g.stages, g.about) for name, g in GATES.items()}


_MATURITY_WORDS = {"A": "alpha", "B-": "beta", "B+": "beta", "GA": "GA", "GA*": "GA"}


def minor_key(minor: str) -> tuple[int, int]:
    major, _, rest = minor.partition(".")
    return int(major), int(rest)


def features_for(minor: str | None, overrides: dict[str, bool] | None = None) -> list[FeatureGate]:
    """The DRA gates a release has (its defaults, or `overrides`); releases after 1.37 get 1.37's table,
    before 1.30 none."""
    if minor is None or minor_key(minor) < (1, 30):
        return []
    column = _RELEASES.index(minor) if minor in _RELEASES else len(_RELEASES) - 1
    out = []
    for name, (row, about) in FEATURE_GATES.items():
        state = row[column]
        if state == "-":
            continue
        enabled = (overrides or {}).get(name, state not in ("A", "B-"))
        out.append(FeatureGate(name=name, maturity=_MATURITY_WORDS[state], enabled=enabled,
                               locked=state == "GA*", about=about))
    return out


def check_version(version: str | None, minor: str | None) -> list[Finding]:
    if version is None:
        return [Finding("kubernetes-version", "warn",
                        "server version unknown (no cluster-info.yaml): version checks skipped")]
    if minor is None:
        return [Finding("kubernetes-version", "warn", f"cannot read the server version {version!r}")]
    key = minor_key(minor)
    if key < (1, 34):
        state = {(1, 32): "beta and off by default", (1, 33): "beta and off by default",
                 (1, 31): "alpha (device/CEL model, v1alpha3)", (1, 30): "alpha (classic DRA, v1alpha2)"}
        return [Finding("kubernetes-version", "error",
                        f"Kubernetes {version}: DRA is GA (resource.k8s.io/v1) from 1.34; here it is "
                        f"{state.get(key, 'not available')}. drasim simulates 1.34–1.37: upgrade the cluster, "
                        "or use drasim's results as a 1.34 preview")]
    if key > (1, 37):
        return [Finding("kubernetes-version", "warn",
                        f"Kubernetes {version} is newer than the releases drasim models (1.34–1.37): "
                        "simulating with 1.37 rules")]
    return [Finding("kubernetes-version", "ok", f"Kubernetes {version}: DRA resource.k8s.io/v1 is GA")]


def check_api(snapshot: ClusterSnapshot, minor: str | None) -> list[Finding]:
    served = snapshot.resource_versions
    if served is None:
        return [Finding("dra-api", "warn", "served resource.k8s.io versions unknown (no cluster-info.yaml)")]
    if not served:
        if minor is not None and minor_key(minor) < (1, 34):
            hint = {"1.32": "v1beta1", "1.33": "v1beta2"}.get(minor)
            fix = (f"enable the DynamicResourceAllocation feature gate and --runtime-config=resource.k8s.io/"
                   f"{hint}=true on the API server, or upgrade to 1.34+" if hint else "upgrade to 1.34+")
        else:
            fix = "check the API server's --runtime-config (resource.k8s.io/v1 must not be disabled)"
        return [Finding("dra-api", "error", f"resource.k8s.io is not served: DRA is not available on this "
                                            f"cluster ({fix})")]
    listed = ", ".join(served)
    out = []
    if not set(served) & set(CONVERTIBLE_VERSIONS):
        return [Finding("dra-api", "error", f"resource.k8s.io is served only as {listed}, which drasim does not read "
                                            f"(it reads {', '.join(CONVERTIBLE_VERSIONS)}): upgrade to 1.34+")]
    if "v1" in served:
        out.append(Finding("dra-api", "ok", f"resource.k8s.io served: {listed}"))
    else:
        out.append(Finding("dra-api", "warn", f"resource.k8s.io served without v1 ({listed}): objects are "
                                              "read in an older version and converted to v1"))
    older = sorted({v for k, v in snapshot.read_versions.items() if v.startswith("resource.k8s.io/")
                    and v != "resource.k8s.io/v1"})
    if older:
        kinds = sorted(k for k, v in snapshot.read_versions.items() if v in older)
        out.append(Finding("dra-api-read", "ok", f"read {', '.join(kinds)} as {', '.join(older)} and converted "
                                                 "them to v1"))
    return out

