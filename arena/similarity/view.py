"""The side-by-side view of two league versions for the teacher (issue #41): both versions'
code with the stretches code similarity matched marked, and the positions where they chose the
same move (when the league's last `cxarena league similarity DIR` run played the pair).

What is marked comes from copydetect itself (`CodeMatch.spans_a`/`spans_b`: the character
spans of the winnowed fingerprints both sides share, mapped back to the raw text by copydetect);
nothing is matched again here. Everything shown was written by a student and is hostile: this
module only cuts it into plain-text pieces (`Line.parts`) that the template escapes; it never
makes HTML. It bounds what is shown (`MAX_SHOWN` characters a side, whole lines, and says so
when it cuts) and shows the characters that reorder text on screen (bidirectional controls:
"Trojan Source") as visible codes, so that what the teacher reads is what the file holds.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from arena.board import CXBoard
from arena.similarity.code import (
    Code,
    CodeMatch,
    SourceFile,
    compare_code,
    fingerprint,
    sources_in,
    sources_of_spec,
)
from arena.similarity.play import PlayMatch, Position
from arena.similarity.store import StoredRun

__all__ = ["MAX_SHOWN", "AgreedPosition", "Line", "PairView", "ShownFile", "Side",
           "board_text", "pair_view", "show_files"]

#: at most this many characters of code shown a side (the rest is said to be cut)
MAX_SHOWN = 200_000
#: at most this many characters of a file's name shown
MAX_NAME = 200
#: characters that reorder or hide text on screen, shown as their code point instead
_INVISIBLE = re.compile("[\u061c\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]")
#: boards drawn side by side on one row of the agreed positions
BOARDS_A_ROW = 6


def _visible(text: str) -> str:
    return _INVISIBLE.sub(lambda m: f"<U+{ord(m.group()):04X}>", text)


@dataclass(frozen=True)
class Line:
    """One line of a shown file: its number (from 1) and its pieces, each (text, marked)."""

    number: int
    parts: tuple[tuple[str, bool], ...]

    @property
    def marked(self) -> bool:
        return any(m for _, m in self.parts)


@dataclass(frozen=True)
class ShownFile:
    """A file of one side as shown: its lines (`shown` of its `size` characters), and whether
    code similarity compared it (a file of another language than the bot's is not)."""

    name: str
    lines: tuple[Line, ...]
    size: int
    shown: int
    compared: bool

    @property
    def cut(self) -> bool:
        return self.shown < self.size

    @property
    def marked_lines(self) -> int:
        return sum(1 for line in self.lines if line.marked)


@dataclass(frozen=True)
class Side:
    """One version as shown: its label and submission id, its files, and its share of code
    found in the other."""

    label: str
    submission_id: int
    files: tuple[ShownFile, ...]
    share: float
    language: str | None

    @property
    def size(self) -> int:
        return sum(f.size for f in self.files)

    @property
    def shown(self) -> int:
        return sum(f.shown for f in self.files)

    @property
    def cut(self) -> bool:
        return any(f.cut for f in self.files)


@dataclass(frozen=True)
class AgreedPosition:
    """A position where both versions chose the same move: its number in the run's set (from
    1), the move, whether the move is of the best exact value, and the board as text."""

    number: int
    move: int
    best: bool
    board: str


@dataclass
class PairView:
    """What the pair page shows (`pair_view`)."""

    a: Side
    b: Side
    code: CodeMatch
    play: PlayMatch | None
    agreed: list[AgreedPosition]
    board: tuple[int, int, int] | None = None  # the run's board (None: no stored play)
    made_at: float | None = None  # when the stored run was made
    #: the play result is judged from the answers stored per version (not a kept run)
    stored: bool = False
    #: the boards of the run's positions in words ("" without a stored play)
    boards_text: str = ""

    @property
    def agreed_rows(self) -> list[str]:
        """The agreed positions drawn `BOARDS_A_ROW` boards a row, as text."""
        return [_beside(self.agreed[i:i + BOARDS_A_ROW])
                for i in range(0, len(self.agreed), BOARDS_A_ROW)]


def _lines(text: str, spans: Sequence[tuple[int, int]], first: int = 1) -> list[Line]:
    """`text` cut into lines, each into pieces marked where a span covers them."""
    merged: list[tuple[int, int]] = []  # sorted, disjoint, within the text
    for start, end in sorted((max(0, s), min(len(text), e)) for s, e in spans):
        if end <= start:
            continue
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    pieces = []  # (text, marked) over the whole text, in order
    at = 0
    for start, end in merged:
        if start > at:
            pieces.append((text[at:start], False))
        pieces.append((text[start:end], True))
        at = end
    if at < len(text):
        pieces.append((text[at:], False))
    out: list[Line] = []
    current: list[tuple[str, bool]] = []
    number = first
    for piece, marked in pieces:
        chunks = piece.split("\n")
        for i, chunk in enumerate(chunks):
            if i > 0:
                out.append(Line(number, tuple(current)))
                current, number = [], number + 1
            if chunk:
                current.append((_visible(chunk), marked))
    if current:
        out.append(Line(number, tuple(current)))
    return out


def _word(c: str) -> bool:
    return c.isalnum() or c == "_"


def _widen(text: str, spans: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """Spans grown to whole words: copydetect maps a match back to the raw text through its
    filtered tokens, so a run may start or end inside a name (``__futur|e__``); what is shown
    marked is whole names (the score is not changed)."""
    out = []
    for start, end in spans:
        start, end = max(0, min(start, len(text))), max(0, min(end, len(text)))
        while 0 < start < len(text) and _word(text[start - 1]) and _word(text[start]):
            start -= 1
        while 0 < end < len(text) and _word(text[end - 1]) and _word(text[end]):
            end += 1
        out.append((start, end))
    return out


def show_files(code: Code, spans: Sequence[tuple[int, int]],
               limit: int = MAX_SHOWN) -> tuple[ShownFile, ...]:
    """A bot's files as shown: those code similarity compared first (in name order), their
    matched `spans` (of `code.text`) marked, then its other sources; at most `limit`
    characters in all, a file cut at a line's end."""
    by_file = code.file_spans(spans)
    compared = {name: text_of(code, name) for name in code.names}
    others = [f for f in code.files if f.name not in compared]
    left = limit
    out = []
    for name, text, is_compared in ([(n, t, True) for n, t in compared.items()]
                                    + [(f.name, f.text, False) for f in others]):
        shown_text = text
        if len(text) > left:
            cut = text.rfind("\n", 0, left)
            shown_text = text[:cut + 1] if cut >= 0 else ""
        left -= len(shown_text)
        spans_here = _widen(text, by_file.get(name, [])) if is_compared else []
        lines = _lines(shown_text, spans_here)
        out.append(ShownFile(_visible(name[:MAX_NAME]), tuple(lines), len(text),
                             len(shown_text), is_compared))
    return tuple(out)


def text_of(code: Code, name: str) -> str:
    """The text of file `name` of `code` as compared (its slice of `code.text`)."""
    i = code.names.index(name)
    end = code.starts[i + 1] if i + 1 < len(code.starts) else len(code.text)
    return code.text[code.starts[i]:end]


def board_text(M: int, N: int, K: int, moves: Sequence[int], mark: int | None = None) -> str:
    """A position as text: its rows from the top (X the first player, O the second), the
    column numbers under them, and a ^ under column `mark`."""
    board = CXBoard.from_moves(M, N, K, list(moves))
    rows = [" ".join(row) for row in str(board).split("\n")]
    rows.append(" ".join(str(c % 10) for c in range(N)))
    if mark is not None:
        rows.append(" ".join("^" if c == mark else " " for c in range(N)).rstrip())
    return "\n".join(rows)


def _beside(positions: Sequence[AgreedPosition]) -> str:
    """Boards side by side, each headed by its number and the move."""
    blocks = [[f"#{p.number}: {p.move}{' best' if p.best else ''}", *p.board.split("\n")]
              for p in positions]
    width = max(len(line) for block in blocks for line in block) + 3
    height = max(len(block) for block in blocks)
    return "\n".join("".join(block[i].ljust(width) if i < len(block) else " " * width
                             for block in blocks).rstrip() for i in range(height))


def agreed_positions(run: StoredRun, play: PlayMatch) -> list[AgreedPosition]:
    """The positions of `run` where the pair of `play` chose the same move, drawn."""
    M, N, K = run.board
    answers = run.answers.get(play.a)
    out = []
    for i in play.agreed:
        if not 0 <= i < len(run.positions) or answers is None or i >= len(answers.first):
            continue
        pos: Position = run.positions[i]
        move = answers.first[i]
        if move is None:
            continue
        try:
            drawn = board_text(*pos.board_or((M, N, K)), pos.moves, move)
        except Exception:  # a position that does not fit the board: the number says enough
            drawn = "(not drawn)"
        out.append(AgreedPosition(i + 1, move, move in pos.best, drawn))
    return out


def pair_view(a: tuple[str, int, Sequence[SourceFile]], b: tuple[str, int, Sequence[SourceFile]],
              run: StoredRun | None = None, limit: int = MAX_SHOWN,
              kept: tuple[Code | None, Code | None] = (None, None)) -> PairView:
    """Two versions side by side, each given as (label, submission id, sources): their code
    compared (`compare_code`) and shown with the matched stretches marked, and, if `run` (the
    league's last stored run) played these two versions, the positions where they agreed.
    `kept`: their fingerprints as kept (`arena.similarity.codestore`), made here if None."""
    code_a = dataclasses.replace(kept[0], label=a[0], files=tuple(a[2])) if kept[0] \
        else fingerprint(a[0], a[2])
    code_b = dataclasses.replace(kept[1], label=b[0], files=tuple(b[2])) if kept[1] \
        else fingerprint(b[0], b[2])
    match = compare_code(code_a, code_b)
    side_a = Side(a[0], a[1], show_files(code_a, match.spans_a, limit), match.share_a,
                  code_a.language)
    side_b = Side(b[0], b[1], show_files(code_b, match.spans_b, limit), match.share_b,
                  code_b.language)
    play = run.play_between(a[1], b[1]) if run is not None else None
    agreed: list[AgreedPosition] = []
    if run is not None and play is not None:
        agreed = agreed_positions(run, play)
    return PairView(side_a, side_b, match, play, agreed,
                    run.board if run is not None and play is not None else None,
                    run.made_at if run is not None else None,
                    run is not None and run.stored,
                    run.boards_text if run is not None and play is not None else "")


def version_sources(league: Any, submission_id: int) -> tuple[str, int, list[SourceFile]]:
    """A league version's label, id and sources, as `league_similarity` compares them (the
    files its SPEC plays; every source file of the upload when no SPEC can be made). Raises
    KeyError for an id the league does not have."""
    # the league's files, only when a pair is shown (the league's modules are at this layer)
    from arena.league.checks import materialise, spec_of

    sub = league.submission(submission_id)
    if sub is None:
        raise KeyError(submission_id)
    try:
        files = sources_of_spec(spec_of(league, submission_id))
    except Exception:  # an upload no SPEC plays (a failed check): all its sources
        files = sources_in(materialise(league, submission_id))
    return f"{sub.user} v{sub.version}", submission_id, files
