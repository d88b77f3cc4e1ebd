"""Fewer games at once while the machine cannot give each game its core (issue 39, point 1).

The signal is the referee's own measure, not the machine's pressure figures: on a shared
machine `/proc/pressure/cpu` read 19 to 97 % "some" with nothing of cxarena running, so a gate
on it would stall every run. A game whose record shows that the machine kept a bot waiting
(a move answered late by the wall clock and excused, `extra["excused"]`; a game played again
for an overloaded machine, `extra["overload"]`; a timeout charged after overloaded replays)
says that its core was not its own. After such a game the executor starts one game fewer at a
time (never fewer than one); after `defaults.CALM_GAMES` games in a row without it, one more
again, up to its workers. The cost of load is a slower run, not a different result.
"""

from __future__ import annotations

from arena import defaults
from arena.records import GameRecord

__all__ = ["Throttle", "strained"]


def strained(record: GameRecord) -> bool:
    """Whether the machine kept a bot of this game waiting (see the module docstring)."""
    extra = record.extra
    return bool(extra.get("excused") or extra.get("overload")
                or "charged_overloaded" in extra)


class Throttle:
    """How many games may run at once, from the games that just ended."""

    def __init__(self, workers: int, calm_games: int = defaults.CALM_GAMES) -> None:
        if workers < 1 or calm_games < 1:
            raise ValueError("workers and calm_games must be >= 1")
        self.workers = workers
        self.calm_games = calm_games
        self.at_once = workers
        self._calm = 0

    def after(self, record: GameRecord | None) -> str:
        """Take a finished game into account; a line for the log when `at_once` changed, else
        "". A game without a record (its worker died) says nothing of the machine's load."""
        if record is None:
            return ""
        if strained(record):
            self._calm = 0
            if self.at_once > 1:
                self.at_once -= 1
                return (f"event=pressure games_at_once={self.at_once} game={record.game_id}: "
                        "the machine kept a bot waiting; one game fewer at a time")
            return ""
        self._calm += 1
        if self._calm >= self.calm_games and self.at_once < self.workers:
            self._calm = 0
            self.at_once += 1
            return (f"event=pressure games_at_once={self.at_once}: {self.calm_games} games "
                    "without a wait; one game more at a time")
        return ""
