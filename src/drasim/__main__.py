"""`python -m drasim`: the same command line as the `drasim` script."""

from drasim.cli.main import main

main()
