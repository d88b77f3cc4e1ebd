"""How a bot enters a game: SPEC parsing and loading (`specs.py`), the hosts that speak the
line protocol on a bot's behalf (`host.py` for Python `CXPlayer` classes, `kaggle_host.py` for
Kaggle ConnectX agents, and for course Java bots `java/cxarena/Host.java` with cxarena's own
course API in `java/connectx/`, compiled and started by `java.py`), and code fingerprints
(`fingerprint.py`).

Must not live here: the referee's game loop or anything about tournaments; a host imports the
bot-facing API (`arena.board`, `arena.player`) and the protocol, never a particular bot.
"""
