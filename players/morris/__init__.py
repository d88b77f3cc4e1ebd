"""Nine Men's Morris bots (`arena.games.player.MorrisPlayer` subclasses), one per module:

- `random_bot`: a random legal move (seeded by the game's seed);
- `alphabeta`: iterative-deepening alpha-beta with a heuristic (pieces, mills, mobility) and a
  transposition table, under the time limit.

SPECs: ``players.morris.random_bot``, ``players.morris.alphabeta``.
"""
