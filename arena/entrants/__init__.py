"""How a bot enters a game: SPEC parsing and loading (`specs.py`) and the hosts that speak the
line protocol on a bot's behalf (`host.py` for Python `CXPlayer` classes).

Must not live here: the referee's game loop or anything about tournaments; a host imports the
bot-facing API (`arena.board`, `arena.player`) and the protocol, never a particular bot.
"""
