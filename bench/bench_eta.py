"""ETA error of a tournament's progress bar: counting games (before) against weighing each game
by its expected cost (`arena.competition.progress`, after).

Replays the stored games of a results folder in the order they were stored (the order they
finished): after each game, the elapsed time is its finished_at minus the first game's
started_at, the truth is the last game's finished_at minus that. The ETAs at 10 %, 50 % and
90 % of the games are compared with the truth:

- count, mean rate: elapsed x games left / games done (every game costs the mean so far);
- count, tqdm: games left / tqdm's smoothed rate (an exponential moving average of the last
  games' rate, smoothing 0.3: what the bar showed before);
- cost-weighted: `Progress.eta_s`.

A folder filled by several runs (resumed) has gaps between them that count as elapsed time.

    python -m bench eta                   # runs configs/quick.yaml into a temporary folder
    CXARENA_ETA_RESULTS=results/tournament python -m bench eta
    python -m bench.bench_eta results/tournament
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from arena.competition.progress import Progress, count_eta_s, record_key_and_prior
from arena.records import GameRecord

AT = (0.1, 0.5, 0.9)
TQDM_SMOOTHING = 0.3  # tqdm's default
ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Point:
    """The ETAs after `done` of `total` games, `elapsed_s` into the run, seconds."""

    done: int
    total: int
    elapsed_s: float
    truth_s: float
    count_s: float | None
    tqdm_s: float | None
    cost_s: float | None


def _t(stamp: str) -> float:
    return datetime.fromisoformat(stamp).timestamp()


def replay(records: list[GameRecord], at: tuple[float, ...] = AT) -> list[Point]:
    """The ETAs at the fractions `at` of the games, `records` in the order they finished."""
    start = min(_t(r.started_at) for r in records)
    end = max(_t(r.finished_at) for r in records)
    total = len(records)
    marks = {max(1, round(f * total)) for f in at}
    progress = Progress.plan(record_key_and_prior(r) for r in records)
    ema_dn = ema_dt = 0.0
    beta, calls, last_s = 1.0 - TQDM_SMOOTHING, 0, 0.0
    points = []
    for done, rec in enumerate(records, start=1):
        progress = progress.finish_record(record_key_and_prior(rec)[0], rec)
        now_s = _t(rec.finished_at) - start
        calls += 1
        ema_dn = beta * ema_dn + (1 - beta)
        ema_dt = beta * ema_dt + (1 - beta) * max(0.0, now_s - last_s)
        last_s = max(last_s, now_s)
        if done in marks:
            rate = ema_dn / ema_dt if ema_dt > 0 else None
            tqdm_s = None if not rate else (total - done) / rate
            points.append(Point(done, total, now_s, end - start - now_s,
                                count_eta_s(done, total, now_s), tqdm_s,
                                progress.eta_s(now_s)))
    return points


def _clock(seconds: float | None) -> str:
    if seconds is None:
        return "?"
    m, s = divmod(int(round(seconds)), 60)
    return f"{m}:{s:02d}"


def _err(eta: float | None, truth: float) -> str:
    if eta is None:
        return "?"
    return f"{100.0 * (eta - truth) / truth:+.0f} %" if truth > 0 else f"{eta:.0f} s"


def table(points: list[Point]) -> str:
    rows = ["| games done | elapsed | truth left | count, mean rate (error) | count, tqdm "
            "(error) | cost-weighted (error) |", "|---|---|---|---|---|---|"]
    for p in points:
        rows.append(
            f"| {p.done}/{p.total} ({100 * p.done / p.total:.0f} %) | {_clock(p.elapsed_s)} | "
            f"{_clock(p.truth_s)} | {_clock(p.count_s)} ({_err(p.count_s, p.truth_s)}) | "
            f"{_clock(p.tqdm_s)} ({_err(p.tqdm_s, p.truth_s)}) | "
            f"{_clock(p.cost_s)} ({_err(p.cost_s, p.truth_s)}) |")
    return "\n".join(rows)


def stored_records(results_dir: Path) -> list[GameRecord]:
    from arena.results.store import DB_FILE, ResultStore

    with ResultStore(results_dir / DB_FILE, create=False) as store:
        return [g.record for g in store.games() if g.record.started_at and g.record.finished_at]


def run_quick(into: Path) -> Path:
    """Play configs/quick.yaml into `into`; its results folder."""
    from arena.tournament.config import load_config
    from arena.tournament.run import run_tournament

    config = load_config(ROOT / "configs" / "quick.yaml")
    with open(os.devnull, "w") as devnull:
        run_tournament(config, into / "quick", quiet=True, out=devnull)
    return into / "quick"


def report(results_dir: Path, source: str) -> None:
    records = stored_records(results_dir)
    if not records:
        print(f"no timed games in {results_dir}\n")
        return
    boards = len({record_key_and_prior(r)[0] for r in records})
    print(f"{source}: {len(records)} games on {boards} boards, in the order they were stored\n")
    print(table(replay(records)) + "\n")


def main(argv: list[str] | None = None) -> None:
    print("## Tournament ETA: counting games vs weighing them by cost (bench_eta)\n")
    given = (argv[0] if argv else None) or os.environ.get("CXARENA_ETA_RESULTS")
    if given:
        report(Path(given), str(given))
        return
    with tempfile.TemporaryDirectory(prefix="cxarena-bench-eta-") as tmp:
        t0 = time.perf_counter()
        folder = run_quick(Path(tmp))
        report(folder, f"configs/quick.yaml, played now ({time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    main(sys.argv[1:])
