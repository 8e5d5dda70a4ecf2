"""kubectl's conventions shared by the commands: `--kubeconfig/--context`, `-n/--namespace`,
`-A/--all-namespaces`, and object references (`pod/NAME`, `pod NAME`, `NS/NAME`)."""

from __future__ import annotations

import functools
import gc
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import click

from drasim.errors import DrasimError, InputError

if TYPE_CHECKING:
    from datetime import timedelta

    from drasim.api.profile import ReleaseProfile
    from drasim.cluster import ClusterState, Key
    from drasim.cluster.snapshot import ClusterSnapshot
    from drasim.sim.engine import PodRecord
    from drasim.sources.inputs import Inputs

__all__ = ["KINDS", "KubeArgs", "ObjectRef", "cluster_options", "command_inputs", "complete_type", "kube_options",
           "live_profile", "no_collections", "parse_refs", "settled_inputs", "settled_inputs_records"]


def cluster_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """--kubeconfig, --context and --timeout (for the commands that only read a cluster)."""
    fn = click.option("--timeout", type=click.FloatRange(min=0.1), default=10.0, show_default=True,
                      help="Seconds to wait for the API server to answer (a whole request may take a few "
                           "times this).")(fn)
    fn = click.option("--context", "context", metavar="NAME", default=None,
                      help="kubeconfig context to use (default: the current context).")(fn)
    fn = click.option("--kubeconfig", metavar="PATH", default=None,
                      help="kubeconfig file (default: $KUBECONFIG, else ~/.kube/config).")(fn)
    return fn


@dataclass(frozen=True)
class KubeArgs:
    """The kubectl flags of one command line. A live cluster is read when --kubeconfig or --context is given."""

    kubeconfig: str | None = None
    context: str | None = None
    timeout: float = 10.0
    namespace: str | None = None  # -n as given
    all_namespaces: bool = False

    @property
    def live(self) -> bool:
        return self.kubeconfig is not None or self.context is not None

    def default_namespace(self) -> str:
        """-n, else the kubeconfig context's namespace (with a live cluster), else `default`."""
        if self.namespace:
            return self.namespace
        if self.live:
            from drasim.sources.live import load_kubeconfig

            namespace = load_kubeconfig(self.kubeconfig, self.context).namespace
            if namespace:
                return namespace
        return "default"

    def snapshot(self) -> ClusterSnapshot | None:
        """The live cluster's objects (GET and LIST only), or None without --kubeconfig/--context."""
        if not self.live:
            return None
        from drasim.sources.live import read_cluster

        return read_cluster(self.kubeconfig, self.context, timeout=self.timeout)


def kube_options(*, live: bool = True, all_namespaces: bool = False,
                 namespace_help: str = "Namespace for objects in -f files that name none (as kubectl apply -n); "
                                       "a file naming another namespace is an error.") -> Callable[[Any], Any]:
    """`-n/--namespace`, optionally `-A/--all-namespaces` and the cluster options, passed as `kube` (KubeArgs)."""

    def decorate(fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            namespace = kwargs.pop("namespace", None)
            every = kwargs.pop("all_namespaces", False)
            if namespace is not None and not namespace:
                raise click.BadParameter("must not be empty", param_hint="'-n' / '--namespace'")
            if every and namespace:
                raise click.UsageError("-A/--all-namespaces and -n/--namespace cannot be used together")
            kwargs["kube"] = KubeArgs(kwargs.pop("kubeconfig", None), kwargs.pop("context", None),
                                      kwargs.pop("timeout", 10.0), namespace, every)
            return fn(*args, **kwargs)

        out: Callable[..., Any] = wrapper
        if live:
            out = cluster_options(out)
        if all_namespaces:
            out = click.option("-A", "--all-namespaces", "all_namespaces", is_flag=True,
                               help="Every namespace.")(out)
        return click.option("-n", "--namespace", "namespace", metavar="NAMESPACE", default=None,
                            help=namespace_help)(out)

    return decorate


# --- object references -----------------------------------------------------------------------------

# kubectl's names of the kinds drasim explains (singular, plural, short) -> the kind.
KINDS: dict[str, str] = {
    "pod": "pod", "pods": "pod", "po": "pod",
    "claim": "claim", "claims": "claim", "resourceclaim": "claim", "resourceclaims": "claim",
    "resourceclaim.resource.k8s.io": "claim", "resourceclaims.resource.k8s.io": "claim",
}


@dataclass(frozen=True)
class ObjectRef:
    """`kind` (pod or claim), `name` (None: every object of the kind) and the namespace the name gave."""

    kind: str
    name: str | None
    namespace: str | None = None


def complete_type(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[Any]:
    """Shell completion of TYPE (the first word of an object reference)."""
    from click.shell_completion import CompletionItem

    if ctx.params.get(param.name or ""):
        return []
    words = ("pod", "pods", "resourceclaim", "resourceclaims")
    return [CompletionItem(w) for w in words if w.startswith(incomplete)]


def _kind(word: str) -> str:
    kind = KINDS.get(word.lower())
    if kind is None:
        raise click.BadParameter(f"unknown resource type {word!r}: expected pod(s) or resourceclaim(s) "
                                 "(also claim, po)", param_hint="'TYPE'")
    return kind


def _name(text: str) -> tuple[str | None, str]:
    ns, sep, name = text.partition("/")
    if not sep:
        return None, text
    if not ns or not name or "/" in name:
        raise InputError(f"expected NAME or NAMESPACE/NAME, got {text!r}")
    return ns, name


def parse_refs(words: Sequence[str]) -> list[ObjectRef]:
    """kubectl's forms: `TYPE/NAME ...`, `TYPE NAME ...`, `TYPE` alone (every object of the type); drasim's
    `NAMESPACE/NAME` after TYPE too (`pod ml/trainer-0`)."""
    if not words:
        return []
    if "/" in words[0] and words[0].split("/", 1)[0].lower() in KINDS:
        refs = []
        for word in words:
            head, _, rest = word.partition("/")
            if not rest or head.lower() not in KINDS:
                raise click.UsageError(f"there is no need to specify a resource type as a separate argument when "
                                       f"passing arguments in resource/name form (e.g. 'pod/NAME'): got {word!r}")
            ns, name = _name(rest)
            refs.append(ObjectRef(_kind(head), name, ns))
        return refs
    kind = _kind(words[0])
    if len(words) == 1:
        return [ObjectRef(kind, None)]
    out = []
    for word in words[1:]:
        ns, name = _name(word)
        out.append(ObjectRef(kind, name, ns))
    return out


def live_profile(profile: ReleaseProfile, snapshot: ClusterSnapshot) -> ReleaseProfile:
    """The profile of the cluster read: its release (unless --kubernetes-version was given) and, when it
    serves DeviceTaintRules, their gate on (unless --feature-gates sets it)."""
    from drasim.api.profile import SIMULATED, parse_minor, profile_for
    from drasim.cli.options import demo_profile

    ctx = click.get_current_context(silent=True)
    source = ctx.get_parameter_source("kubernetes_version") if ctx is not None else None
    minor = parse_minor(snapshot.server_version)
    if source in (None, click.core.ParameterSource.DEFAULT) and minor and minor != profile.version:
        if minor in SIMULATED:
            profile = profile_for(minor, profile.overrides)
        else:
            click.echo(f"warning: {snapshot.source} runs Kubernetes {minor}; simulating {profile.describe()} "
                       f"(one of {', '.join(SIMULATED)}; see --kubernetes-version)", err=True)
    if "DeviceTaintRule" in snapshot.read_versions:
        profile = demo_profile(profile)
    return profile


def command_inputs(paths: Sequence[str], profile: ReleaseProfile, kube: KubeArgs, *, timelines: bool = False,
                   check_versions: bool = True) -> tuple[Inputs, ReleaseProfile]:
    """The objects a command works on: the live cluster (with --kubeconfig/--context) with the -f files
    applied on top, else the files, else the bundled demo (with the demo's profile); and the profile used."""
    from drasim.api.decode import gc_paused
    from drasim.cli.options import LOAD_RESTRICTOR_KEY, demo_profile
    from drasim.demo import demo_paths
    from drasim.sources.inputs import ROOT_ONLY, read_inputs

    snapshot = kube.snapshot()
    if snapshot is None and not paths:
        paths = demo_paths()
        profile = demo_profile(profile)
    if snapshot is not None:
        profile = live_profile(profile, snapshot)
    ctx = click.get_current_context(silent=True)
    restrictor = ctx.meta.get(LOAD_RESTRICTOR_KEY, ROOT_ONLY) if ctx is not None else ROOT_ONLY
    # The collector stays off while the inputs are read and admitted (a fleet is millions of objects, no
    # cycles among them; a pass over them once the decoder re-enabled it was a tenth of `drasim validate`),
    # and what was read is frozen before it runs again.
    with gc_paused():
        inputs = read_inputs(list(paths), profile, timelines=timelines, check_versions=check_versions,
                             namespace=kube.namespace, cluster=snapshot, load_restrictor=restrictor)
        freeze_heap()
    return inputs, profile


# The cyclic garbage collector is off while a command that simulates runs (simulate, lint, explain, taint).
# It builds a large heap that lives to its end (inputs, cluster state, results, output) and makes little
# cyclic garbage (about 400,000 small objects over a 50,000-pod run, no change in its peak memory), yet every
# collection walks the young objects and every full one all that are not frozen: with the defaults
# collections took ~20 % of that run's CPU, with rare ones (thresholds 100,000/50/1,000) still ~15 %, and a
# sixth of `lint` of one pod on 5,000 fleet nodes. Reference counting frees everything else; turning
# collection off changes no result.
def no_collections() -> None:
    """Turn the cyclic garbage collector off until the command ends."""
    ctx = click.get_current_context(silent=True)
    if ctx is None or not gc.isenabled():
        return  # off already (the host's choice)
    ctx.call_on_close(gc.enable)
    gc.disable()


def freeze_heap() -> None:
    """Exempt what exists now (the inputs; after a simulation, its result) from full garbage collections
    until the command ends: it lives that long anyway, and each full pass would walk all of it again (on
    5,000 fleet nodes such passes were a quarter of `drasim lint`'s CPU)."""
    ctx = click.get_current_context(silent=True)
    if ctx is None:
        return  # no command to end: nothing would unfreeze it
    if gc.get_freeze_count() == 0:
        ctx.call_on_close(gc.unfreeze)
    gc.freeze()


def settled_inputs(paths: Sequence[str], profile: ReleaseProfile, kube: KubeArgs, *, seed: int = 0,
                   at: timedelta | None = None) -> tuple[ClusterState, Inputs]:
    """`command_inputs` (Timelines included) as `drasim simulate` leaves them (`sim.settle.settled_state`, at
    `at` after the start, default the end), and the inputs: what explain and taint dry-run read."""
    state, _, inputs = settled_inputs_records(paths, profile, kube, seed=seed, at=at)
    return state, inputs


def settled_inputs_records(paths: Sequence[str], profile: ReleaseProfile, kube: KubeArgs, *, seed: int = 0,
                           at: timedelta | None = None) -> tuple[ClusterState, Mapping[Key, PodRecord], Inputs]:
    """`settled_inputs` with the simulation's record of each pod (explain's placement of a scheduled pod)."""
    from drasim.sim.settle import settled_records

    no_collections()

    inputs, profile = command_inputs(paths, profile, kube, timelines=True)
    try:
        state, records = settled_records(inputs.objects, inputs.timelines, profile, seed=seed, at=at, owned=True)
    except DrasimError as err:
        raise inputs.locate(err) from None
    return state, records, inputs
