"""Time limits that fit the entrants (issue 40, point 6): a Connect-X league that takes Java
bots (`java: true`, the default) needs a whole number of seconds per move (CXPlayer's
timeout_in_secs is an int), refused at `league init` with the reason; a league of Python bots
only says `java: false`; a Java upload a league cannot play is refused at once, in words a
student can act on, not queued to fail its check with "(pass --time)"."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.cli import main
from arena.league import League, UploadError

BASE = "boards: [[4, 4, 3]]\nreference_bots: [L0]\nisolation: false\n"
JAVA = [("MyPlayer.java", b"package connectx.p; public class MyPlayer {}\n")]


def test_init_refuses_a_fraction_of_a_second_when_java_is_allowed(
        tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    cfg = tmp_path / "league.yaml"
    cfg.write_text(BASE + "timeout_s: 0.5\n")
    assert main(["league", "init", str(tmp_path / "lg"), "--config", str(cfg)]) == 2
    err = capsys.readouterr().err
    assert "whole number of seconds" in err and "java: false" in err
    assert not (tmp_path / "lg").exists()
    cfg.write_text(BASE + "timeout_s: 0.5\njava: false\n")
    assert main(["league", "init", str(tmp_path / "lg"), "--config", str(cfg)]) == 0
    cfg.write_text(BASE + "timeout_s: 2\n")
    assert main(["league", "init", str(tmp_path / "lg2"), "--config", str(cfg)]) == 0


def test_a_java_upload_the_league_cannot_play_is_refused_at_once(tmp_path: Path) -> None:
    cfg = tmp_path / "league.yaml"
    cfg.write_text(BASE + "timeout_s: 0.5\njava: false\n")
    lg = League.init(tmp_path / "lg", cfg)
    lg.add_user("ann")
    with pytest.raises(UploadError, match="takes no Java bots"):
        lg.submit("ann", JAVA)
    lg.conn.close()
    cfg.write_text(BASE + "timeout_s: 0.5\n")  # made through the API: no init refusal
    lg = League.init(tmp_path / "lg2", cfg)
    lg.add_user("ann")
    with pytest.raises(UploadError, match="whole seconds"):
        lg.submit("ann", JAVA)
    assert lg.submissions("ann") == []
    lg.conn.close()


def test_the_shipped_config_uses_whole_seconds() -> None:
    from arena.league.config import java_time_problem, parse_config

    root = Path(__file__).resolve().parents[2]
    cfg = parse_config((root / "configs" / "league.yaml").read_text())
    assert cfg.java and java_time_problem(cfg) == ""
