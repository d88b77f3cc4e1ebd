"""Tournaments: configs (`config.py`), schedules (`schedule.py`), executors that run games on
cores (`executor.py`), the durable SQLite store (`store.py`), standings and Elo recomputed from
stored games (`standings.py`, `elo.py`), and the run that ties them together (`run.py`).

Must not live here: how a single game is refereed (that is `arena.referee`, which imports nothing
from this package) or any particular bot.
"""
