"""Entry point: the `drasim` click group; each subcommand lives in its own module."""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys

import click

from drasim import DEFAULT_KUBERNETES_VERSION, __version__
from drasim.errors import DrasimError

# name -> "module:attribute"; imported lazily so `drasim --version` stays fast.
SUBCOMMANDS: dict[str, str] = {
    "allocate": "drasim.cli.allocate:allocate",
    "capacity": "drasim.cli.capacity:capacity_cmd",
    "doctor": "drasim.cli.doctor:doctor",
    "dump": "drasim.cli.dump:dump",
    "explain": "drasim.cli.explain:explain",
    "fleet": "drasim.cli.fleet:fleet",
    "lint": "drasim.cli.lint:lint",
    "simulate": "drasim.cli.simulate:simulate",
    "sweep": "drasim.cli.sweep:sweep",
    "taint": "drasim.cli.taint:taint",
    "validate": "drasim.cli.validate:validate",
}


# One line per command for `drasim --help`, so listing the commands imports none of them.
SUMMARIES: dict[str, str] = {
    "allocate": "Run scenario files: one Allocate call per step, upstream's output.",
    "capacity": "How many more replicas of a pod or workload fit on the cluster.",
    "doctor": "Check a cluster's DRA setup without changing anything.",
    "dump": "Save every DRA-relevant object of a cluster to a directory.",
    "explain": "Why a ResourceClaim or Pod got its devices, or why it got none.",
    "fleet": "Generate Nodes, ResourceSlices and DeviceClasses for NVIDIA GPUs.",
    "lint": "Find what bites DRA users before it reaches a cluster.",
    "simulate": "Simulate DRA scheduling: where every pod lands and why.",
    "sweep": "Run a grid of simulations and report each point.",
    "taint": "Preview the effect of DeviceTaintRules.",
    "validate": "Report what the API server would reject.",
}


PLUGIN = "kubectl-dra"


def prog_name(argv0: str | None = None) -> str:
    """`kubectl dra` when run as the plugin executable (kubectl shows plugins by their command words)."""
    base = os.path.basename(argv0 if argv0 is not None else sys.argv[0])
    return "kubectl dra" if base.split(".")[0] == PLUGIN else "drasim"


def _available(target: str) -> bool:
    return importlib.util.find_spec(target.partition(":")[0]) is not None


class LazyGroup(click.Group):
    """A click group that imports a subcommand's module only when it is used."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(name for name, target in SUBCOMMANDS.items() if _available(target))

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, SUMMARIES.get(name, "")) for name in self.list_commands(ctx)]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)

    def invoke(self, ctx: click.Context) -> object:
        from drasim.cli.exits import WriteFailed, write_error

        try:
            return super().invoke(ctx)
        except OSError as err:
            if write_error(err):
                raise WriteFailed(err) from None
            raise

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = SUBCOMMANDS.get(cmd_name)
        if target is None or not _available(target):
            return None
        module_name, _, attr = target.partition(":")
        command: click.Command = getattr(importlib.import_module(module_name), attr)
        return command


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(
    __version__, "--version", prog_name="drasim",
    message=f"%(prog)s %(version)s (default Kubernetes profile {DEFAULT_KUBERNETES_VERSION})",
)
def cli() -> None:
    """Simulate Kubernetes Dynamic Resource Allocation before anything touches a cluster."""


def main() -> None:
    """Run the CLI; a DrasimError becomes one message on stderr and its exit code, never a traceback; so does
    a failed write to stdout (cli.exits). SIGTERM and Ctrl-C unwind, so no temporary file is left behind."""
    from drasim.cli import exits

    exits.catch_termination()
    exits.guard_stdout()
    # Called by the program's entry script (the console scripts, `python -m drasim`): the process ends here
    # without the interpreter's teardown (exits.end_process), and what a command left to it
    # (exits.leave_to_exit) is not freed object by object on the way. Called from other code (tests), main
    # raises SystemExit as before.
    entry = sys._getframe(1).f_globals.get("__name__") == "__main__"
    exits._fast_exit = entry
    code = exits.flush_stdout(_run())
    if entry:
        exits.end_process(code)
    sys.exit(code)


def _run() -> int:
    """The command's exit code."""
    from drasim.cli.exits import INTERRUPTED, WriteFailed, output_failed, write_error

    try:
        # With standalone_mode=False click returns a command's exit code instead of exiting.
        # Shell completion (click's): `_DRASIM_COMPLETE` or `_KUBECTL_DRA_COMPLETE`, named for the executable.
        exe = os.path.basename(sys.argv[0]).split(".")[0]
        exe = exe if exe in (PLUGIN, "drasim") else "drasim"
        complete_var = f"_{exe}_COMPLETE".replace("-", "_").upper()
        name = exe if complete_var in os.environ else prog_name()
        code = cli.main(prog_name=name, complete_var=complete_var, standalone_mode=False)
        return code if isinstance(code, int) else 0
    except SystemExit as err:  # sys.exit in a command, or SIGTERM (cli.exits.catch_termination)
        return err.code if isinstance(err.code, int) else (0 if err.code is None else 1)
    except click.exceptions.Abort as err:
        click.echo("Aborted!", err=True)
        return INTERRUPTED if isinstance(err.__context__, KeyboardInterrupt) else 1
    except click.ClickException as err:
        err.show()
        return err.exit_code
    except click.exceptions.Exit as err:
        return err.exit_code
    except DrasimError as err:
        click.echo(f"error: {err}", err=True)
        return err.exit_code
    except WriteFailed as failed:
        return output_failed(failed.err, 0)
    except OSError as err:
        if not write_error(err):
            raise
        return output_failed(err, 0)


if __name__ == "__main__":
    main()
