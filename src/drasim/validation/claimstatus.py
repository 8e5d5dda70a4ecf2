"""ResourceClaim status (reservedFor, allocation, device status), as the scheduler's first write of it."""

from __future__ import annotations

import ipaddress
import re

from drasim.api import resource as r
from drasim.api.limits import (
    ALLOCATED_DEVICE_STATUS_DATA_MAX_LENGTH,
    ALLOCATED_DEVICE_STATUS_MAX_CONDITIONS,
    ALLOCATION_RESULTS_MAX_SIZE,
    DEVICE_CONFIG_MAX_SIZE,
    NETWORK_DEVICE_DATA_HARDWARE_ADDRESS_MAX_LENGTH,
    NETWORK_DEVICE_DATA_INTERFACE_NAME_MAX_LENGTH,
    NETWORK_DEVICE_DATA_MAX_IPS,
    RESOURCE_CLAIM_RESERVED_FOR_MAX_SIZE,
)
from drasim.validation.enums import CONFIG_SOURCES
from drasim.validation.findings import go_quote
from drasim.validation.formats import blen
from drasim.validation.paths import child, index
from drasim.validation.resourceclaim import ClaimChecker, RequestNames

_SLOPPY_IPV4_RE = re.compile(r"[0-9]{1,3}(\.[0-9]{1,3}){3}")


class ClaimStatusChecker(ClaimChecker):
    """A claim's spec and status (validateResourceClaimStatusUpdate of a new status)."""

    def claim_status(self, status: r.ResourceClaimStatus, spec: r.ResourceClaimSpec, path: str) -> None:
        names = RequestNames(spec.devices.requests)
        self.set(
            status.reserved_for,
            RESOURCE_CLAIM_RESERVED_FOR_MAX_SIZE,
            self._consumer_ref,
            lambda c: c.uid,
            child(path, "reservedFor"),
        )
        allocated: set[tuple[str, str, str, str | None]] = set()
        if status.allocation is not None:
            for res in status.allocation.devices.results:
                allocated.add((res.driver, res.pool, res.device, res.share_id))
        self.set(
            status.devices,
            -1,
            lambda d, p: self._device_status(d, p, allocated),
            lambda d: (d.driver, d.pool, d.device, d.share_id),
            child(path, "devices"),
        )
        if status.reserved_for and status.allocation is None:
            self.forbidden(child(path, "reservedFor"), "may not be specified when `allocated` is not set")
        if status.allocation is not None:
            self._allocation(status.allocation, child(path, "allocation"), names)

    def _consumer_ref(self, ref: r.ResourceClaimConsumerReference, path: str) -> None:
        if not ref.resource:
            self.required(child(path, "resource"))
        if not ref.name:
            self.required(child(path, "name"))
        if not ref.uid:
            self.required(child(path, "uid"))

    def _device_status(
        self, d: r.AllocatedDeviceStatus, path: str, allocated: set[tuple[str, str, str, str | None]]
    ) -> None:
        self.driver_name(d.driver, child(path, "driver"))
        self.pool_name(d.pool, child(path, "pool"))
        self.dns_label(d.device, child(path, "device"))
        if d.share_id is not None:
            self.uid(d.share_id, child(path, "shareID"))
        if (d.driver, d.pool, d.device, d.share_id) not in allocated:
            ident = f"{d.driver}/{d.pool}/{d.device}" + (f"/{d.share_id}" if d.share_id else "")
            self.invalid(path, ident, "must be an allocated device in the claim")
        if len(d.conditions) > ALLOCATED_DEVICE_STATUS_MAX_CONDITIONS:
            self.too_many(
                child(path, "conditions"), len(d.conditions), ALLOCATED_DEVICE_STATUS_MAX_CONDITIONS
            )
        self.conditions(d.conditions, child(path, "conditions"))
        if d.data is not None:
            self.raw_json(d.data, child(path, "data"), ALLOCATED_DEVICE_STATUS_DATA_MAX_LENGTH)
        nd = d.network_data
        if nd is not None:
            npath = child(path, "networkData")
            if (
                nd.interface_name is not None
                and blen(nd.interface_name) > NETWORK_DEVICE_DATA_INTERFACE_NAME_MAX_LENGTH
            ):
                self.too_long(child(npath, "interfaceName"), NETWORK_DEVICE_DATA_INTERFACE_NAME_MAX_LENGTH)
            if (
                nd.hardware_address is not None
                and blen(nd.hardware_address) > NETWORK_DEVICE_DATA_HARDWARE_ADDRESS_MAX_LENGTH
            ):
                self.too_long(
                    child(npath, "hardwareAddress"), NETWORK_DEVICE_DATA_HARDWARE_ADDRESS_MAX_LENGTH
                )
            self.set(
                nd.ips,
                NETWORK_DEVICE_DATA_MAX_IPS,
                self._interface_address,
                lambda ip: ip,
                child(npath, "ips"),
            )

    def _interface_address(self, value: str, path: str) -> None:
        try:
            if "/" not in value:
                raise ValueError(value)
            addr, _, prefix = value.partition("/")
            if _SLOPPY_IPV4_RE.fullmatch(addr):
                # Go's sloppy parser reads IPv4 octets with leading zeros as decimal.
                addr = ".".join(str(int(octet)) for octet in addr.split("."))
            if not prefix.isdigit() or not prefix.isascii():
                raise ValueError(value)
            iface = ipaddress.ip_interface(f"{addr}/{int(prefix)}")
        except ValueError:
            self.invalid(
                path, value, "must be a valid address in CIDR form, (e.g. 10.9.8.7/24 or 2001:db8::1/64)"
            )
            return
        ip = iface.ip
        if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
            canonical = f"{ip.ipv4_mapped}/{iface.network.prefixlen}"
        else:
            canonical = f"{ip}/{iface.network.prefixlen}"
        if value != canonical:
            self.invalid(path, value, f"must be in canonical form ({go_quote(canonical)})")

    def _allocation(self, alloc: r.AllocationResult, path: str, names: RequestNames) -> None:
        dpath = child(path, "devices")
        self.slice(
            alloc.devices.results,
            ALLOCATION_RESULTS_MAX_SIZE,
            lambda res, p: self._result(res, p, names),
            child(dpath, "results"),
        )
        self.slice(
            alloc.devices.config,
            2 * DEVICE_CONFIG_MAX_SIZE,
            lambda c, p: self._alloc_config(c, p, names),
            child(dpath, "config"),
        )
        if alloc.node_selector is not None:
            self.node_selector(alloc.node_selector, child(path, "nodeSelector"))

    def _result(self, res: r.DeviceRequestAllocationResult, path: str, names: RequestNames) -> None:
        if res.admin_access is not None:
            self.gate("admin_access", child(path, "adminAccess"))
        tolerations = res.tolerations
        if tolerations and not self.gate("device_taints", child(path, "tolerations")):
            tolerations = []
        bc, bfc = res.binding_conditions, res.binding_failure_conditions
        if (bc or bfc) and not self.gate("device_binding_and_status", child(path, "bindingConditions")):
            bc, bfc = [], []
        share_id = res.share_id
        if share_id is not None and not self.gate("consumable_capacity", child(path, "shareID")):
            share_id = None
        if res.consumed_capacity is not None:
            self.gate("consumable_capacity", child(path, "consumedCapacity"))
        skip_ops = res.skip_node_operations
        if skip_ops is not None and not self.gate(
            "optional_node_operations", child(path, "skipNodeOperations")
        ):
            skip_ops = None
        self.request_ref(res.request, child(path, "request"), names)
        self.driver_name(res.driver, child(path, "driver"))
        self.pool_name(res.pool, child(path, "pool"))
        self.dns_label(res.device, child(path, "device"))
        self.binding_parameters(bc, bfc, path)
        for i, tol in enumerate(tolerations):
            self.toleration(tol, index(child(path, "tolerations"), i))
        if share_id is not None:
            self.uid(share_id, child(path, "shareID"))
        if skip_ops is not None:
            self.skip_node_operations(skip_ops, child(path, "skipNodeOperations"))

    def _alloc_config(self, c: r.DeviceAllocationConfiguration, path: str, names: RequestNames) -> None:
        if not c.source:
            self.required(child(path, "source"))
        elif c.source not in CONFIG_SOURCES:
            self.not_supported(child(path, "source"), c.source, CONFIG_SOURCES)
        self.claim_config(c, path, names)
