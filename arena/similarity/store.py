"""The last similarity run of a league, kept in its folder (DIR/similarity.json).

Play similarity takes minutes of games, so the admin page does not run it: `cxarena league
similarity DIR` does, and keeps what it found here (`save`); the admin page lists it beside the
code scores it computes itself, and the side-by-side view of a pair draws the positions where
the two versions agreed (`load`, `StoredRun.play_between`). Only the last run is kept; its pairs
are found again by the league's submission ids, so a version uploaded since has no stored play
result until the next run.

Each version's answers are kept apart from this file, once per version
(`arena.similarity.answers`, asked in the server's background): the admin pages judge the
current versions' pairs from those, and take from this file only what they do not cover (the
known bots of `--known`, versions replaced since).

The file is the league's own (written by the admin's command, read only by the admin pages),
but it is still read with care: a file that does not parse is as good as none.
"""

from __future__ import annotations

import dataclasses
import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.similarity.code import CodeMatch, Region
from arena.similarity.play import Answers, PlayMatch, Position, Reference
from arena.similarity.report import Pair, SimilarityReport, boards_words

__all__ = ["STORE_NAME", "Listing", "StoredRun", "listing", "load", "save", "store_path"]

#: the file of the last run, in the league's folder
STORE_NAME = "similarity.json"
#: the format's version (a file of another is ignored)
FORMAT = 1


def store_path(directory: str | Path) -> Path:
    return Path(directory) / STORE_NAME


@dataclass
class StoredRun:
    """A similarity run as kept: when, how (board, time per move, positions), the band of
    unrelated pairs, each version's answers, and every pair with both scores."""

    made_at: float
    board: tuple[int, int, int]
    time_s: float
    positions: tuple[Position, ...]
    reference: Reference | None
    ids: dict[str, int]
    answers: dict[str, Answers]
    pairs: list[Pair]
    notes: list[str] = field(default_factory=list)
    #: made from the answers stored per version (`arena.similarity.answers`), not read from
    #: DIR/similarity.json; `waiting`: current versions with no stored answers yet
    stored: bool = False
    waiting: int = 0

    @property
    def boards_text(self) -> str:
        """The boards of the run's positions in words (`report.boards_words`)."""
        boards = list(dict.fromkeys(p.board_or(self.board) for p in self.positions))
        return boards_words(boards or [self.board])

    @property
    def played(self) -> bool:
        """Whether the run asked the bots for moves (else it holds code scores only)."""
        return self.reference is not None

    def labels_of(self, ids: set[int]) -> dict[int, str]:
        """Submission id -> its label in this run, for the ids it compared."""
        return {sid: label for label, sid in self.ids.items() if sid in ids}

    def play_between(self, id_a: int, id_b: int) -> PlayMatch | None:
        """The stored play result of two versions (by submission id), side `a` first; None:
        the run did not play that pair."""
        for p in self.pairs:
            if p.play is None:
                continue
            got = (self.ids.get(p.a), self.ids.get(p.b))
            if got == (id_a, id_b):
                return p.play
            if got == (id_b, id_a):
                return swapped(p.play)
        return None


def swapped(m: PlayMatch) -> PlayMatch:
    """A play result seen from the other side (a and b exchanged)."""
    return dataclasses.replace(m, a=m.b, b=m.a, self_a=m.self_b, self_b=m.self_a)


def _code_dict(c: CodeMatch | None) -> dict[str, Any] | None:
    if c is None:
        return None
    return {"score": c.score, "share_a": c.share_a, "share_b": c.share_b,
            "overlap": c.overlap, "note": c.note, "flagged": c.flagged,
            "regions_a": [[r.file, r.first, r.last] for r in c.regions_a],
            "regions_b": [[r.file, r.first, r.last] for r in c.regions_b]}


def _play_dict(q: PlayMatch | None) -> dict[str, Any] | None:
    if q is None:
        return None
    return {"share": q.share, "z": q.z, "self_a": q.self_a, "self_b": q.self_b,
            "positions": q.positions, "agreed": list(q.agreed), "flagged": q.flagged,
            "why": q.why, "note": q.note}


def save(directory: str | Path, report: SimilarityReport) -> Path:
    """Keep `report` as the league's last run in DIR/similarity.json (written whole, by a
    rename: a reader sees the last run or the one before, never half of one)."""
    r = report.reference
    data = {
        "format": FORMAT,
        "made_at": time.time(),
        "board": list(report.board),
        "time_s": report.time_s,
        "positions": [[list(p.moves), list(p.best)] + ([] if p.board is None else [list(p.board)])
                      for p in report.position_set],
        "reference": None if r is None else {"shares": list(r.shares),
                                             "random_bots": list(r.random_bots)},
        "ids": dict(report.ids),
        "answers": {label: {"first": list(a.first), "again": list(a.again),
                            "seconds": a.seconds, "faults": a.faults}
                    for label, a in report.answers.items()},
        "pairs": [{"a": p.a, "b": p.b, "code": _code_dict(p.code), "play": _play_dict(p.play)}
                  for p in report.pairs],
        "notes": list(report.notes),
    }
    path = store_path(directory)
    tmp = path.with_name(f".{path.name}.{os.getpid()}")
    tmp.write_text(json.dumps(data, indent=1), encoding="utf-8")
    os.replace(tmp, path)
    return path


def _position(values: Any) -> Position:
    """A kept position: [moves, best] or [moves, best, board] (a run of several boards)."""
    moves, best, *board = values
    where = tuple(int(x) for x in board[0]) if board else None
    return Position(tuple(int(c) for c in moves), tuple(int(c) for c in best),
                    (where[0], where[1], where[2]) if where else None)


def _moves(values: Any) -> tuple[int | None, ...]:
    return tuple(None if v is None else int(v) for v in values)


def _code(a: str, b: str, d: dict[str, Any] | None) -> CodeMatch | None:
    if d is None:
        return None
    return CodeMatch(a, b, float(d["score"]), float(d["share_a"]), float(d["share_b"]),
                     int(d["overlap"]),
                     tuple(Region(str(f), int(x), int(y)) for f, x, y in d["regions_a"]),
                     tuple(Region(str(f), int(x), int(y)) for f, x, y in d["regions_b"]),
                     note=str(d["note"]), flagged=bool(d["flagged"]))


def _opt(x: Any) -> float | None:
    return None if x is None else float(x)


def _play(a: str, b: str, d: dict[str, Any] | None) -> PlayMatch | None:
    if d is None:
        return None
    return PlayMatch(a, b, _opt(d["share"]), float(d["z"]), _opt(d["self_a"]),
                     _opt(d["self_b"]), int(d["positions"]),
                     tuple(int(i) for i in d["agreed"]), bool(d["flagged"]), str(d["why"]),
                     str(d["note"]))


def load(directory: str | Path) -> StoredRun | None:
    """The league's last run (None: none kept, or a file that does not parse)."""
    try:
        data = json.loads(store_path(directory).read_text(encoding="utf-8"))
        if data.get("format") != FORMAT:
            return None
        ref = data["reference"]
        M, N, K = (int(x) for x in data["board"])
        return StoredRun(
            made_at=float(data["made_at"]),
            board=(M, N, K),
            time_s=float(data["time_s"]),
            positions=tuple(_position(p) for p in data["positions"]),
            reference=None if ref is None else Reference(
                tuple(float(x) for x in ref["shares"]),
                tuple(str(x) for x in ref["random_bots"])),
            ids={str(k): int(v) for k, v in data["ids"].items()},
            answers={str(k): Answers(str(k), _moves(v["first"]), _moves(v["again"]),
                                     float(v["seconds"]), int(v["faults"]))
                     for k, v in data["answers"].items()},
            pairs=[Pair(str(p["a"]), str(p["b"]), _code(p["a"], p["b"], p["code"]),
                        _play(p["a"], p["b"], p["play"])) for p in data["pairs"]],
            notes=[str(n) for n in data.get("notes", [])],
        )
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


@dataclass
class Listing:
    """What the admin page lists: the current versions' pairs (code scored now, play from
    the last run when it played the same two versions), flagged first; the last run's other
    pairs (known bots, versions since replaced); and the run itself (None: none kept)."""

    pairs: list[Pair]
    others: list[Pair]
    run: StoredRun | None


def listing(report: SimilarityReport, run: StoredRun | None) -> Listing:
    """`report` (code only, of the current versions) with the play results of `run`."""
    if run is None:
        return Listing(list(report.pairs), [], None)
    pairs, listed = [], set()
    for p in report.pairs:
        ia, ib = report.ids.get(p.a), report.ids.get(p.b)
        play = run.play_between(ia, ib) if ia is not None and ib is not None else None
        listed.add(frozenset({ia, ib}))
        pairs.append(Pair(p.a, p.b, p.code, play))
    pairs.sort(key=Pair.sort_key)
    others = [p for p in run.pairs if None in (run.ids.get(p.a), run.ids.get(p.b))
              or frozenset({run.ids.get(p.a), run.ids.get(p.b)}) not in listed]
    others.sort(key=Pair.sort_key)
    return Listing(pairs, others, run)
