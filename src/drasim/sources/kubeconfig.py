"""kubeconfig files as kubectl reads them: merging, the chosen context, and its cluster and user entries."""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from drasim.errors import DrasimError, InputError
from drasim.sources.files import decode_text, parse_yaml, read_input
from drasim.sources.reading import NONBLOCK_READ, describe
from drasim.sources.secrets import strip_userinfo

__all__ = ["ClusterAccessError", "ClusterEntry", "ExecEntry", "KubeConfig", "KubeTarget", "UnreadableFile",
           "UserEntry", "load_kubeconfig", "read_regular"]

DEFAULT_KUBECONFIG = "~/.kube/config"
EXEC_V1 = "client.authentication.k8s.io/v1"
EXEC_V1BETA1 = "client.authentication.k8s.io/v1beta1"
INTERACTIVE_MODES = ("Never", "IfAvailable", "Always")


class ClusterAccessError(DrasimError):
    """The cluster cannot be read: kubeconfig problems, unreachable server, rejected credentials, RBAC."""

    exit_code = 2


@dataclass(frozen=True)
class KubeTarget:
    """Which cluster: the context used, its server URL and the kubeconfig file(s) it came from."""

    context: str
    server: str
    kubeconfig: str

    def __str__(self) -> str:
        return f"context {self.context} ({self.server})"


@dataclass(frozen=True)
class ExecEntry:
    """`users[].user.exec`: a credential plugin (client.authentication.k8s.io v1 or v1beta1)."""

    api_version: str
    command: str
    args: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()
    install_hint: str = ""
    provide_cluster_info: bool = False
    interactive_mode: str = "IfAvailable"


@dataclass(frozen=True)
class ClusterEntry:
    """`clusters[].cluster`, file names made absolute against the kubeconfig that names them."""

    name: str
    server: str
    certificate_authority: str | None = None
    certificate_authority_data: str | None = None
    insecure: bool = False
    tls_server_name: str | None = None
    proxy_url: str | None = None
    disable_compression: bool = False
    source: str = ""  # the kubeconfig file defining it

    def field(self, key: str) -> str:
        return f"clusters[{self.name}].cluster.{key}"


@dataclass(frozen=True)
class UserEntry:
    """`users[].user`, file names made absolute against the kubeconfig that names them."""

    name: str
    token: str | None = None
    token_file: str | None = None
    username: str | None = None
    password: str | None = None
    client_certificate: str | None = None
    client_certificate_data: str | None = None
    client_key: str | None = None
    client_key_data: str | None = None
    exec: ExecEntry | None = None
    auth_provider: str | None = None  # its name: drasim cannot run auth providers (removed from kubectl in 1.26)
    source: str = ""

    def field(self, key: str) -> str:
        return f"users[{self.name}].user.{key}"


@dataclass(frozen=True)
class KubeConfig:
    """The chosen context: its cluster, user and namespace."""

    target: KubeTarget
    cluster: ClusterEntry
    user: UserEntry
    namespace: str | None = None


# --- reading and merging ---------------------------------------------------------------------------

# A kubeconfig of a thousand contexts is a few MiB.
KUBECONFIG_MAX = 16 * 1024 * 1024


class UnreadableFile(Exception):
    """A file `read_regular` refused; `reason` says why in Go's words (`open PATH: no such file or directory`)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def read_regular(path: str, limit: int) -> bytes:
    """The bytes of a regular file (symbolic links followed, as secret mounts use them) of at most `limit` bytes.
    Opened non-blocking, so a FIFO cannot hang the open; FIFOs and devices are refused before any read. The
    same checks as `reading.read_bounded`, with errors in client-go's words (`open PATH: ...`) for kubeconfig
    fields."""
    try:
        fd = os.open(path, NONBLOCK_READ)
    except OSError as exc:
        raise UnreadableFile(f"open {path}: {(exc.strerror or str(exc)).lower()}") from None
    except ValueError:  # a NUL in the name
        raise UnreadableFile(f"open {path!r}: invalid argument") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise UnreadableFile(f"{path} being {describe(info.st_mode)}, not a regular file")
        if info.st_size > limit:
            raise UnreadableFile(f"its size ({info.st_size:,} bytes; at most {limit:,} are read)")
        with os.fdopen(fd, "rb", closefd=False) as f:
            data = f.read(limit + 1)
        if len(data) > limit:  # it grew while we read
            raise UnreadableFile(f"its size (more than {limit:,} bytes)")
        return data
    except OSError as exc:
        raise UnreadableFile(f"read {path}: {(exc.strerror or str(exc)).lower()}") from None
    finally:
        os.close(fd)


# A named entry of a kubeconfig section and the file that defined it.
_Entry = tuple[dict[str, Any], str]


def _kubeconfig_paths(path: str | None) -> list[str]:
    if path:
        return [path]
    env = os.environ.get("KUBECONFIG", "")
    paths = [p for p in env.split(os.pathsep) if p]
    return paths or [DEFAULT_KUBECONFIG]


def _read_kubeconfig(path: str, *, named: bool) -> dict[str, Any]:
    file = Path(path).expanduser()
    if not file.exists() and not file.is_symlink():
        raise ClusterAccessError("kubeconfig not found: pass --kubeconfig PATH or set KUBECONFIG", source=path)
    # --kubeconfig gets the reader of every named input (`--kubeconfig <(cmd)` is a pipe); $KUBECONFIG and
    # ~/.kube/config only regular files. Then the YAML guards every input has (alias expansion, nesting depth).
    try:
        data = read_input(str(file)) if named else read_regular(str(file), KUBECONFIG_MAX)
    except InputError as exc:
        raise ClusterAccessError(f"cannot read kubeconfig: {exc.message}", source=path) from None
    except UnreadableFile as exc:
        raise ClusterAccessError(f"cannot read kubeconfig: {exc.reason}", source=path) from None
    try:
        docs = parse_yaml(decode_text(data, source=path), source=path)
    except InputError as exc:
        raise ClusterAccessError(f"kubeconfig is not valid YAML: {exc.message}", source=path) from None
    if len(docs) > 1:
        raise ClusterAccessError("kubeconfig must be one YAML document", source=path)
    doc = docs[0] if docs and docs[0] is not None else {}
    if not isinstance(doc, dict):
        raise ClusterAccessError("kubeconfig must be a YAML mapping (apiVersion: v1, kind: Config)", source=path)
    return doc


def _named(data: dict[str, Any], section: str, inner: str, source: str) -> dict[str, _Entry]:
    entries = data.get(section) or []
    if not isinstance(entries, list):
        raise ClusterAccessError(f'"{section}" must be a list', source=source)
    out: dict[str, _Entry] = {}
    for i, e in enumerate(entries):
        if not isinstance(e, dict) or not isinstance(e.get("name"), str):
            raise ClusterAccessError(f"{section}[{i}]: an entry of {inner}s has no name", source=source)
        value = e.get(inner)
        if value is not None and not isinstance(value, dict):
            raise ClusterAccessError(f"{section}[{e['name']}].{inner}: expected a mapping", source=source)
        # Like kubectl merging KUBECONFIG files: the first file that defines a name wins.
        out.setdefault(e["name"], (value or {}, source))
    return out


def load_kubeconfig(path: str | None = None, context: str | None = None) -> KubeConfig:
    """The connection settings of `context` (default: the current context) in `path` (default: $KUBECONFIG,
    several files separated by `:` merged like kubectl, else ~/.kube/config). Raises ClusterAccessError."""
    paths = _kubeconfig_paths(path)
    label = os.pathsep.join(paths)
    clusters: dict[str, _Entry] = {}
    contexts: dict[str, _Entry] = {}
    users: dict[str, _Entry] = {}
    current: str | None = None
    for p in paths:
        data = _read_kubeconfig(p, named=bool(path))
        for merged, section, inner in ((clusters, "clusters", "cluster"), (contexts, "contexts", "context"),
                                       (users, "users", "user")):
            for key, value in _named(data, section, inner, p).items():
                merged.setdefault(key, value)
        if not current and isinstance(data.get("current-context"), str):
            current = data["current-context"]
    available = ", ".join(sorted(contexts)) or "none"
    name = context or current
    if not name:
        raise ClusterAccessError(f"kubeconfig has no current-context: pass --context NAME (contexts: {available})",
                                 source=label)
    if name not in contexts:
        raise ClusterAccessError(f"context {name!r} not found in kubeconfig (contexts: {available})", source=label)
    ctx, ctx_source = contexts[name]
    cluster_name = _string(ctx, "cluster", f"contexts[{name}].context", ctx_source)
    if not cluster_name or cluster_name not in clusters:
        raise ClusterAccessError(f"context {name!r} refers to cluster {cluster_name!r}, which the kubeconfig does "
                                 "not define", source=label)
    user_name = _string(ctx, "user", f"contexts[{name}].context", ctx_source)
    if user_name and user_name not in users:
        raise ClusterAccessError(f"context {name!r} refers to user {user_name!r}, which the kubeconfig does not "
                                 "define", source=label)
    namespace = _string(ctx, "namespace", f"contexts[{name}].context", ctx_source)
    cluster = _cluster(cluster_name, *clusters[cluster_name])
    user = _user(user_name, *users[user_name]) if user_name else UserEntry(name="")
    # The target is what messages and dumps show: never the URL's user info.
    target = KubeTarget(context=name, server=strip_userinfo(cluster.server).rstrip("/"), kubeconfig=label)
    return KubeConfig(target=target, cluster=cluster, user=user, namespace=namespace or None)


# --- entries ---------------------------------------------------------------------------------------

def _fail(source: str, where: str, message: str) -> ClusterAccessError:
    return ClusterAccessError(f"{where}: {message}", source=source)


def _string(entry: dict[str, Any], key: str, where: str, source: str) -> str | None:
    value = entry.get(key)
    if value is None or isinstance(value, str):
        return value
    raise _fail(source, f"{where}.{key}", f"expected a string, got {type(value).__name__}")


def _bool(entry: dict[str, Any], key: str, where: str, source: str) -> bool:
    value = entry.get(key, False)
    if isinstance(value, bool):
        return value
    raise _fail(source, f"{where}.{key}", f"expected true or false, got {type(value).__name__}")


def _file(entry: dict[str, Any], key: str, where: str, source: str) -> str | None:
    """A file name field, relative names resolved against the kubeconfig naming it (as kubectl does)."""
    value = _string(entry, key, where, source)
    if not value:
        return None
    try:
        resolved = Path(value).expanduser()
    except RuntimeError:  # `~user` of no such user
        raise _fail(source, f"{where}.{key}", f"cannot expand {value!r}: no such user") from None
    return str(_beside(resolved, source))


def _beside(path: Path, source: str) -> Path:
    """`path` as kubectl resolves a kubeconfig's relative file names: against the directory of that file."""
    return path if path.is_absolute() else Path(source).expanduser().resolve().parent / path


def _cluster(name: str, entry: dict[str, Any], source: str) -> ClusterEntry:
    where = f"clusters[{name}].cluster"
    server = _string(entry, "server", where, source)
    if not server:
        # client-go's clientcmd validation text (tools/clientcmd/validation.go, v0.36).
        raise ClusterAccessError(f"no server found for cluster {name!r}", source=source)
    cluster = ClusterEntry(
        name=name, server=server, source=source,
        certificate_authority=_file(entry, "certificate-authority", where, source),
        certificate_authority_data=_string(entry, "certificate-authority-data", where, source),
        insecure=_bool(entry, "insecure-skip-tls-verify", where, source),
        tls_server_name=_string(entry, "tls-server-name", where, source),
        proxy_url=_string(entry, "proxy-url", where, source),
        disable_compression=_bool(entry, "disable-compression", where, source))
    if cluster.proxy_url:
        try:
            scheme = urlsplit(cluster.proxy_url).scheme
        except ValueError as exc:
            raise _fail(source, cluster.field("proxy-url"), f"invalid 'proxy-url' for cluster {name!r}: {exc}"
                        ) from None
        if scheme not in ("http", "https"):
            # kubectl also speaks socks5; drasim's HTTP client does not, so it says so instead of ignoring it.
            raise _fail(source, cluster.field("proxy-url"),
                        f"proxy scheme {scheme or '(none)'!r} is not supported by drasim (http and https are)")
    return cluster


def _user(name: str, entry: dict[str, Any], source: str) -> UserEntry:
    where = f"users[{name}].user"
    provider = entry.get("auth-provider")
    provider_name = None
    if provider is not None:
        provider_name = str(provider.get("name") if isinstance(provider, dict) else provider)
    exec_entry = entry.get("exec")
    user = UserEntry(
        name=name, source=source,
        token=_string(entry, "token", where, source),
        token_file=_file(entry, "tokenFile", where, source),
        username=_string(entry, "username", where, source),
        password=_string(entry, "password", where, source),
        client_certificate=_file(entry, "client-certificate", where, source),
        client_certificate_data=_string(entry, "client-certificate-data", where, source),
        client_key=_file(entry, "client-key", where, source),
        client_key_data=_string(entry, "client-key-data", where, source),
        exec=_exec(name, exec_entry, source) if exec_entry is not None else None,
        auth_provider=provider_name)
    methods = [m for m, used in (("token", user.token), ("basicAuth", user.username or user.password)) if used]
    if len(methods) > 1:
        raise _fail(source, where, f"more than one authentication method found for {name}; found "
                                   f"[{' '.join(methods)}], only one is allowed")
    has_cert = bool(user.client_certificate or user.client_certificate_data)
    if has_cert and not (user.client_key or user.client_key_data):
        raise _fail(source, where, f"client-key-data or client-key must be specified for {name} to use the "
                                   "clientCert authentication method.")
    return user


def _exec(user: str, entry: Any, source: str) -> ExecEntry:
    where = f"users[{user}].user.exec"
    if not isinstance(entry, dict):
        raise _fail(source, where, "expected a mapping")
    # Texts of client-go's clientcmd validation and exec plugin (v0.36: tools/clientcmd/validation.go,
    # plugin/pkg/client/auth/exec/exec.go).
    command = _string(entry, "command", where, source)
    if not command:
        raise _fail(source, f"{where}.command", f"command must be specified for {user} to use exec authentication "
                                                "plugin")
    api_version = _string(entry, "apiVersion", where, source)
    if not api_version:
        raise _fail(source, f"{where}.apiVersion", f"apiVersion must be specified for {user} to use exec "
                                                   "authentication plugin")
    if api_version not in (EXEC_V1, EXEC_V1BETA1):
        raise _fail(source, f"{where}.apiVersion", f'exec plugin: invalid apiVersion "{api_version}"')
    args = entry.get("args") or []
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        raise _fail(source, f"{where}.args", "expected a list of strings")
    env: list[tuple[str, str]] = []
    variables = entry.get("env") or []
    if not isinstance(variables, list):
        raise _fail(source, f"{where}.env", "expected a list of {name, value}")
    for i, var in enumerate(variables):
        if not isinstance(var, dict) or not var.get("name"):
            raise _fail(source, f"{where}.env[{i}]", f"env variable name must be specified for {user} to use exec "
                                                     "authentication plugin")
        name, value = var["name"], var.get("value") or ""
        if not isinstance(name, str) or not isinstance(value, str) or "\0" in name + value or "=" in name:
            raise _fail(source, f"{where}.env[{i}]", "expected a string name (without '=') and a string value")
        env.append((name, value))
    mode = _string(entry, "interactiveMode", where, source) or ""
    if not mode and api_version == EXEC_V1BETA1:
        mode = "IfAvailable"  # v1beta1's default; v1 must say (clientcmd/api/v1/defaults.go)
    if not mode:
        raise _fail(source, f"{where}.interactiveMode", f"interactiveMode must be specified for {user} to use exec "
                                                        "authentication plugin")
    if mode not in INTERACTIVE_MODES:
        raise _fail(source, f"{where}.interactiveMode", f'invalid interactiveMode for {user}: "{mode}"')
    if "\0" in command or any("\0" in a for a in args):
        raise _fail(source, f"{where}.command", "a command or argument holds a NUL character")
    if os.sep in command:
        # A relative command with a directory in it is relative to the kubeconfig, as client-go resolves it.
        command = str(_beside(Path(command), source))
    return ExecEntry(api_version=api_version, command=command, args=tuple(args), env=tuple(env),
                     install_hint=_string(entry, "installHint", where, source) or "",
                     provide_cluster_info=_bool(entry, "provideClusterInfo", where, source),
                     interactive_mode=mode)
