"""`drasim taint dry-run`: what a DeviceTaintRule would select and which pods NoExecute would evict."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from datetime import timedelta
from typing import Any

import click

from drasim.api.core import Pod, PodResourceClaim, PodResourceClaimStatus, PodSpec, PodStatus
from drasim.api.meta import ObjectMeta
from drasim.api.resource import DeviceTaintRule
from drasim.cli.exits import finish
from drasim.cli.kube import KubeArgs, kube_options, settled_inputs
from drasim.cli.options import ReleaseProfile, demo_profile, load_restrictor_option, profile_options
from drasim.cli.output import emit, emit_names, object_name, output_option
from drasim.cluster.state import ClusterState
from drasim.controllers.devicetaint import PodImpact, rule_impact, rule_status, selected_devices
from drasim.controllers.resourceclaim import POD_CLAIM_NAME_ANNOTATION
from drasim.errors import InputError
from drasim.sources.files import load_paths

__all__ = ["taint"]

# Rows of the device table shown in table output (-o json lists all).
MAX_DEVICE_ROWS = 50
UNKNOWN_NODE = "(pod not in input)"


@click.group("taint", context_settings={"help_option_names": ["-h", "--help"]})
def taint() -> None:
    """Preview the effect of DeviceTaintRules."""


@taint.command("dry-run", short_help="What a DeviceTaintRule would select and evict, before applying it.")
@click.argument("rule_path", metavar="RULE.yaml")
@click.option("-f", "--filename", "paths", multiple=True, metavar="PATH", type=click.Path(),
              help="Cluster objects: file, directory (read recursively) or - for stdin. Repeatable. With "
                   "--kubeconfig/--context: applied on top of the live cluster. Default: the bundled demo.")
@kube_options()
@load_restrictor_option
@profile_options()
@click.option("--effect", type=click.Choice(["None", "NoExecute"]), default="None", show_default=True,
              help="NoExecute also prints the status NoExecute would get and the eviction timeline.")
@output_option("table", "json", "yaml", "name",
               help="table; json/yaml: the report; name: the pods NoExecute would evict, as pod/NAME.")
def dry_run(rule_path: str, paths: tuple[str, ...], kube: KubeArgs, profile: ReleaseProfile, effect: str,
            output: str) -> None:
    """Print the message the eviction controller writes for RULE.yaml with effect None (its one-time dry
    run), then the devices the rule selects and the pods NoExecute would evict, by namespace, with the
    delay their tolerations give.

    The inputs are simulated first, as `drasim simulate` runs them (inputs that are already an end
    state, such as `simulate -o yaml` output or a dump, are read as they are). Pods are those whose
    allocated claims hold a selected device and list the pod in reservedFor; a reservedFor entry
    whose pod is not in the input counts as a scheduled pod. A rule
    without deviceSelector selects nothing ({} selects everything).

    Exit codes: 0 report printed; 2 some input refused (a document that does not decode or an object the
    API server would reject, reported after the rest), RULE.yaml not holding exactly one DeviceTaintRule,
    or a usage error; 1 any other error.
    """
    if not paths and not kube.live:
        profile = demo_profile(profile)  # the profile command_inputs gives the bundled demo it reads then
    rule = _read_rule(rule_path)
    # The cluster as `drasim simulate` leaves the inputs: plain manifests get their pods placed first.
    state, inputs = settled_inputs(list(paths), profile, kube)
    warnings = inputs.warning_lines() + inputs.rejection_lines()
    notes = _complete_pods(state)
    if not profile.gate(profile.taint_rule_gate()):
        notes.insert(0, f"{profile.describe()} does not serve DeviceTaintRules: the {profile.taint_rule_gate()} "
                        "feature gate is off (see --feature-gates)")
    if rule.spec.device_selector is None:
        notes.insert(0, "the rule has no deviceSelector: it taints nothing (an empty selector {} selects "
                        "every device)")

    as_none = copy.deepcopy(rule)
    as_none.spec.taint.effect = "None"
    condition = rule_status(state, as_none)
    published, allocated = selected_devices(state, as_none)
    impact = rule_impact(state, as_none)
    stubs = {(p.metadata.namespace or "default", p.metadata.name) for p in state.pods.values()
             if p.spec.node_name == UNKNOWN_NODE}
    no_execute = None
    if effect == "NoExecute":
        as_no_execute = copy.deepcopy(rule)
        as_no_execute.spec.taint.effect = "NoExecute"
        no_execute = rule_status(state, as_no_execute).message or ""

    if output == "name":
        emit_names(dict.fromkeys(object_name("Pod", p.name) for p in impact if p.delay is not None))
    elif output != "table":
        report = _json_report(rule, condition.message or "", condition.reason or "", published, allocated,
                              impact, stubs, notes, warnings, no_execute)
        emit(report, output)
    else:
        for warning in warnings:
            click.echo(f"warning: {warning}", err=True)
        _print_table(rule, condition.message or "", published, allocated, impact, stubs, notes, no_execute)
    finish(inputs)


def _read_rule(path: str) -> DeviceTaintRule:
    rules = [o for o in load_paths([path]).objects if isinstance(o, DeviceTaintRule)]
    if len(rules) != 1:
        raise InputError(f"expected exactly one DeviceTaintRule, found {len(rules)}", source=path)
    return rules[0]


def _complete_pods(state: ClusterState) -> list[str]:
    """Make hand-written inputs look like a cluster: pods without UID take the one in reservedFor, pods
    without `resourceClaimStatuses` find their generated claims by annotation, and reservedFor entries
    whose pod is missing get a stub pod. Returns notes for the user."""
    notes: list[str] = []
    for pod in state.pods.values():
        _record_generated_claims(state, pod)
    stubs: dict[tuple[str, str], Pod] = {}
    for (ns, claim_name), claim in sorted(state.claims.items()):
        if claim.status is None or claim.status.allocation is None:
            continue
        for consumer in claim.status.reserved_for:
            if consumer.resource != "pods" or consumer.api_group:
                continue
            key = (ns, consumer.name)
            found = state.pods.get(key)
            if found is None:
                stub = stubs.setdefault(key, Pod(metadata=ObjectMeta(name=consumer.name, namespace=ns,
                                                                     uid=consumer.uid),
                                                 spec=PodSpec(node_name=UNKNOWN_NODE)))
                stub.spec.resource_claims.append(PodResourceClaim(name=claim_name, resource_claim_name=claim_name))
                continue
            if not found.metadata.uid:
                found.metadata.uid = consumer.uid
            if not found.spec.node_name:
                notes.append(f"pod {ns}/{consumer.name} is in reservedFor of claim {claim_name} but has no "
                             "spec.nodeName: the eviction controller ignores pods that are not scheduled")
    for key, stub in stubs.items():
        state.pods[key] = stub
    if stubs:
        notes.append(f"{len(stubs)} pod(s) in reservedFor are not in the input and are assumed to be running")
    return notes


def _record_generated_claims(state: ClusterState, pod: Pod) -> None:
    ns = pod.metadata.namespace or "default"
    for entry in pod.spec.resource_claims:
        if not entry.resource_claim_template_name or state.pod_claim_name(pod, entry.name):
            continue
        for (cns, cname), claim in sorted(state.claims.items()):
            owner = next((o for o in claim.metadata.owner_references if o.controller and o.kind == "Pod"), None)
            if cns == ns and owner is not None and owner.name == pod.metadata.name \
                    and claim.metadata.annotations.get(POD_CLAIM_NAME_ANNOTATION) == entry.name:
                if pod.status is None:
                    pod.status = PodStatus()
                pod.status.resource_claim_statuses.append(
                    PodResourceClaimStatus(name=entry.name, resource_claim_name=cname))
                if not pod.metadata.uid:
                    pod.metadata.uid = owner.uid
                break


def _duration(seconds: int) -> str:
    """300 -> 5m, 5400 -> 1h30m, 45 -> 45s."""
    if seconds <= 0:
        return "0s"
    out = []
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60), ("s", 1)):
        count, seconds = divmod(seconds, size)
        if count:
            out.append(f"{count}{unit}")
    return "".join(out)


def _when(impact: PodImpact) -> str:
    if impact.delay is None:
        return "never (tolerated forever)"
    if impact.delay == 0:
        return "immediately"
    return f"after {_duration(impact.delay)} (tolerationSeconds: {impact.delay})"


def _json_report(rule: DeviceTaintRule, message: str, reason: str, published: Sequence[Any],
                 allocated: Sequence[Any], impact: list[PodImpact], stubs: set[tuple[str, str]],
                 notes: list[str], warnings: list[str], no_execute: str | None) -> dict[str, Any]:
    evicted = [p for p in impact if p.delay is not None]
    report: dict[str, Any] = {
        "rule": rule.metadata.name,
        "effect": rule.spec.taint.effect,
        "message": message,
        "reason": reason,
        "publishedDevices": [{"driver": s.spec.driver, "pool": s.spec.pool.name, "device": d,
                              "slice": s.metadata.name} for s, d in published],
        "allocatedDevices": [{"driver": d.driver, "pool": d.pool, "device": d.device,
                              "claim": f"{c.metadata.namespace or 'default'}/{c.metadata.name}"}
                             for c, d in allocated],
        "pods": [{"namespace": p.namespace, "name": p.name,
                  "node": None if (p.namespace, p.name) in stubs else p.node,
                  "inInput": (p.namespace, p.name) not in stubs, "claims": list(p.claims),
                  "devices": [str(d) for d in p.devices], "evicted": p.delay is not None,
                  "delaySeconds": p.delay} for p in impact],
        "namespaces": len({p.namespace for p in evicted}),
        "notes": notes,
        "warnings": warnings,
    }
    if no_execute is not None:
        report["noExecute"] = {"message": no_execute, "timeAdded": _time_added(rule),
                               "timeline": [{"offsetSeconds": p.delay, "namespace": p.namespace, "name": p.name}
                                            for p in _timeline(impact)]}
    return report


def _time_added(rule: DeviceTaintRule) -> str | None:
    added = rule.spec.taint.time_added
    return added.isoformat().replace("+00:00", "Z") if added else None


def _timeline(impact: list[PodImpact]) -> list[PodImpact]:
    return sorted((p for p in impact if p.delay is not None), key=lambda p: (p.delay, p.namespace, p.name))


def _rows(rows: Sequence[tuple[str, ...]], indent: str = "  ") -> None:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for n, row in enumerate(rows):
        line = indent + "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
        click.echo(click.style(line, bold=True) if n == 0 else line)


def _print_table(rule: DeviceTaintRule, message: str, published: Sequence[Any], allocated: Sequence[Any],
                 impact: list[PodImpact], stubs: set[tuple[str, str]], notes: list[str],
                 no_execute: str | None) -> None:
    click.echo(message)
    click.echo("")
    taint_text = str(rule.spec.taint)
    click.echo(click.style(f"DeviceTaintRule {rule.metadata.name}", bold=True)
               + f" (taint {taint_text}, simulated with effect None)")

    owners: dict[tuple[str, str, str], list[str]] = {}
    for claim, dev in allocated:
        owners.setdefault(tuple(dev), []).append(f"{claim.metadata.namespace or 'default'}/{claim.metadata.name}")
    click.echo("")
    click.echo(f"Selected devices: {len(published)} published, {len(allocated)} allocated")
    rows: list[tuple[str, ...]] = [("DRIVER", "POOL", "DEVICE", "ALLOCATED TO")]
    listed: set[tuple[str, str, str]] = set()
    for slc, name in published:
        key = (slc.spec.driver, slc.spec.pool.name, name)
        listed.add(key)
        rows.append((*key, ", ".join(owners.get(key, [])) or "-"))
    for key, claims in owners.items():
        if key not in listed:  # allocated, no longer published
            rows.append((*key, ", ".join(claims) + " (not in a current slice)"))
    if len(rows) > 1:
        _rows(rows[: MAX_DEVICE_ROWS + 1])
        if len(rows) - 1 > MAX_DEVICE_ROWS:
            click.echo(f"  ... and {len(rows) - 1 - MAX_DEVICE_ROWS} more (-o json lists all)")

    evicted = [p for p in impact if p.delay is not None]
    spared = [p for p in impact if p.delay is None]
    namespaces = sorted({p.namespace for p in evicted})
    click.echo("")
    click.echo(f"Pods NoExecute would evict: {len(evicted)} in {len(namespaces)} namespace(s)")
    for ns in namespaces:
        click.echo(click.style(f"  {ns}", bold=True))
        rows = [("POD", "NODE", "CLAIMS", "EVICTED")]
        for p in evicted:
            if p.namespace == ns:
                node = UNKNOWN_NODE if (p.namespace, p.name) in stubs else p.node
                rows.append((p.name, node, ", ".join(p.claims), _when(p)))
        _rows(rows, indent="    ")
    if spared:
        click.echo("")
        click.echo(f"Pods that tolerate the taint forever (not evicted): {len(spared)}")
        _rows([("NAMESPACE", "POD", "CLAIMS"), *((p.namespace, p.name, ", ".join(p.claims)) for p in spared)])

    if no_execute is not None:
        click.echo("")
        click.echo(click.style("With effect NoExecute: ", fg="yellow", bold=True) + (no_execute or "(no message)"))
        added = _time_added(rule)
        origin = f"the taint's timeAdded {added}" if added else "the moment the rule is created"
        order = _timeline(impact)
        click.echo(f"Eviction timeline (from {origin}):")
        if not order:
            click.echo("  nothing to evict")
        else:
            _rows([("AT", "POD"), *((f"+{_duration(p.delay or 0)}", f"{p.namespace}/{p.name}") for p in order)])
        if added and order:
            assert rule.spec.taint.time_added is not None
            last = rule.spec.taint.time_added + timedelta(seconds=order[-1].delay or 0)
            click.echo(f"  last eviction at {last.isoformat().replace('+00:00', 'Z')}")

    if notes:
        click.echo("")
        for note in notes:
            click.echo(click.style("note: ", fg="cyan") + note)
