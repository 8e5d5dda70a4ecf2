"""Length and cost limits, the compile cache and the SelectorCache."""

from __future__ import annotations

import pytest
from cel_helpers import CLASS_GPU, NVIDIA, device, nvidia_gpu, run
from test_cel_vectors import NESTED_ALL

from drasim.cel import (
    DEFAULT_ENV,
    CelCompileError,
    CelEnvironment,
    CelRuntimeError,
    SelectorCache,
    compile_selector,
    device_input,
)
from drasim.cel.cost import RUNTIME_COST_LIMIT, CostLimitExceeded
from drasim.cel.device import Activation

NEW = CelEnvironment(stored=False)


def test_runtime_cost_limit_stops_nested_loops_quickly() -> None:
    """Ten nested loops of ten would cost about 10^10: the evaluation is abandoned as soon as the metered
    cost passes the limit (one loop step past it at most), whatever the loops had left to do."""
    assert run(NESTED_ALL) == CelRuntimeError("operation cancelled: actual cost limit exceeded")
    prog = compile_selector(NESTED_ALL, DEFAULT_ENV)
    act = Activation(device_input("d", device()))
    with pytest.raises(CostLimitExceeded):
        prog._fn(act)
    assert RUNTIME_COST_LIMIT < act.cost <= RUNTIME_COST_LIMIT + 100  # a step of these loops costs < 100


def test_cost_limit_error_is_not_absorbed_by_or() -> None:
    assert run(f"true || {NESTED_ALL}") is True
    assert run(f"{NESTED_ALL} || true") == CelRuntimeError("operation cancelled: actual cost limit exceeded")


def test_cost_resets_between_evaluations() -> None:
    prog = compile_selector("lists.range(400).all(x, lists.range(400).exists(y, y == x))")
    di = device_input("d", device())
    for _ in range(3):
        assert prog.evaluate(di) is True


def test_cheap_loops_are_not_charged_much() -> None:
    assert run("lists.range(1000).map(x, x * 2).filter(x, x % 3 == 0).size() == 334") is True


def test_estimated_cost_limit_for_new_expressions() -> None:
    with pytest.raises(CelCompileError) as err:
        compile_selector(NESTED_ALL, NEW)
    assert err.value.message == "too complex, exceeds cost limit"
    # The allocator's (stored) environment never rejects on the estimate.
    compile_selector(NESTED_ALL, DEFAULT_ENV)


def test_estimate_of_ordinary_selectors_is_small() -> None:
    for expr in (CLASS_GPU, "device.attributes['gpu.nvidia.com'].productName.matches('H1.0')",
                 "device.attributes.exists_one(x, x == 'dra.example.com')",
                 "device.attributes['dra.example.com'].names.all(x, x != '')",
                 "device.attributes['dra.example.com'].s.split(',').exists(x, x == 'a')",
                 "device.attributes['dra.example.com'].l.map(x, x * 2).filter(y, y > 2).size() > 0",
                 "device.attributes.all(d, device.attributes[d].all(k, k.size() > 0))"):
        prog = compile_selector(expr, CelEnvironment(stored=False, list_type_attributes=True))
        assert prog.max_cost is not None and prog.max_cost < 10_000


def test_length_limit_for_new_expressions() -> None:
    base = 'device.driver == ""'
    ok = base.replace('""', '"' + "x" * (10240 - len(base)) + '"')
    too_long = base.replace('""', '"' + "x" * (10240 - len(base) + 1) + '"')
    compile_selector(ok, NEW)
    with pytest.raises(CelCompileError) as err:
        compile_selector(too_long, NEW)
    assert err.value.message == "Too long: may not be more than 10240 bytes"
    # Stored expressions are not re-validated.
    assert run(too_long) is False


def test_compile_cache() -> None:
    a = compile_selector(CLASS_GPU)
    assert compile_selector(CLASS_GPU) is a
    assert compile_selector(CLASS_GPU, CelEnvironment()) is a
    assert compile_selector(CLASS_GPU, CelEnvironment(list_type_attributes=True)) is not a
    assert a.expression == CLASS_GPU


def test_compile_errors_are_raised_every_time() -> None:
    for _ in range(2):
        with pytest.raises(CelCompileError):
            compile_selector("nope")


def test_selector_cache_memoises_per_program_and_device() -> None:
    calls = 0

    def factory() -> object:
        nonlocal calls
        calls += 1
        return device_input(NVIDIA, nvidia_gpu())

    cache = SelectorCache()
    gpu = compile_selector(CLASS_GPU)
    mig = compile_selector("device.attributes['gpu.nvidia.com'].type == 'mig'")
    assert cache.get_or_eval(gpu, "pool/gpu-0", factory) is True  # type: ignore[arg-type]
    assert cache.get_or_eval(gpu, "pool/gpu-0", factory) is True  # type: ignore[arg-type]
    assert cache.get_or_eval(mig, "pool/gpu-0", factory) is False  # type: ignore[arg-type]
    assert calls == 1
    assert len(cache) == 2
    bad = compile_selector("device.attributes['gpu.nvidia.com'].nope")
    assert cache.get_or_eval(bad, "pool/gpu-0", factory) == CelRuntimeError("no such key: nope")  # type: ignore[arg-type]
    cache.clear()
    assert len(cache) == 0
