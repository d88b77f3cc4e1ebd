"""`python -m arena` does what the `cxarena` command does."""

from arena.cli import main

raise SystemExit(main())
