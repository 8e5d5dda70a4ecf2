"""The `drasim` / `kubectl-dra` command line: click commands, one module per command."""
