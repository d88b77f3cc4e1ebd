"""`cxarena check-bot SPEC --game NAME`: the conformance check of a bot for another game than
Connect-X (Othello, Morris), through protocol v2 under the real referee.

`run_game_check` plays the bot against a random player of the game (`RandomGameOpponent`,
defined here so that arena imports no bot) with the bot moving first and second, with the
tournament's time limit, and reports in plain words what would cost it games: failing to start,
crashes (with the tail of its stderr), illegal moves, timeouts, and how close its answers came
to the limit. The Connect-X check is `arena.onboarding.conformance`.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from arena import defaults
from arena.entrants.specs import BotSpec, parse_spec
from arena.games import Game
from arena.games.player import GamePlayer
from arena.limits import make_limits
from arena.records import GameRecord
from arena.referee.referee import MatchSettings, Referee

__all__ = ["OPPONENT_SPEC", "GameCheckReport", "RandomGameOpponent", "run_game_check"]

OPPONENT_SPEC = "arena.onboarding.game_check:RandomGameOpponent"
#: share of the time limit above which the report warns that answers come close to it
CLOSE_SHARE = 0.8


class RandomGameOpponent(GamePlayer):
    """A random legal move of any game, seeded by the game's seed."""

    GAME = ""

    def init_player(self, game: Game, first: bool, timeout_s: float) -> None:
        self.game = game
        self.rng = random.Random(self.seed)

    def select_move(self, state: Any) -> Any:
        return self.rng.choice(list(self.game.legal_moves(state)))

    def player_name(self) -> str:
        return "random"


@dataclass(frozen=True)
class GameCheckReport:
    spec: str
    game: str
    timeout_s: float
    records: tuple[tuple[int, GameRecord], ...]  # (the bot's seat 1/2, record)

    @property
    def faults(self) -> list[tuple[int, GameRecord]]:
        return [(seat, r) for seat, r in self.records if r.offender == seat]

    @property
    def max_share(self) -> float:
        """The bot's slowest answer as a share of the limit."""
        times = [t for seat, r in self.records for t in r.played_times_ms[seat - 1]]
        return max(times, default=0.0) / (self.timeout_s * 1000.0)

    @property
    def passed(self) -> bool:
        return not self.faults

    def text(self) -> str:
        lines = []
        for seat, r in self.records:
            result = ("draw" if r.winner is None else "won" if r.winner == seat else "lost")
            lines.append(f"  {'first' if seat == 1 else 'second'}: {result} after "
                         f"{len(r.move_texts)} moves ({r.reason.value}"
                         f"{': ' + r.detail if r.detail else ''})")
            if r.offender == seat and r.stderr_tail:
                lines.extend("    | " + ln for ln in r.stderr_tail.splitlines()[-5:])
        verdict = "PASSED" if self.passed else f"FAILED: {len(self.faults)} game(s) lost by a fault"
        lines.append(f"{verdict}; slowest answer {100 * self.max_share:.0f} % of the "
                     f"{self.timeout_s:g} s limit")
        if self.passed and self.max_share > CLOSE_SHARE:
            lines.append(f"warning: answers came within {100 * (1 - self.max_share):.0f} % of "
                         f"the limit; on a busy machine they may be late")
        return "\n".join(lines)


def run_game_check(spec: str | BotSpec, game: Game, timeout_s: float = defaults.TIMEOUT_S,
                   seed: int = 1, isolation: str = defaults.ISOLATION,
                   memory_mb: int | None = defaults.MEMORY_LIMIT_MB,
                   max_tasks: int | None = defaults.MAX_TASKS) -> GameCheckReport:
    """Two games of `game` against a random player, the bot first then second."""
    bot = spec if isinstance(spec, BotSpec) else parse_spec(spec)
    opponent = parse_spec(OPPONENT_SPEC)
    limits = make_limits(timeout_s, defaults.GRACE_S, defaults.STARTUP_TIMEOUT_S,
                         memory_mb or None, where="check-bot", max_tasks=max_tasks or None)
    records = []
    with Referee(MatchSettings(limits=limits, isolation=isolation)) as referee:
        for seat in (1, 2):
            p1, p2 = (bot, opponent) if seat == 1 else (opponent, bot)
            rec = referee.play(p1, p2, 0, 0, 0, seed + seat, game=game,
                               game_id=f"check {seat}")
            records.append((seat, rec))
    return GameCheckReport(bot.text, game.label(), timeout_s, tuple(records))
