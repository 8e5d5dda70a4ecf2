"""Benchmark of drasim.cel: selector evaluations per second on NVIDIA-shaped devices."""

from __future__ import annotations

import gc
import time

from drasim.api.quantity import Quantity
from drasim.api.resource import Device, DeviceAttribute, DeviceCapacity
from drasim.cel import SelectorCache, compile_selector, device_input

EXPRESSION = ('device.driver == "gpu.nvidia.com" && '
              'device.attributes["gpu.nvidia.com"].productName.contains("H100")')
DEVICES = 100_000
TARGET_FRESH = 200_000
TARGET_MEMO = 2_000_000
PRODUCTS = ("NVIDIA H100 80GB HBM3", "NVIDIA H200", "NVIDIA A100-SXM4-80GB", "NVIDIA L40S")


def nvidia_device(i: int) -> Device:
    a = DeviceAttribute
    return Device(
        name=f"gpu-{i}",
        attributes={
            "type": a(string="gpu"),
            "uuid": a(string=f"GPU-{i:08x}-1c2d-4e5f-8a9b-0c1d2e3f4a5b"),
            "productName": a(string=PRODUCTS[i % len(PRODUCTS)]),
            "brand": a(string="Nvidia"),
            "architecture": a(string="Hopper"),
            "driverVersion": a(version="570.124.6"),
            "cudaDriverVersion": a(version="12.8.0"),
            "cudaComputeCapability": a(version="9.0.0"),
            "index": a(int_=i % 8),
            "minor": a(int_=i % 8),
            "pcieBusID": a(string=f"0000:{i % 256:02x}:00.0"),
        },
        capacity={"memory": DeviceCapacity(value=Quantity.parse("81559Mi")),
                  "multiprocessors": DeviceCapacity(value=Quantity.parse("132"))},
    )


def _rate(n: int, seconds: float) -> float:
    return n / seconds if seconds > 0 else float("inf")


def main() -> None:
    devices = [nvidia_device(i) for i in range(DEVICES)]
    program = compile_selector(EXPRESSION)

    # 1. Fresh: build each device's input and evaluate once (what a cold allocator pass does).
    gc.collect()
    t0 = time.perf_counter()
    matched = 0
    for d in devices:
        if program.evaluate(device_input("gpu.nvidia.com", d)) is True:
            matched += 1
    fresh = _rate(DEVICES, time.perf_counter() - t0)

    # 2. Memoised: the same (program, device) pairs again through a SelectorCache.
    cache = SelectorCache()
    keys = [f"pool-{i // 8}/{d.name}" for i, d in enumerate(devices)]
    for key, d in zip(keys, devices, strict=True):
        cache.get_or_eval(program, key, lambda d=d: device_input("gpu.nvidia.com", d))  # type: ignore[misc]
    t0 = time.perf_counter()
    rounds = 5
    for _ in range(rounds):
        for key in keys:
            cache.get_or_eval(program, key, _never)
    memo = _rate(DEVICES * rounds, time.perf_counter() - t0)

    print(f"expression: {EXPRESSION}")
    print(f"devices: {DEVICES:,}  matched: {matched:,}")
    print(f"fresh (device input + evaluate): {fresh:>12,.0f} evaluations/s  "
          f"({fresh / TARGET_FRESH:.2f}x target {TARGET_FRESH:,}/s)")
    print(f"memoised (SelectorCache hit):    {memo:>12,.0f} evaluations/s  "
          f"({memo / TARGET_MEMO:.2f}x target {TARGET_MEMO:,}/s)")


def _never() -> object:
    raise AssertionError("memoised run must not build device inputs")


if __name__ == "__main__":
    main()
