"""PreBind of DynamicResources: waiting for devices' binding conditions (dra-semantics §5.6)."""

from __future__ import annotations

from datetime import datetime

from drasim.api.resource import AllocationResult, ResourceClaim
from drasim.cluster.clock import later, seconds

# --- PreBind: binding conditions (§5.6) -----------------------------------------------------------------

BINDING_POLL_SECONDS = 5  # PreBind re-checks the claims' device conditions this often
BINDING_READY = "ready"
BINDING_WAITING = "waiting"
BINDING_FAILED = "failed"


def needs_binding_conditions(allocation: AllocationResult | None) -> bool:
    """Whether PreBind must wait for devices' binding conditions before binding the pod."""
    return allocation is not None and any(r.binding_conditions for r in allocation.devices.results)


def binding_outcome(claims: list[ResourceClaim], now: datetime, timeout: int) -> tuple[str, str, datetime | None]:
    """PreBind's check of the claims: ready when every device with binding conditions reports them all True;
    failed (with upstream's error) when one of its failure conditions is True or when `timeout` seconds
    passed since the claim's allocationTimestamp; else waiting (what for, and until when)."""
    waiting: list[str] = []
    deadline: datetime | None = None
    for claim in claims:
        status = claim.status
        if status is None or status.allocation is None:
            continue
        for result in status.allocation.devices.results:
            if not result.binding_conditions:
                continue
            device = next((d for d in status.devices
                           if (d.driver, d.pool, d.device) == (result.driver, result.pool, result.device)), None)
            conditions = {c.type: c for c in device.conditions} if device is not None else {}
            for name in result.binding_failure_conditions:
                cond = conditions.get(name)
                if cond is not None and cond.status == "True":
                    return BINDING_FAILED, (f"claim {claim.metadata.name} binding failed: reason={cond.reason or ''}, "
                                            f'message="{cond.message or ""}"'), None
            missing = [c for c in result.binding_conditions
                       if conditions.get(c) is None or conditions[c].status != "True"]
            if not missing:
                continue
            stamp = status.allocation.allocation_timestamp
            if stamp is not None:
                until = later(stamp, seconds(timeout))
                if now >= until:
                    return BINDING_FAILED, f"claim {claim.metadata.name} binding timeout", None
                deadline = until if deadline is None or until < deadline else deadline
            waiting.append(f"{', '.join(missing)} of device {result.driver}/{result.pool}/{result.device} "
                           f"(claim {claim.metadata.namespace or 'default'}/{claim.metadata.name})")
    if waiting:
        return BINDING_WAITING, "; ".join(waiting), deadline
    return BINDING_READY, "", None
