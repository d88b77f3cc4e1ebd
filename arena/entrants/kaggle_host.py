"""Kaggle ConnectX agents (`kaggle:PATH[:FUNCTION]`) and their host:
``python -m arena.entrants.kaggle_host PATH[:FUNCTION]`` speaks the line protocol for one.

PATH is a Kaggle submission file; the agent is FUNCTION, or, as on Kaggle, the last callable
defined in the file (a function, class or callable object whose ``__module__`` is the file's;
names imported into it do not count). The file's folder comes first on the module search path,
so ``from helpers import ...`` works. The file is loaded once per process (at ``hello``,
outside every game clock); a process plays many games, so module-level state lives on.

Each turn the agent is called as ``agent(observation, configuration)`` (or
``agent(observation)`` when it takes one argument) with what Kaggle's ConnectX gives, both
as attributes and as items (`Struct`, like Kaggle's own objects):

- observation: ``board`` (a flat list of rows*columns ints, row 0 at the top, 0 empty, 1 and
  2 the players' marks), ``mark`` (1 moving first, else 2), ``step`` (moves played so far),
  ``remainingOverageTime`` (always 0: a late answer loses at once here);
- configuration: ``rows``, ``columns``, ``inarow``, ``actTimeout``, ``timeout`` and
  ``agentTimeout`` (all three the per-move limit in seconds), ``episodeSteps``.

The answer is an int column (numpy integers accepted); anything else is an illegal move.

Must not live here: the game loop or the protocol itself (`arena.entrants.host` does both).
"""

from __future__ import annotations

import sys

from arena.entrants import host
from arena.entrants.specs import KAGGLE_PREFIX

__all__ = ["main"]


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m arena.entrants.kaggle_host PATH[:FUNCTION]   "
              "(speaks docs/protocol.md on stdin/stdout)", file=sys.stderr)
        return 2
    return host.main([KAGGLE_PREFIX + args[0]])


if __name__ == "__main__":
    raise SystemExit(main())
