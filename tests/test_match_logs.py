"""`cxarena match` without --log-dir keeps only the bot logs of the last KEEP_MATCH_LOGS matches
in the temp dir (issue: 120 folders after one day)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from arena import defaults


def test_old_match_logs_are_removed_and_the_newest_kept(tmp_path: Path) -> None:
    old = []
    for i in range(defaults.KEEP_MATCH_LOGS + 5):
        d = tmp_path / f"cxarena-match-logs-old{i:02d}"
        d.mkdir()
        (d / "bot.log").write_text("old\n")
        stamp = time.time() - 3600 + i  # old00 is the oldest
        os.utime(d, (stamp, stamp))
        old.append(d)
    other = tmp_path / "someone-elses-folder"
    other.mkdir()
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    done = subprocess.run([sys.executable, "-m", "arena", "match", "L0", "L0", "--board", "4",
                           "4", "3", "--time", "0.5", "--games", "1", "--isolation", "none"],
                          capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    left = sorted(p.name for p in tmp_path.glob("cxarena-match-logs-*"))
    assert len(left) == defaults.KEEP_MATCH_LOGS
    newest = [p for p in left if not p.startswith("cxarena-match-logs-old")]
    assert len(newest) == 1 and newest[0] in done.stdout + done.stderr  # the match names it
    kept_old = sorted(p.name for p in old if p.exists())
    assert kept_old == [p.name for p in old[-(defaults.KEEP_MATCH_LOGS - 1):]]
    assert other.is_dir()
    help_text = subprocess.run([sys.executable, "-m", "arena", "match", "--help"],
                               capture_output=True, text=True).stdout
    assert f"last {defaults.KEEP_MATCH_LOGS}" in " ".join(help_text.split())
