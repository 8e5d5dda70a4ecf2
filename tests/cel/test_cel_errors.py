"""Error texts exactly as upstream prints them (the part after `CEL compile/runtime error: `), and
CEL's error propagation: `&&`/`||` absorb errors commutatively, `?:` evaluates one branch."""

from __future__ import annotations

import pytest
from cel_helpers import CLASS_GPU, NVIDIA, device, nvidia_gpu, outcome, run

from drasim.cel import CelCompileError, CelEnvironment, CelRuntimeError, compile_selector, device_input

SYNTAX = ("{'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', "
          "NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}")

# Complete compile error messages recorded in tests/conformance (v1.36.2).
COMPILE_VECTORS = [
    (
        "device.attributes['gpu.nvidia.com'].productName.contains('H100') &&",
        "compilation failed: ERROR: <input>:1:68: Syntax error: mismatched input '<EOF>' expecting "
        + SYNTAX + "\n"
        " | device.attributes['gpu.nvidia.com'].productName.contains('H100') &&\n"
        " | ...................................................................^",
    ),
    (
        "device.attributes['gpu.nvidia.com'].productName == \"H100",
        "compilation failed: ERROR: <input>:1:52: Syntax error: token recognition error at: '\"H100'\n"
        " | device.attributes['gpu.nvidia.com'].productName == \"H100\n"
        " | ...................................................^\n"
        "ERROR: <input>:1:57: Syntax error: mismatched input '<EOF>' expecting " + SYNTAX + "\n"
        " | device.attributes['gpu.nvidia.com'].productName == \"H100\n"
        " | ........................................................^",
    ),
    (
        "device.attributes['gpu.nvidia.com'].productName.contains('H100'",
        "compilation failed: ERROR: <input>:1:64: Syntax error: missing ')' at '<EOF>'\n"
        " | device.attributes['gpu.nvidia.com'].productName.contains('H100'\n"
        " | ...............................................................^",
    ),
    (
        "noSuchVar",
        "compilation failed: ERROR: <input>:1:1: undeclared reference to 'noSuchVar' (in container '')\n"
        " | noSuchVar\n"
        " | ^",
    ),
    ("device.capacity['gpu.nvidia.com'].memory",
     "must evaluate to bool or the unknown type, not kubernetes.Quantity"),
]


@pytest.mark.parametrize(("expr", "message"), COMPILE_VECTORS)
def test_conformance_compile_errors(expr: str, message: str) -> None:
    with pytest.raises(CelCompileError) as err:
        compile_selector(expr)
    assert err.value.message == message


@pytest.mark.parametrize(("expr", "message"), [
    ("device.driver.foo", "type 'string' does not support field selection"),
    ("device.foo.bar == 1", "undefined field 'foo'"),
    ("'a'.contains(1)", "found no matching overload for 'contains' applied to 'string.(int)'"),
    ("1 + 'a'", "found no matching overload for '_+_' applied to '(int, string)'"),
    ("device.attributes['d'].x.exists(v, v)",
     "expression of type 'google.protobuf.Any' cannot be the range of a comprehension "
     "(must be list, map, or dynamic)"),
    ("[1, 'a'].size() == 2", "expected type 'int' but found 'string'"),
    ("{'a': 1, 'b': 'x'}.size() == 2", "expected type 'int' but found 'string'"),
    ("'a'.matches('(')", "invalid matches argument"),
    ("'a'.matches('(?=a)')", "invalid matches argument"),
    ("duration('1x') > duration('1s')", "invalid duration argument"),
    ("dyn(true)", "must evaluate to bool or the unknown type, not dyn"),
    ("device", "must evaluate to bool or the unknown type, not kubernetes.DRADevice"),
    ("[1]", "must evaluate to bool or the unknown type, not list(int)"),
    ("{'a': 1}", "must evaluate to bool or the unknown type, not map(string, int)"),
])
def test_checker_messages_in_cel_go_words(expr: str, message: str) -> None:
    with pytest.raises(CelCompileError) as err:
        compile_selector(expr)
    assert message in err.value.message


def test_format_arguments_are_exempt_from_homogeneous_literals() -> None:
    assert run("'%s %d'.format(['a', 1]) == 'a 1'") is True


def test_compile_error_caret_points_at_the_column() -> None:
    with pytest.raises(CelCompileError) as err:
        compile_selector("device.driver == 'x' &&\n  nope")
    assert err.value.message == ("compilation failed: ERROR: <input>:2:3: undeclared reference to 'nope' "
                                 "(in container '')\n |   nope\n | ..^")


# --- runtime texts recorded in the conformance vectors -------------------------------------------

def test_no_such_key_type_for_class_selector() -> None:
    gpu = nvidia_gpu(drop=("type",))
    assert run(CLASS_GPU, gpu, driver=NVIDIA) == CelRuntimeError("no such key: type")


def test_no_such_key_other_attribute() -> None:
    assert run("device.attributes['gpu.nvidia.com'].gpuModel == 'H100'", nvidia_gpu(), driver=NVIDIA) == \
        CelRuntimeError("no such key: gpuModel")


def test_bad_quantity_literal() -> None:
    r = run("device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('40GB')) >= 0", nvidia_gpu(),
            driver=NVIDIA)
    assert r == CelRuntimeError("quantities must match the regular expression "
                                "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")


def test_string_result_is_not_a_bool() -> None:
    r = run("device.attributes['gpu.nvidia.com'].productName", nvidia_gpu(), driver=NVIDIA)
    assert r == CelRuntimeError("CEL result of type string could not be converted to bool: "
                                "unsupported native conversion from string to 'bool'")


@pytest.mark.parametrize("name", ["boolAttribute", "driverVersion", "stringAttribute"])
def test_attribute_without_value_fails_every_selector(name: str) -> None:
    dev = device({name: None})
    assert run('device.driver == "driver-a"', dev, driver="driver-a") == \
        CelRuntimeError(f"attribute {name}: unsupported attribute value")


def test_unparsable_version_attribute_fails_every_selector() -> None:
    r = run("true", nvidia_gpu(driver_version="570.x"), driver=NVIDIA)
    assert isinstance(r, CelRuntimeError)
    assert r.message.startswith("attribute driverVersion: parse semantic version: ")


# --- propagation ---------------------------------------------------------------------------------

ERR = "device.attributes['dra.example.com'].missing"


@pytest.mark.parametrize(("expr", "expected"), [
    (f"false && {ERR}", False),
    (f"{ERR} && false", False),
    (f"true || {ERR}", True),
    (f"{ERR} || true", True),
    (f"true && {ERR}", ("runtime", "no such key: missing")),
    (f"{ERR} && true", ("runtime", "no such key: missing")),
    (f"false || {ERR}", ("runtime", "no such key: missing")),
    (f"{ERR} || false", ("runtime", "no such key: missing")),
    (f"{ERR} || 1 / 0 == 1", ("runtime", "no such key: missing")),
    (f"1 / 0 == 1 && {ERR}", ("runtime", "division by zero")),
    (f"true ? true : {ERR}", True),
    (f"false ? {ERR} : false", False),
    (f"[1, 2].exists(x, x == 2 || {ERR})", True),
    (f"[1, 2].exists(x, {ERR} || x == 2)", True),
    (f"[1, 2].all(x, x == 3 && {ERR})", False),
    (f"[1, 2].exists(x, {ERR})", ("runtime", "no such key: missing")),
    (f"!({ERR})", ("runtime", "no such key: missing")),
    ("dyn('x') && true", ("runtime", "no such overload")),
    ("dyn('x') && false", False),
    ("dyn(1) || true", True),
])
def test_error_propagation(expr: str, expected: object) -> None:
    assert outcome(expr, device({"present": True}), CelEnvironment(list_type_attributes=True)) == expected


def test_errors_are_results_not_exceptions() -> None:
    prog = compile_selector(f"{ERR} == 1")
    r = prog.evaluate(device_input("dra.example.com", device()))
    assert isinstance(r, CelRuntimeError)
    assert str(r) == "no such key: missing"
