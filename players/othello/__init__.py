"""Othello bots (`arena.games.player.OthelloPlayer` subclasses), one per module:

- `random_bot`: a random legal move (seeded by the game's seed);
- `greedy`: the move that flips the most discs;
- `alphabeta`: iterative-deepening alpha-beta with mobility, corners and a weighted-square
  table, under the time limit.

SPECs: ``players.othello.random_bot``, ``players.othello.greedy``, ``players.othello.alphabeta``.
"""
