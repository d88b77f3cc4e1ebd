"""Engine modules shared by the built-in bots (search, heuristics, playouts, bitboards), and
`judge.py`, which judges opening positions with that search for `arena.tournament.openings`.

Not a bot: discovery skips packages and modules whose name starts with `_`, so `ls players/`
lists the bots. Nothing here imports from `arena` beyond the bot-facing API (board, player).
"""
