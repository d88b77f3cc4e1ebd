"""A league worker plays many games, and the server runs conformance checks, without piling up
zombie children: every process of a bot that comes back to them (a subreaper: bwrap's init
inside the sandbox once bwrap has ended) is reaped. Each runs in a process of its own (as
`run_worker` and `check_next` run in the server), which counts its zombie children at the
end."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from arena.league import League
from arena.referee import sandbox

ROOT = Path(__file__).resolve().parents[2]
L0 = (ROOT / "players" / "L0.py").read_bytes()
PAIRS = 15  # 30 games

_WHY_NOT = sandbox.probe()

ZOMBIES = textwrap.dedent("""\
    import os


    def zombies():
        me = os.getpid()
        found = []
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                with open(f"/proc/{entry}/stat") as f:
                    stat = f.read()
            except OSError:
                continue
            fields = stat.rsplit(")", 1)[1].split()
            if fields[0] == "Z" and int(fields[1]) == me:
                found.append(stat[stat.index("(") + 1:stat.rindex(")")])
        return found
    """)

WORKER = ZOMBIES + textwrap.dedent("""\
    import sys
    from pathlib import Path

    from arena.league.feed import run_worker

    stored = run_worker(Path(sys.argv[1]), None, max_pairs=int(sys.argv[2]))
    print(stored, len(zombies()), " ".join(zombies()))
    """)

CHECKS = ZOMBIES + textwrap.dedent("""\
    import sys
    from pathlib import Path

    from arena.league import League
    from arena.league.checks import check_next

    lg = League.open(Path(sys.argv[1]))
    checked = 0
    while check_next(lg) is not None:
        checked += 1
    print(checked, len(zombies()), " ".join(zombies()))
    """)


def _league(tmp_path: Path, isolation: bool) -> Path:
    cfg = tmp_path / "league.yaml"
    cfg.write_text(f"board_set: [[4, 4, 3]]\ntimeout_s: 0.5\npairs_per_submission: {PAIRS}\n"
                   f"max_pairs_per_submission: {PAIRS}\nreference_bots: [L0]\n"
                   f"isolation: {'true' if isolation else 'false'}\nopening_plies: 0\n")
    lg = League.init(tmp_path / "lg", cfg)
    lg.add_user("ann")
    lg.submit("ann", [("bot.py", L0)])
    with lg.conn:  # the check is tested elsewhere
        lg.conn.execute("UPDATE submissions SET status='rating'")
    lg.conn.close()
    return tmp_path / "lg"


def _zombies_after_games(tmp_path: Path, isolation: bool) -> tuple[int, int, str]:
    d = _league(tmp_path, isolation)
    script = tmp_path / "worker.py"
    script.write_text(WORKER)
    done = subprocess.run([sys.executable, str(script), str(d), str(PAIRS)], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    stored, count, *names = done.stdout.split()
    return int(stored), int(count), " ".join(names)


def test_no_zombies_after_30_unsandboxed_games(tmp_path: Path) -> None:
    stored, zombies, names = _zombies_after_games(tmp_path, isolation=False)
    assert stored == PAIRS
    assert zombies == 0, names


@pytest.mark.skipif(_WHY_NOT is not None, reason=f"no sandbox on this machine: {_WHY_NOT}")
def test_no_zombies_after_30_sandboxed_games(tmp_path: Path) -> None:
    stored, zombies, names = _zombies_after_games(tmp_path, isolation=True)
    assert stored == PAIRS
    assert zombies == 0, names


@pytest.mark.skipif(_WHY_NOT is not None, reason=f"no sandbox on this machine: {_WHY_NOT}")
def test_no_zombies_after_conformance_checks(tmp_path: Path) -> None:
    cfg = tmp_path / "league.yaml"
    cfg.write_text("board_set: [[4, 4, 3]]\nreference_bots: [L0]\n")
    lg = League.init(tmp_path / "lg", cfg)
    lg.add_user("ann")
    for i in range(4):
        lg.submit("ann", [("bot.py", L0 + f"\n# version {i}\n".encode())])
    lg.conn.close()
    script = tmp_path / "checks.py"
    script.write_text(CHECKS)
    done = subprocess.run([sys.executable, str(script), str(tmp_path / "lg")], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    checked, zombies, *names = done.stdout.split()
    assert int(checked) == 4
    assert int(zombies) == 0, names
