"""Options shared by the commands: `-f` like kubectl, and the release profile (`--kubernetes-version`,
`--feature-gates`) like the real components."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import click

from drasim.api.profile import (
    DEFAULT_VERSION,
    SIMULATED,
    ReleaseProfile,
    normalize_version,
    parse_runtime_config,
    profile_for,
)
from drasim.demo import demo_profile
from drasim.errors import DrasimError
from drasim.sources.inputs import LOAD_RESTRICTORS, ROOT_ONLY

FILENAME_HELP = "File, directory (read recursively) or - for stdin. Repeatable. Default: the bundled demo cluster."


def filename_option(help_text: str = FILENAME_HELP) -> Callable[[Any], Any]:
    """`-f/--filename PATH` (repeatable), stored as `paths`."""
    return click.option("-f", "--filename", "paths", multiple=True, metavar="PATH", type=click.Path(),
                        help=help_text)


def profile_options(releases: tuple[str, ...] = SIMULATED, *, optional: bool = False,
                    help_text: str = "Feature gates and API versions of this release.") -> Callable[[Any], Any]:
    """`--kubernetes-version` and `--feature-gates`, passed to the command as `profile` (a ReleaseProfile).

    With `optional`, `profile` is None when neither option is given (the command has its own default,
    e.g. a scenario file's features)."""

    def decorate(fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def wrapper(*args: Any, kubernetes_version: str | None, feature_gates: str | None,
                    runtime_config: str | None, **kwargs: Any) -> Any:
            if optional and kubernetes_version is None and feature_gates is None and runtime_config is None:
                kwargs["profile"] = None
            else:
                version = kubernetes_version or DEFAULT_VERSION
                try:
                    normalize_version(version, releases)
                except DrasimError:
                    raise click.BadParameter(f"{version!r} is not one of {', '.join(releases)}.",
                                             param_hint="'--kubernetes-version'") from None
                try:
                    runtime = parse_runtime_config(runtime_config or "")
                except DrasimError as err:
                    raise click.BadParameter(err.message, param_hint="'--runtime-config'") from None
                try:
                    kwargs["profile"] = profile_for(version, feature_gates, releases=releases, runtime_config=runtime)
                except DrasimError as err:
                    raise click.BadParameter(err.message.removeprefix("--feature-gates: "),
                                             param_hint="'--feature-gates'") from None
            return fn(*args, **kwargs)

        wrapper = click.option(
            "--runtime-config", "runtime_config", default=None, metavar="resource.k8s.io/VERSION[/RESOURCE]=true,...",
            help="API versions the API server serves beyond its defaults, as kube-apiserver's --runtime-config "
                 "(e.g. resource.k8s.io/v1beta2/devicetaintrules=true).")(wrapper)
        wrapper = click.option(
            "--feature-gates", "feature_gates", default=None, metavar="Name=true|false,...",
            help="Override DRA feature gates of the release, as the real components' --feature-gates "
                 "(e.g. DRADeviceTaintRules=true).")(wrapper)
        wrapper = click.option(
            "--kubernetes-version", "kubernetes_version", default=None if optional else DEFAULT_VERSION,
            show_default=not optional, metavar="|".join(releases),
            help=help_text + ("" if not optional else f" Default {DEFAULT_VERSION}."))(wrapper)
        return wrapper

    return decorate


LOAD_RESTRICTOR_KEY = "drasim.load_restrictor"


def load_restrictor_option(fn: Callable[..., Any]) -> Callable[..., Any]:
    """`--load-restrictor` (kustomize's flag and values) for the commands that read Timelines; the value is
    kept in the click context, where `cli.kube.command_inputs` reads it."""

    @functools.wraps(fn)
    def wrapper(*args: Any, load_restrictor: str, **kwargs: Any) -> Any:
        click.get_current_context().meta[LOAD_RESTRICTOR_KEY] = load_restrictor
        return fn(*args, **kwargs)

    return click.option(
        "--load-restrictor", "load_restrictor", type=click.Choice(LOAD_RESTRICTORS), default=ROOT_ONLY,
        show_default=True,
        help=f"Where a Timeline's `file:` may point: its own folder and below ({ROOT_ONLY}), or anywhere "
             f"({LOAD_RESTRICTORS[1]}), as kustomize's --load-restrictor.")(wrapper)


__all__ = ["FILENAME_HELP", "LOAD_RESTRICTOR_KEY", "ReleaseProfile", "demo_profile", "filename_option",
           "load_restrictor_option", "profile_options"]
