"""The account of a busy machine: one line, the same for every command that plays (issue 39).

From stored records only (standings are recomputed from stored games; so is this): how many
moves were answered past the deadline by the wall clock and stood because the machine kept the
bot waiting (`extra["excused"]`, written by the referee), how many games were played again for
an overloaded machine (`extra["overload"]`), and how many timeouts were charged, with those
charged after overloaded replays (`extra["charged_overloaded"]`) and those whose bot computed
less than its limit (the record's account of the late move, `extra["late_ms"]`: the rest of
the wall time was spent off the CPU, which the referee cannot tell from sleeping).
docs/protocol.md has the rule.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from arena.records import GameRecord, Reason

__all__ = ["LoadAccount", "busy_machine_section", "game_account", "late_move_figures",
           "load_account", "on_a_busy_machine", "timeout_games"]


@dataclass(frozen=True)
class LoadAccount:
    """What the machine's load did to a set of games."""

    games: int
    excused_moves: int  # late by the wall clock, in time once the machine's wait is off
    machine_ms: float  # the machine's wait taken off those moves, in all
    replayed_games: int  # games played again (their late moves were the machine's)
    replays: int
    timeouts: int  # timeouts charged
    after_replays: int  # of those, charged once no replay was left
    off_cpu: int  # of those, whose bot computed less than its limit during the late move

    def text(self) -> str:
        """One line: ``busy machine: ...``; the same words wherever games are played."""
        parts = [f"{self.excused_moves} late move{_s(self.excused_moves)} excused (the "
                 f"machine kept the bot waiting {self.machine_ms:.0f} ms in all)",
                 f"{self.replayed_games} game{_s(self.replayed_games)} played again "
                 f"({self.replays} replay{_s(self.replays)})",
                 f"{self.timeouts} timeout{_s(self.timeouts)} charged"]
        why = []
        if self.after_replays:
            why.append(f"{self.after_replays} after overloaded replays")
        if self.off_cpu:
            why.append(f"{self.off_cpu} whose bot computed less than its limit (off the CPU "
                       f"the rest: see each game's detail)")
        if why:
            parts[-1] += " (" + "; ".join(why) + ")"
        return f"busy machine: {', '.join(parts)}, in {self.games} game{_s(self.games)}"


def _s(n: int) -> str:
    return "" if n == 1 else "s"


def load_account(records: Iterable[GameRecord], limit_s: float | None = None) -> LoadAccount:
    """The account of `records`; `limit_s` (the per-move limit) lets it count the charged
    timeouts whose bot computed less than that."""
    games = excused = replayed = replays = timeouts = after = off_cpu = 0
    machine_ms = 0.0
    for r in records:
        games += 1
        moves = r.extra.get("excused") or []
        excused += len(moves)
        machine_ms += sum(float(m.get("machine_ms", 0.0)) for m in moves)
        incidents = r.extra.get("overload") or []
        replays += len(incidents)
        replayed += bool(incidents)
        if r.reason is Reason.TIMEOUT and r.is_fault:
            timeouts += 1
            after += "charged_overloaded" in r.extra
            late = r.extra.get("late_ms")
            if limit_s is not None and late is not None and late["cpu"] < limit_s * 1000:
                off_cpu += 1
    return LoadAccount(games, excused, machine_ms, replayed, replays, timeouts, after, off_cpu)


def game_account(r: GameRecord, limit_s: float | None = None) -> str:
    """The same account for one game (the report's viewer, `show`, a league's game page):
    ``busy machine: 2 late moves excused (the machine kept the bot waiting 45 ms); played
    again once``; "" when the machine's load touched nothing of it. `limit_s` (the per-move
    limit; the record's own when None) lets it say that a charged timeout's bot computed less
    than its limit."""
    parts = []
    moves = r.extra.get("excused") or []
    if moves:
        ms = sum(float(m.get("machine_ms", 0.0)) for m in moves)
        parts.append(f"{len(moves)} late move{_s(len(moves))} excused (the machine kept the "
                     f"bot waiting {ms:.0f} ms)")
    incidents = r.extra.get("overload") or []
    if incidents:
        parts.append("played again once" if len(incidents) == 1
                     else f"played again {len(incidents)} times")
    if r.reason is Reason.TIMEOUT and r.is_fault:
        limit_s = limit_s if limit_s is not None else r.timeout_s
        late = r.extra.get("late_ms")
        if "charged_overloaded" in r.extra:
            n = int(r.extra["charged_overloaded"])
            parts.append(f"the timeout was charged after {n} overloaded replay{_s(n)}")
        elif limit_s is not None and late is not None and late["cpu"] < limit_s * 1000:
            parts.append(f"the timeout was charged though the bot computed {late['cpu']:.0f} "
                         f"ms of its {limit_s * 1000:.0f} ms limit (off the CPU the rest)")
    return "busy machine: " + "; ".join(parts) if parts else ""


def on_a_busy_machine(r: GameRecord, limit_s: float | None) -> bool:
    """A game decided by a timeout charged on a busy machine: after overloaded replays, or
    whose bot computed less than its limit during the late move."""
    if r.reason is not Reason.TIMEOUT or not r.is_fault:
        return False
    if "charged_overloaded" in r.extra:
        return True
    late = r.extra.get("late_ms")
    return limit_s is not None and late is not None and late["cpu"] < limit_s * 1000


def timeout_games(records: Iterable[GameRecord]) -> list[GameRecord]:
    """Every game decided by a timeout charged to a bot (issue 49: the teacher sees each)."""
    return [r for r in records if r.reason is Reason.TIMEOUT and r.is_fault]


def late_move_figures(r: GameRecord) -> tuple[str, str, str]:
    """A timeout's late move as (computed, waited for a CPU, off the CPU) in ms, from its
    record (`extra["late_ms"]`); dashes where the record does not say."""
    late = r.extra.get("late_ms")
    if not late:
        return "-", "-", "-"
    elapsed, cpu, wait = (float(late.get(k, 0.0)) for k in ("elapsed", "cpu", "cpu_wait"))
    return f"{cpu:.1f}", f"{wait:.1f}", f"{max(0.0, elapsed - cpu - wait):.1f}"


def busy_machine_section(records: Iterable[GameRecord], limit_s: float | None) -> str:
    """A markdown section for standings.md: the account, and every game decided by a timeout
    with its late move's account (computed, waited for a CPU, off the CPU), marking those
    charged on a busy machine (after overloaded replays, or whose bot computed less than its
    limit: the final's standings note them); "" when the machine's load touched no game and
    no game was decided by a timeout."""
    records = list(records)
    account = load_account(records, limit_s)
    if not (account.excused_moves or account.replays or account.timeouts):
        return ""
    decided = timeout_games(records)
    text = f"\n## Busy machine\n\n{account.text()}.\n"
    if decided:
        text += ("\nGames decided by a timeout, each with its late move's account (ms); "
                 "\"busy\" marks those charged on a busy machine (after overloaded replays, or "
                 "whose bot computed less than its limit during the late move):\n\n"
                 "| game | charged to | move | computed | waited for a CPU | off the CPU | "
                 "replays | busy | detail |\n|---|---|---|---|---|---|---|---|---|\n")
        for r in decided:
            labels = (r.player1 or r.p1, r.player2 or r.p2)
            who = labels[r.offender - 1] if r.offender in (1, 2) else "?"
            detail = r.detail[:400].replace("|", "\\|").replace("\n", " ")
            cpu, wait, off = late_move_figures(r)
            busy = "yes" if on_a_busy_machine(r, limit_s) else ""
            ply = r.extra.get("fault_ply", "-")
            text += (f"| {r.game_id or '-'} | {_cell(who or '?')} | {ply} "
                     f"| {cpu} | {wait} | {off} | {len(r.extra.get('overload') or [])} | {busy} "
                     f"| {detail} |\n")
    return text


def _cell(text: str) -> str:
    return text[:80].replace("|", "\\|").replace("\n", " ")
