"""Builders for the CEL tests: devices (including NVIDIA-shaped GPUs) and one-call evaluation."""

from __future__ import annotations

from typing import Any

from drasim.api.quantity import Quantity
from drasim.api.resource import Device, DeviceAttribute, DeviceCapacity
from drasim.cel import (
    DEFAULT_ENV,
    CelCompileError,
    CelEnvironment,
    CelRuntimeError,
    compile_selector,
    device_input,
)

LISTS = CelEnvironment(list_type_attributes=True)
NVIDIA = "gpu.nvidia.com"
CLASS_GPU = "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'gpu'"
CLASS_MIG = "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'mig'"


def attr(v: Any = None, **kw: Any) -> DeviceAttribute:
    """A DeviceAttribute from a Python value (bool/int/str; lists of those), or explicit fields."""
    if kw:
        return DeviceAttribute(**kw)
    if isinstance(v, bool):
        return DeviceAttribute(bool_=v)
    if isinstance(v, int):
        return DeviceAttribute(int_=v)
    if isinstance(v, str):
        return DeviceAttribute(string=v)
    if isinstance(v, list) and v and isinstance(v[0], bool):
        return DeviceAttribute(bools=v)
    if isinstance(v, list) and v and isinstance(v[0], int):
        return DeviceAttribute(ints=v)
    if isinstance(v, list):
        return DeviceAttribute(strings=v)
    return DeviceAttribute()


def device(attributes: dict[str, Any] | None = None, capacity: dict[str, str] | None = None,
           allow_multiple_allocations: bool | None = None, name: str = "dev-0") -> Device:
    return Device(
        name=name,
        attributes={k: v if isinstance(v, DeviceAttribute) else attr(v)
                    for k, v in (attributes or {}).items()},
        capacity={k: DeviceCapacity(value=Quantity.parse(v)) for k, v in (capacity or {}).items()},
        allow_multiple_allocations=allow_multiple_allocations,
    )


def nvidia_gpu(index: int = 0, product: str = "NVIDIA H100 80GB HBM3", memory: str = "81559Mi",
               driver_version: str = "570.124.6", cc: str = "9.0.0", kind: str = "gpu",
               drop: tuple[str, ...] = ()) -> Device:
    """A GPU as the NVIDIA DRA driver publishes it."""
    attrs: dict[str, Any] = {
        "type": kind,
        "uuid": f"GPU-{index:08x}-0000-0000-0000-000000000000",
        "productName": product,
        "brand": "Nvidia",
        "architecture": "Hopper",
        "driverVersion": DeviceAttribute(version=driver_version),
        "cudaDriverVersion": DeviceAttribute(version="12.8.0"),
        "cudaComputeCapability": DeviceAttribute(version=cc),
        "index": index,
        "minor": index,
        "pcieBusID": f"0000:{index + 0x18:02x}:00.0",
    }
    for k in drop:
        attrs.pop(k)
    return device(attrs, {"memory": memory, "multiprocessors": "132"}, name=f"gpu-{index}")


def run(expression: str, dev: Device | None = None, env: CelEnvironment = DEFAULT_ENV,
        driver: str = "dra.example.com") -> bool | CelRuntimeError:
    """Compile and evaluate; compile errors propagate."""
    return compile_selector(expression, env).evaluate(device_input(driver, dev or device()))


def outcome(expression: str, dev: Device | None = None, env: CelEnvironment = DEFAULT_ENV,
            driver: str = "dra.example.com") -> Any:
    """True/False, ("runtime", message) or ("compile", message)."""
    try:
        r = run(expression, dev, env, driver)
    except CelCompileError as e:
        return ("compile", e.message)
    if isinstance(r, CelRuntimeError):
        return ("runtime", r.message)
    return r
