"""One module per `cxarena` subcommand. Each defines `HELP` (one line), `add_arguments(parser)`
and `run(args) -> int` (the exit code); `arena.cli` wires them together."""
