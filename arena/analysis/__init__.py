"""Game analysis with the exact solver: where did a bot lose?

- `engine`: the value of every position of a game (opening book, exact solver within a time
  budget, else an estimate) and a verdict on every move (best, inaccuracy, blunder with the
  moves that would have kept the value, unclear). The search is passed in as an `Oracle`; the
  command layer finds the project's one (players/_shared/oracle.py) through the entry point
  group ``cxarena.solvers``, so this package imports no bot.
- `store`: analyses kept next to the games, in ``analysis.json`` in the results folder.
- `render`: an analysis as text (`cxarena analyze`, `cxarena show --analyze`) and as the data
  the HTML viewer draws (evaluation strip, blunders, better moves).
- `batch`: every game of a results folder whose board the exact solver covers, in a process
  pool (`cxarena tournament ... --analyze`, `cxarena report --analyze`).
"""
