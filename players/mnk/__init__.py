"""m,n,k-game bots (`arena.games.mnk.MNKPlayer` subclasses), one per module:

- `random_bot`: a random empty cell (seeded by the game's seed);
- `alphabeta`: iterative-deepening alpha-beta (the shared driver `players._games.search`)
  counting the open lines of each length of both sides, winning at once and blocking first,
  under the time limit.

SPECs: ``players.mnk.random_bot``, ``players.mnk.alphabeta``.
"""
