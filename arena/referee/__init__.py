"""The referee: plays one game between two bot processes and turns every fault into a result.

Lives here: the game loop (`referee.py`: `Referee`, `MatchSettings`), bot processes with their
limits and time stamps (`process.py`), the line protocol (`protocol.py`, pure: no I/O, no
third-party imports), and the parent-death lifeline (`lifeline.py`).

Must not live here: anything about tournaments (schedules, stores, standings): the referee
imports nothing from `arena.tournament`, and nothing in `arena/` imports a particular bot.
"""
