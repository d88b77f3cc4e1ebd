"""The counts of issue 47 ("one core, finished"), kept: the referee's settings are built in one
place from validated settings, there is one `score_to_elo` and one normal CDF (the stdlib's),
the league reaches the tournament front end in one module, every SQL statement of the league
is in `arena/league/db.py`, and the Connect-X special cases outside its own folder do not grow.
Each count is read from the source, so a copy that comes back fails here."""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

ARENA = Path(__file__).resolve().parent.parent / "arena"
CONNECTX = ARENA / "games" / "connectx"
LEAGUE = ARENA / "league"
#: a statement run on a sqlite connection or cursor
_SQL_CALL = re.compile(r"\.execute(?:many|script)?\(")

#: the Connect-X branches outside arena/games/connectx (issue 47's target: at most 3): none,
#: the configs ask the game (`Game.BOARD_PARAMS`, `COURSE_BOTS`, `REFERENCE_BOTS`)
IS_CONNECTX_NOW = 0
#: where "is the game played on boards?" is asked outside competition/settings.py (whose
#: `variant_games` turns boards or parameter sets into games): the keys a tournament file must
#: have (boards) or may not have (opening files), and a league.yaml's board-set keys
TAKES_BOARDS_NOW = 3


@functools.cache
def _trees() -> list[tuple[Path, ast.Module]]:
    return [(p, ast.parse(p.read_text(encoding="utf-8"))) for p in sorted(ARENA.rglob("*.py"))]


def _calls(name: str) -> list[str]:
    """Where `name(...)` is called in arena/ (file:line)."""
    out = []
    for path, tree in _trees():
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                f = node.func
                called = f.id if isinstance(f, ast.Name) else f.attr if isinstance(
                    f, ast.Attribute) else ""
                if called == name:
                    out.append(f"{path.relative_to(ARENA)}:{node.lineno}")
    return out


def _defined(name: str) -> list[str]:
    return [f"{p.relative_to(ARENA)}:{n.lineno}" for p, tree in _trees() for n in ast.walk(tree)
            if isinstance(n, ast.FunctionDef) and n.name == name]


def test_the_referees_settings_are_built_in_one_place() -> None:
    built = [c for c in _calls("MatchSettings") if not c.startswith("referee/")]
    assert built == [c for c in built if c.startswith("competition/settings.py")], built
    assert 1 <= len(built) <= 2, built


def test_one_score_to_elo_and_one_normal_cdf() -> None:
    assert _defined("score_to_elo") == [d for d in _defined("score_to_elo")
                                        if d.startswith("results/stats.py")]
    assert len(_defined("score_to_elo")) == 1
    erf = _calls("erf")
    assert erf == [], f"a normal CDF by hand (use statistics.NormalDist): {erf}"


def test_the_league_imports_the_tournament_front_end_in_one_place() -> None:
    found = []
    for path, tree in _trees():
        rel = path.relative_to(ARENA)
        if rel.parts[0] not in ("league", "similarity"):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
                    "arena.tournament") and rel.parts[0] == "league":
                found.append(f"{rel}:{node.lineno}")
    assert len(found) <= 1, found


def test_connectx_special_cases_outside_its_folder_do_not_grow() -> None:
    found = [f"{p.relative_to(ARENA)}:{i}" for p in sorted(ARENA.rglob("*.py"))
             if CONNECTX not in p.parents
             for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
             if "is_connectx" in line]
    assert len(found) <= IS_CONNECTX_NOW, found


def test_the_boards_question_is_asked_in_few_places() -> None:
    """A renamed `is_connectx` counts the same: the boards-or-parameter-sets question stays
    in `competition/settings.py` but for the keys of a file."""
    settings = ARENA / "competition" / "settings.py"
    found = [f"{p.relative_to(ARENA)}:{i}" for p in sorted(ARENA.rglob("*.py"))
             if ARENA / "games" not in p.parents and p != settings  # the games define it
             for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
             if "takes_boards" in line or "BOARD_PARAMS" in line]
    assert len(found) <= TAKES_BOARDS_NOW, found


def _sql_calls(path: Path) -> list[str]:
    """Where `path` runs SQL (file:line, relative to arena/)."""
    return [f"{path.relative_to(ARENA)}:{i}"
            for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
            if _SQL_CALL.search(line)]


def test_every_league_sql_statement_is_in_db_py() -> None:
    """The league's SQL lives in `League` (arena/league/db.py); the other modules call its
    methods, so a statement that comes back elsewhere fails here."""
    db = LEAGUE / "db.py"
    outside = [c for p in sorted(LEAGUE.rglob("*.py")) if p != db for c in _sql_calls(p)]
    assert outside == [], f"SQL outside arena/league/db.py (make it a League method): {outside}"
    assert _sql_calls(db), "the pattern finds no statement in db.py: it would miss them anywhere"


#: the tables a league's database holds (its schema in db.py); `similarity_*` are the
#: similarity's own store (arena/similarity keeps their statements), not the league's
_LEAGUE_TABLES = sorted(
    set(re.findall(r"CREATE TABLE IF NOT EXISTS (\w+)", (LEAGUE / "db.py").read_text(
        encoding="utf-8"))) - {"similarity_answers"})


def _league_statements(tree: ast.Module) -> list[int]:
    """The lines of `tree`'s SQL text (any string, f-string parts too) that reads or writes a
    league table: ``FROM``, ``JOIN``, ``INTO``, ``UPDATE`` or ``TABLE`` then its name."""
    names = "|".join(_LEAGUE_TABLES)
    sql = re.compile(rf"\b(?:FROM|JOIN|INTO|UPDATE|TABLE)\s+(?:IF NOT EXISTS\s+)?(?:{names})\b")
    return sorted({n.lineno for n in ast.walk(tree) if isinstance(n, ast.Constant)
                   and isinstance(n.value, str) and sql.search(n.value)})


def test_no_league_sql_outside_the_league() -> None:
    """Outside arena/league (and the results store, whose own `games` and `meta` tables share
    the names), no module runs SQL on a league's tables: the similarity reads the league's
    games and checks through `League` and `LeagueGames` methods."""
    outside = [f"{p.relative_to(ARENA)}:{line}" for p, tree in _trees()
               if not p.is_relative_to(LEAGUE) and not p.is_relative_to(ARENA / "results")
               for line in _league_statements(tree)]
    assert outside == [], f"league SQL outside arena/league/db.py (make it a method): {outside}"
    db = ast.parse((LEAGUE / "db.py").read_text(encoding="utf-8"))
    assert len(_league_statements(db)) > 20, "the pattern misses the statements of db.py"
    assert {"games", "game_records", "submissions"} <= set(_LEAGUE_TABLES), _LEAGUE_TABLES
