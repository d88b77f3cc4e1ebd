"""`HumanOtherGame`: a person against a bot in another game than Connect-X (Othello, Morris),
under the real referee through protocol v2. It is `arena.play.session.HumanGame` with the
game's rules in place of a `CXBoard`: the person's input is a move in the game's notation
(checked against the rules before it is sent), the events are `MovedText`, and the record is
stored like any other (`cxarena report`, `cxarena show`).
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from arena.entrants.specs import BotSpec
from arena.games import Game, GameError
from arena.limits import make_limits
from arena.play.seat import HUMAN
from arena.play.session import (
    _STORE_LOCK,
    _UNSAFE,
    DEFAULT_RESULTS,
    Entrant,
    Finished,
    GameSetup,
    HumanGame,
    IllegalColumn,
)
from arena.records import GameRecord
from arena.referee.referee import MatchSettings, Referee
from arena.results.store import DB_FILE, ResultStore

__all__ = ["GAME_SEAT_SPEC", "HumanOtherGame", "MovedText"]

#: the person's seat for protocol v2
GAME_SEAT_SPEC = BotSpec(text=HUMAN, module="arena.play.seat", cls="HumanGameSeat")


@dataclass(frozen=True)
class MovedText:
    """A legal move of another game, as the referee accepted it."""

    player: int  # 1 or 2
    text: str
    elapsed_ms: float
    by_human: bool
    ends_game: bool = False
    state: Any = None  # the game's state after the move


class HumanOtherGame(HumanGame):
    """A person against `entrant` in `game` (`setup` gives the time limit and who starts; its
    M, N, K are not used)."""

    def __init__(self, entrant: Entrant, game: Game, setup: GameSetup,
                 results_dir: Path | str | None = DEFAULT_RESULTS, seed: int | None = None,
                 log_dir: str | None = None,
                 on_event: Callable[[Any], None] | None = None) -> None:
        super().__init__(entrant, setup, results_dir, on_event=on_event, seed=seed,
                         log_dir=log_dir)
        self.game = game
        self.state: Any = game.initial_state()

    def human_to_move(self) -> bool:
        with self._lock:
            return (self.finished is None and not self._pending
                    and self.game.outcome(self.state) is None
                    and self.game.to_move(self.state) + 1 == self.setup.human)

    def check_move(self, text: str) -> str:
        """The move's text if it is legal now; else IllegalColumn with the reason."""
        text = text.strip()
        with self._lock:
            if self.finished is not None or self.game.outcome(self.state) is not None:
                raise IllegalColumn("the game is over")
            if self._pending or self.game.to_move(self.state) + 1 != self.setup.human:
                raise IllegalColumn(f"it is not your turn: {self.entrant.name} is thinking")
            try:
                move = self.game.parse_move(self.state, text)
            except GameError as e:
                raise IllegalColumn(str(e)) from None
            return self.game.move_to_text(self.state, move)

    def legal_texts(self) -> list[str]:
        with self._lock:
            return [self.game.move_to_text(self.state, m)
                    for m in self.game.legal_moves(self.state)]

    def play(self, text: object) -> int:
        move = self.check_move(str(text))
        with self._lock:
            self._pending = True
        self._outbox.put(f"move {move}\n")
        return 0

    def _on_move(self, player: int, column: Any, elapsed_ms: float) -> None:
        text = str(column)
        with self._lock:
            self.state = self.game.apply(self.state, self.game.parse_move(self.state, text))
            by_human = player == self.setup.human
            if by_human:
                self._pending = False
            ends = self.game.outcome(self.state) is not None
            after = self.state
        self._emit(MovedText(player, text, round(elapsed_ms, 3), by_human, ends,  # type: ignore[arg-type]
                             after))

    def _run(self) -> None:
        s = self.setup
        settings = MatchSettings(
            limits=make_limits(s.timeout_s, s.grace_s, s.startup_timeout_s,
                               s.memory_limit_mb or None, where="play"),
            fresh_process=True, log_dir=self._log_dir, overload_replays=0,
            unsandboxed=(GAME_SEAT_SPEC,))
        seat_options = {"socket": self._path, "token": self._token}
        bot, bot_options = self.entrant.spec, dict(self.entrant.options)
        if s.human_first:
            p1, p2, o1, o2 = GAME_SEAT_SPEC, bot, seat_options, bot_options
        else:
            p1, p2, o1, o2 = bot, GAME_SEAT_SPEC, bot_options, seat_options
        finished: Finished
        try:
            with Referee(settings) as referee:
                record = referee.play(p1, p2, 0, 0, 0, self.seed, o1, o2, untimed=(s.human,),
                                      on_move=self._on_move, game=self.game)
            record = self._tidy(record)
            record, store_error = self._store_other(record)
            finished = self._finish(record, record.game_id or None, store_error)
        except Exception as e:  # a harness failure: say so instead of hanging the interface
            finished = Finished(None, "error", f"The game stopped: {type(e).__name__}: {e}")
        with self._lock:
            self.finished = finished
        self._outbox.put(None)
        self._done.set()
        self._cleanup()
        self._emit(finished)

    def _store_other(self, record: GameRecord) -> tuple[GameRecord, str]:
        if self.results_dir is None:
            return record, ""
        n1, n2 = self._names()
        stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S")
        safe1, safe2 = (_UNSAFE.sub("_", n).strip("_") for n in (n1, n2))
        gid = f"{self.game.name}-play-{safe1}-{safe2}-{stamp}-{secrets.token_hex(3)}"
        try:
            with _STORE_LOCK:
                self.results_dir.mkdir(parents=True, exist_ok=True)
                with ResultStore(self.results_dir / DB_FILE) as store:
                    if store.get_meta("name") is None:
                        store.set_meta("name", self.results_dir.name)
                    labelled = record.labelled(game_id=gid, round=1, player1=n1, player2=n2)
                    store.add(labelled)
        except Exception as e:  # the game was played; say why it is not kept
            return record, f"could not store the game in {self.results_dir}: {e}"
        return labelled, ""
