"""Every call the web app makes into the league core, gathered here so that it is easy to
re-point. Each reads the documented `League` method when the core has it, else the module
function of the same meaning; a part the core does not provide yet gives `None` (the pages
say "not available in this version") instead of failing."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

from arena.league import League

__all__ = ["Core", "NotAvailable"]

T = TypeVar("T")


class NotAvailable(Exception):
    """The league core of this version does not provide that operation."""


class Core:
    """The league folder; each call opens its own `League` (one sqlite connection per call,
    so calls are safe from Starlette's thread pool)."""

    def __init__(self, directory: Path) -> None:
        self.dir = Path(directory)
        League.open(self.dir).conn.close()  # LeagueError now if it is not a league

    @contextlib.contextmanager
    def league(self) -> Iterator[League]:
        lg = League.open(self.dir)
        try:
            yield lg
        finally:
            lg.conn.close()

    def run(self, fn: Callable[[League], T]) -> T:
        with self.league() as lg:
            return fn(lg)

    # the parts documented in LEAGUE_API.md, method first, module function second
    @staticmethod
    def _call(lg: League, method: str, module: str | None, *args: Any) -> Any:
        fn = getattr(lg, method, None)
        if callable(fn):
            return fn(*args)
        if module is not None:
            try:
                mod = __import__(f"arena.league.{module}", fromlist=[method])
            except ImportError:
                mod = None
            f = getattr(mod, method, None)
            if callable(f):
                return f(lg, *args)
        raise NotAvailable(method)

    def standings(self, lg: League) -> list[Any]:
        return list(self._call(lg, "standings", "standings"))

    def standings_csv(self, lg: League) -> str:
        return str(self._call(lg, "standings_csv", "standings"))

    def games_of(self, lg: League, submission_id: int) -> list[Any]:
        return list(self._call(lg, "games_of", "standings", submission_id))

    def game_record(self, lg: League, game_id: int) -> Any:
        return self._call(lg, "game_record", "standings", game_id)

    def game_sides(self, lg: League, game_id: int) -> tuple[str, str] | None:
        """The two sides ('sub:<id>' or a reference SPEC) of a stored game, None if unknown."""
        try:
            row = lg.conn.execute("SELECT side_a, side_b FROM games WHERE id=?",
                                  (game_id,)).fetchone()
        except Exception:  # no games table yet
            return None
        return (str(row[0]), str(row[1])) if row else None

    def game_log(self, lg: League, game_id: int, submission_id: int) -> str:
        try:
            return str(self._call(lg, "game_log", "standings", game_id, submission_id))
        except NotAvailable:  # the stored record keeps the stderr tail of a faulting side
            record = self.game_record(lg, game_id)
            sides = self.game_sides(lg, game_id)
            if record is None or sides is None or not record.offender:
                return ""
            if sides[record.offender - 1] != f"sub:{submission_id}":
                return ""
            return str(record.stderr_tail)

    def versus_previous(self, lg: League, submission_id: int) -> Any:
        return self._call(lg, "versus_previous", "rating", submission_id)

    def queue_state(self, lg: League) -> Any:
        return self._call(lg, "queue_state", "worker", )

    def start_final(self, lg: League, results_root: Path) -> str:
        return str(self._call(lg, "start_final", "final", results_root))

    def final_status(self, lg: League) -> Any:
        return self._call(lg, "final_status", "final")
