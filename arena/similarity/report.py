"""Both similarities of a set of bots, pair by pair: what `cxarena similarity` prints and what
the league's admin page shows (`league_similarity`).

Every pair of the SPECs is compared, and every SPEC with every known bot (`known_bots`: each
file or folder of a folder of earlier years' bots). Code similarity needs sources; play
similarity needs positions (`arena.similarity.positions`: a board's published set, or a
league's own games) on one board or several (`boards`: each board's share of the positions,
compared one board after the other) and asks the built-ins (`REFERENCE_BOTS`) too, for the
band of unrelated pairs. Flagged pairs come first.
"""

from __future__ import annotations

import csv
import functools
import io
import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.entrants.specs import SpecError
from arena.similarity.code import (
    LANGUAGES,
    Code,
    CodeMatch,
    SourceFile,
    compare_code,
    fingerprint,
    sources_in,
    sources_of_spec,
    unreadable,
)
from arena.similarity.play import (
    MOVE_TIME_S,
    REFERENCE_BOTS,
    Answers,
    PlayMatch,
    Position,
    Reference,
    answers_of,
    judge,
    load_positions,
    positions_path,
)
from arena.similarity.positions import Board, board_count, published

__all__ = ["Pair", "SimilarityReport", "compare", "current_versions", "known_bots"]

#: positions asked by default (of the board's published set)
POSITIONS = 60


@dataclass(frozen=True)
class Pair:
    """Two bots compared: their code and their play (None: not compared, see the notes)."""

    a: str
    b: str
    code: CodeMatch | None
    play: PlayMatch | None

    @property
    def flagged(self) -> bool:
        return bool((self.code and self.code.flagged) or (self.play and self.play.flagged))

    def sort_key(self) -> tuple[int, float, float]:
        code = self.code.score if self.code and self.code.scored else 0.0
        play = self.play.z if self.play and self.play.scored else -99.0
        return (0 if self.flagged else 1, -code, -play)


@dataclass
class SimilarityReport:
    pairs: list[Pair]
    reference: Reference | None = None
    answers: dict[str, Answers] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    board: tuple[int, int, int] = (6, 7, 4)
    positions: int = 0
    time_s: float = MOVE_TIME_S
    #: the positions asked (`positions` of them), for the positions where a pair agreed
    position_set: tuple[Position, ...] = ()
    #: label -> the league's submission id of that version (a league's report only)
    ids: dict[str, int] = field(default_factory=dict)

    @property
    def flagged(self) -> list[Pair]:
        return [p for p in self.pairs if p.flagged]

    @property
    def boards(self) -> list[Board]:
        """The boards of the positions asked, in order (the report's board without them)."""
        got = list(dict.fromkeys(p.board_or(self.board) for p in self.position_set))
        return got or [self.board]

    def boards_text(self) -> str:
        return boards_words(self.boards)

    def lines(self) -> list[str]:
        """The report in words: flagged pairs first, each with both scores."""
        out = []
        if self.reference is not None:
            r = self.reference
            out.append(f"play: {self.positions} positions of {self.boards_text()} at "
                       f"{self.time_s:g} s a "
                       f"move; unrelated pairs (built-ins) agree {r.mean:.2f} (median, spread "
                       f"{r.sd:.2f}, {len(r.shares)} pairs): flagged from {r.threshold:.2f}")
        out.extend(f"note: {n}" for n in self.notes)
        flagged = self.flagged
        out.append(f"{len(flagged)} flagged pair(s) of {len(self.pairs)}"
                   + (" (a flag asks for a conversation, not a verdict)" if flagged else ""))
        for p in self.pairs:
            out.append(("FLAG " if p.flagged else "     ") + f"{p.a}  ~  {p.b}")
            out.append(f"       code: {_code_text(p.code)}")
            out.append(f"       play: {_play_text(p.play)}")
            if p.flagged and p.code is not None and p.code.flagged:
                out.append("       matched: " + ", ".join(map(str, p.code.regions_a[:6]))
                           + "  <->  " + ", ".join(map(str, p.code.regions_b[:6])))
        return out

    def csv(self) -> str:
        buf = io.StringIO()
        w = csv.writer(buf)
        w.writerow(["a", "b", "flagged", "code_score", "code_share_a", "code_share_b",
                    "code_flagged", "play_share", "play_z", "self_a", "self_b", "play_flagged",
                    "why"])
        for p in self.pairs:
            c, q = p.code, p.play
            w.writerow([p.a, p.b, int(p.flagged),
                        "" if c is None or not c.scored else c.score,
                        "" if c is None or not c.scored else c.share_a,
                        "" if c is None or not c.scored else c.share_b,
                        "" if c is None else int(c.flagged),
                        "" if q is None or q.share is None else q.share,
                        "" if q is None or not q.scored else q.z,
                        "" if q is None or q.self_a is None else round(q.self_a, 4),
                        "" if q is None or q.self_b is None else round(q.self_b, 4),
                        "" if q is None else int(q.flagged),
                        "; ".join(x for x in ((c.note if c else ""), (q.why if q else ""),
                                              (q.note if q else "")) if x)])
        return buf.getvalue()


def _code_text(c: CodeMatch | None) -> str:
    if c is None:
        return "not compared"
    if not c.scored:
        return c.note
    return (f"{c.score:.2f} (shares {c.share_a:.2f} / {c.share_b:.2f}, {c.overlap} matched "
            f"chars{', flagged' if c.flagged else ''})")


def _play_text(q: PlayMatch | None) -> str:
    if q is None:
        return "not compared"
    if not q.scored:
        return q.note
    selves = "/".join("-" if s is None else f"{s:.2f}" for s in (q.self_a, q.self_b))
    return (f"{q.share:.2f} identical (z {q.z:+.1f}; self-agreement {selves})"
            + (f", flagged: {q.why}" if q.flagged else ""))


def known_bots(folder: str | Path) -> dict[str, Path]:
    """Each file (.py, .java) or folder of `folder` as a known bot: label -> path."""
    root = Path(folder)
    out: dict[str, Path] = {}
    for p in sorted(root.iterdir()):
        if p.name.startswith(".") or p.name == "__pycache__":
            continue
        if p.is_dir() or p.suffix.lower() in LANGUAGES:
            out[f"known:{p.name}"] = p
    return out


def _play_spec(path: Path) -> str | None:
    """A SPEC that plays a known bot's files (None: none is clear)."""
    if path.is_file():
        return str(path) if path.suffix == ".py" else f"java:{path.parent}"
    if any(path.rglob("*.java")):
        return f"java:{path}"
    py = sorted(path.glob("*.py"))
    return str(py[0]) if len(py) == 1 else None


def boards_words(boards: Sequence[Board]) -> str:
    """"6x7x4", or "3 boards (4x4x4, 5x5x4, 6x7x4)": the boards of a run's positions."""
    names = ", ".join("x".join(map(str, b)) for b in boards[:6])
    if len(boards) > 6:
        names += f" and {len(boards) - 6} more"
    return names if len(boards) == 1 else f"{len(boards)} boards ({names})"


def compare(specs: Sequence[str], known: str | Path | None = None, *,
            labels: Sequence[str] | None = None, play: bool = True,
            board: tuple[int, int, int] = (6, 7, 4), positions: int = POSITIONS,
            time_s: float = MOVE_TIME_S, isolation: str | None = None,
            cgroups: bool | None = None,
            progress: Callable[[str], None] | None = None,
            given: dict[str, Answers] | None = None,
            boards: Sequence[Board] | None = None,
            position_set: Sequence[Position] | None = None) -> SimilarityReport:
    """Compare every pair of `specs` (shown as `labels` if given), and each with the bots of
    `known`, by code and (if `play`) by play: on `board`'s published positions, or on each of
    `boards` with a published set (`board_count` positions each, one board after the other),
    or on `position_set` (each position on its board) if given. `given`: answers asked before
    (by SPEC, on the same positions and time per move), not asked again. Raises SpecError for
    a SPEC that names no bot."""
    labels = list(labels) if labels is not None else list(specs)
    notes: list[str] = []
    codes: dict[str, Code] = {lab: _code_of(lab, functools.partial(sources_of_spec, spec))
                              for lab, spec in zip(labels, specs, strict=True)}
    known_paths = known_bots(known) if known is not None else {}
    known_codes = {lab: _code_of(lab, functools.partial(sources_in, p))
                   for lab, p in known_paths.items()}
    notes.extend(f"code: could not compare this version ({c.label}): {c.problem}"
                 for c in [*codes.values(), *known_codes.values()] if c.problem)
    pairs_of = list(itertools.combinations(labels, 2)) + [
        (lab, k) for lab in labels for k in known_codes]
    answers: dict[str, Answers] = {}
    reference = None
    n_positions = 0
    chosen: list[Position] = []
    if play:
        if position_set is not None:
            chosen = list(position_set)
        elif boards:
            chosen = _published_of(boards, positions, notes)
        else:
            try:
                chosen = load_positions(*board, limit=positions)
            except FileNotFoundError:
                chosen = []
                notes.append(f"play: no published positions for "
                             f"{board[0]}x{board[1]}x{board[2]} "
                             f"({positions_path(*board).name}); code only")
        if chosen:
            board = chosen[0].board_or(board)
            n_positions = len(chosen)
            to_play = dict(zip(labels, specs, strict=True))
            for lab, p in known_paths.items():
                spec = _play_spec(p)
                if spec is not None:
                    to_play[lab] = spec
                else:
                    notes.append(f"play: {lab}: no SPEC plays it (several .py files); code only")
            refs = [r for r in REFERENCE_BOTS if r not in to_play.values()]
            texts = list(dict.fromkeys(list(to_play.values()) + refs))
            skipped: dict[str, str] = {}
            optional = [s for lab, s in to_play.items() if lab in known_paths] + refs
            given = given or {}
            asked = [t for t in texts if t not in given]
            got = answers_of(asked, *board, chosen, time_s=time_s, isolation=isolation,
                             cgroups=cgroups, progress=progress, optional=optional,
                             skipped=skipped) if asked else {}
            got.update({t: a for t, a in given.items() if t in texts})
            for spec, why in skipped.items():
                notes.append(f"play: {spec} cannot play ({why}); code only")
            answers = {lab: _relabel(got[spec], lab) for lab, spec in to_play.items()
                       if spec in got}
            ref_answers = [got[r] if r in got else answers[_label_of(to_play, r)]
                           for r in REFERENCE_BOTS if r in got or r in to_play.values()]
            reference = Reference.of(ref_answers)
    pairs = []
    for a, b in pairs_of:
        code = compare_code(codes[a], codes.get(b) or known_codes[b])
        pm = judge(answers[a], answers[b], reference) if (
            reference is not None and a in answers and b in answers) else None
        pairs.append(Pair(a, b, code, pm))
    pairs.sort(key=Pair.sort_key)
    return SimilarityReport(pairs, reference, answers, notes, board, n_positions, time_s,
                            tuple(chosen))


def _code_of(label: str, sources: Callable[[], Sequence[SourceFile]]) -> Code:
    """A version's sources fingerprinted; one whose files cannot be read or parsed (hostile
    text: too deep, too big, an encoding that breaks) is a `Code` with its `problem` named,
    compared with nothing, and the others are compared as usual."""
    try:
        return fingerprint(label, sources())
    except SpecError:
        raise  # a SPEC that names nothing is the caller's usage error
    except (OSError, RecursionError, MemoryError, ValueError, UnicodeError) as e:
        return unreadable(label, e)


def _published_of(boards: Sequence[Board], positions: int, notes: list[str]) -> list[Position]:
    """The published positions of each of `boards` (`board_count` of them each), one board
    after the other; a board without a set is named in `notes`."""
    boards = list(dict.fromkeys(boards))
    n = board_count(positions, len(boards))
    out: list[Position] = []
    missing = []
    for b in boards:
        got = published(b, n)
        if got is None:
            missing.append("x".join(map(str, b)))
        else:
            out.extend(got)
    if missing:
        notes.append(f"play: no published positions for {', '.join(missing)} (a league "
                     f"takes them from its own games); not asked there")
    return out


def _relabel(a: Answers, label: str) -> Answers:
    return Answers(label, a.first, a.again, a.seconds, a.faults)


def _label_of(to_play: dict[str, str], spec: str) -> str:
    return next(lab for lab, s in to_play.items() if s == spec)


def current_versions(league: Any) -> list[Any]:
    """Each user's current version: the latest that passed its check ("rating", "active")."""
    latest: dict[str, Any] = {}
    for sub in league.submissions():
        if sub.status in ("rating", "active") and (
                sub.user not in latest or sub.id > latest[sub.user].id):
            latest[sub.user] = sub
    return sorted(latest.values(), key=lambda s: s.user)
