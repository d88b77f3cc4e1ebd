"""The `Game` interface: what cxarena needs to know about a two-player, turn-based board game.

A game is a small object (its name and parameters) with pure functions over immutable states:
the initial state, the side to move, the legal moves, applying a move, the terminal test with
the outcome and its reason, and a move's text form (for the protocol, the records, `show` and
the report). How the game looks and reads to a person (a text rendering, a drawing description
for the viewer, its moves and ends in words) is its `Presentation`, beside the rules.

Sides are 0 (the first player) and 1 (the second player), in every game. States are frozen
dataclasses, so they can be hashed, shared between threads and sent between processes. Moves
are whatever small hashable value suits the game (a column, a square, a dataclass), and their
text form is the only form that ever leaves the process.

Nothing here does I/O or logging: a searching bot may call every function on its hot path.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, TypeVar

__all__ = [
    "Game",
    "Position",
    "Presentation",
    "GameError",
    "IllegalMoveError",
    "MoveSyntaxError",
    "Outcome",
    "ParamError",
]

S = TypeVar("S", bound=Hashable)
M = TypeVar("M", bound=Hashable)


class GameError(ValueError):
    """Base of the errors a game raises for bad input; the state is never changed."""


class ParamError(GameError):
    """A game parameter that is unknown or out of range."""


class MoveSyntaxError(GameError):
    """A move text that does not follow the game's notation."""


class IllegalMoveError(GameError):
    """A well-formed move that the rules forbid in this state (or the game is over)."""


@dataclass(frozen=True)
class Outcome:
    """How a game ended: the winning side (0 first player, 1 second, None a draw) and why.

    `reason` is a short fixed word of the game (`k-in-a-row`, `more-discs`, `no-legal-move`,
    `fewer-than-three`, `threefold-repetition`, ...); `detail` is a sentence for people.
    """

    winner: int | None
    reason: str
    detail: str = ""

    @property
    def is_draw(self) -> bool:
        return self.winner is None


class Game(ABC, Generic[S, M]):
    """A two-player game with fixed parameters. Subclasses set `name` and `PARAMS`.

    `PARAMS` maps every parameter to its default (ints). The constructor takes parameters as
    keywords, fills in defaults and validates them (`ParamError`).
    """

    #: the game's name in configs, the protocol and records (lowercase, no spaces)
    name: ClassVar[str]
    #: parameter -> default value
    PARAMS: ClassVar[Mapping[str, int]]
    #: the protocol version that is this game's own dialect of `newgame` (docs/protocol.md):
    #: None for the generic version 2 only (``newgame GAME PARAMS ...``). A game whose bots
    #: predate version 2 keeps their words: Connect-X's ``newgame M N K ...`` is version 1.
    DIALECT: ClassVar[int | None] = None
    #: how many `newgame` fields stand for the game and its parameters in that dialect
    DIALECT_FIELDS: ClassVar[int] = 0
    #: ``module:Class`` of the entrant adapter that plays the dialect's bots in the Python host
    #: (`arena.entrants.host`; Connect-X's: the course's `CXPlayer`)
    DIALECT_ADAPTER: ClassVar[str] = ""
    #: the bot API's names of the two timed calls, as fault details name them
    CALLS: ClassVar[tuple[str, str]] = ("init_player", "select_move")
    #: ``module:Class`` of the base class of this game's Python bots (`new-bot --game` writes
    #: a subclass); "" for none
    BOT_BASE: ClassVar[str] = ""
    #: the parameters a config's board [M, N, K] gives, in that order: a game that has them
    #: is played on boards (`boards:`, a list or a set of boards.yaml, with opening files and
    #: openings that the course's search judges, `arena.competition.openings`) in place of
    #: `params:`; () for a game of parameter sets (`arena.competition.settings.variant_games`)
    BOARD_PARAMS: ClassVar[tuple[str, ...]] = ()
    #: whether this game's bots are the course's ``CXPlayer`` classes: a tournament's door
    #: loads each before the run (`arena.tournament.config.check_players`; another game's bot
    #: that fails to load shows it at its first game), and a league takes Java bots unless
    #: league.yaml says ``java: false`` (their limit then whole seconds)
    COURSE_BOTS: ClassVar[bool] = False
    #: the SPECs of the built-in bots a league of this game rates its entrants against when
    #: league.yaml gives no `reference_bots:` (the last is the anchor of its Elo scale)
    REFERENCE_BOTS: ClassVar[tuple[str, ...]] = ()
    #: ``module:Class`` of the game's `Presentation` (how it looks and reads to a person:
    #: drawings, words, titles), in its folder beside the rules; `arena.games.presentation_of`
    #: loads it. The rules never ask it.
    PRESENTATION: ClassVar[str] = ""

    def __init__(self, **params: int) -> None:
        unknown = sorted(set(params) - set(self.PARAMS))
        if unknown:
            raise ParamError(f"{self.name}: unknown parameter(s) {', '.join(unknown)}; "
                             f"known: {', '.join(self.PARAMS) or 'none'}")
        values: dict[str, int] = {}
        for key, default in self.PARAMS.items():
            value = params.get(key, default)
            if isinstance(value, bool) or not isinstance(value, int):
                raise ParamError(f"{self.name}: parameter {key} must be an integer, "
                                 f"got {value!r}")
            values[key] = int(value)
        self.params: Mapping[str, int] = values
        self._validate()

    def _validate(self) -> None:
        """Raise ParamError for out-of-range parameters (subclasses)."""

    # ------------------------------------------------------------------ identity
    def label(self) -> str:
        """A short text naming the game and its parameters: ``othello size=8``."""
        params = " ".join(f"{k}={v}" for k, v in self.params.items())
        return f"{self.name} {params}".strip()

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Game):
            return NotImplemented
        return (self.name, dict(self.params)) == (other.name, dict(other.params))

    def __hash__(self) -> int:
        return hash((self.name, tuple(sorted(self.params.items()))))

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v}" for k, v in self.params.items())
        return f"{type(self).__name__}({args})"

    @classmethod
    def dialect_fields(cls, params: Mapping[str, int]) -> list[str]:
        """The `newgame` fields of `params` in this game's dialect (`DIALECT`)."""
        raise NotImplementedError(f"{cls.name} has no protocol dialect of its own")

    @classmethod
    def dialect_params(cls, fields: Sequence[str]) -> Mapping[str, int]:
        """The parameters named by the dialect's `newgame` fields (ValueError when they are not
        numbers; the values are checked when the game is made)."""
        raise NotImplementedError(f"{cls.name} has no protocol dialect of its own")

    # --------------------------------------------------------------------- rules
    @abstractmethod
    def initial_state(self) -> S:
        """The start position."""

    @abstractmethod
    def to_move(self, state: S) -> int:
        """The side to move: 0 (first player) or 1."""

    @abstractmethod
    def legal_moves(self, state: S) -> Sequence[M]:
        """Every legal move, in a fixed order; empty exactly when the game is over."""

    @abstractmethod
    def apply(self, state: S, move: M) -> S:
        """The state after `move`. Raises IllegalMoveError (the given state is unchanged)."""

    @abstractmethod
    def outcome(self, state: S) -> Outcome | None:
        """None while the game goes on, else who won and why."""

    def is_terminal(self, state: S) -> bool:
        return self.outcome(state) is not None

    # ---------------------------------------------------------------------- text
    @abstractmethod
    def move_to_text(self, state: S, move: M) -> str:
        """The move's text form (no spaces), as played from `state`."""

    @abstractmethod
    def parse_move(self, state: S, text: str) -> M:
        """The move that `text` names in `state`.

        Raises MoveSyntaxError for text that is not in the notation and IllegalMoveError for a
        move the rules forbid here.
        """

    def fair_opening(self, texts: Sequence[str], end: S) -> bool:
        """The rules' view of an opening (`texts`, ending in `end`): the game goes on. A game
        may ask more (Morris: no piece taken)."""
        return self.outcome(end) is None

    # ------------------------------------------------- generated openings
    def opening_moves(self, state: S) -> Sequence[M]:
        """The moves a generated opening draws from, uniformly (`arena.competition.openings`):
        every legal move by default; a game may keep openings where its play is."""
        return self.legal_moves(state)

    def opening_key(self, state: S, texts: Sequence[str]) -> Hashable:
        """Generated openings with equal keys count as one (the first is kept): the move texts
        by default; a game may say more (the position, move orders that transpose, mirror
        images)."""
        return tuple(texts)

    # ------------------------------------------------------- the referee's view
    def new_position(self) -> Position:
        """A mutable position at the start, for the referee's hot loop (`Position`). Games
        whose states are costly to copy give a faster one."""
        return Position(self)

    def cost(self) -> float:
        """A rough relative cost of one game (the schedule plays the dearest first; `cxarena
        play` refuses the too dear): by default the number of legal first moves. A game that
        knows better says so (the grid games: their cells; Morris: its plies)."""
        return float(max(1, len(self.legal_moves(self.initial_state()))))

    # ----------------------------------------------------------------- helpers
    def play_texts(self, texts: Sequence[str], state: S | None = None) -> S:
        """The state after the moves in `texts`, from `state` (default: the start)."""
        s = self.initial_state() if state is None else state
        for text in texts:
            s = self.apply(s, self.parse_move(s, text))
        return s


def lettered_grid(rows: int, cols: int, cell: Callable[[int, int], str]) -> str:
    """A board of cells as text: columns a.. across the top, rows 1.. down the side, each
    cell's text from `cell(row, col)` (Othello's and the m,n,k-game's `render`)."""
    lines = ["   " + " ".join(chr(ord("a") + c) for c in range(cols))]
    lines += [f"{r + 1:>2} " + " ".join(cell(r, c) for c in range(cols)) for r in range(rows)]
    return "\n".join(lines)


class Presentation(ABC, Generic[S, M]):
    """How a game looks and reads to a person, beside its rules: the text and the drawing of a
    position, the words of its moves and ends, its title and the names of its sides. One per
    game (`Game.PRESENTATION`, in the game's folder); `arena.games.presentation_of(game)` gives
    the one of a game. It asks the rules (`game`); the rules never ask it.

    The class variables are the game's for people without a game at hand (the base class's: a
    game this cxarena does not know)."""

    #: what the two sides are called to a person (the pieces' colours or marks)
    SIDES: ClassVar[tuple[str, str]] = ("first", "second")
    #: the game's name for people (the play page's menu); "" for the game's `name`
    TITLE: ClassVar[str] = ""
    #: what the play page's form calls each parameter; a parameter not named here: its name
    PARAM_LABELS: ClassVar[Mapping[str, str]] = {}
    #: what `cxarena show`'s move list calls a move ("column" in Connect-X)
    MOVE_NOUN: ClassVar[str] = "move"
    #: whether the game's drawer (``draw.js``) replays a record's moves itself, so that the
    #: report sends no frames (`arena.report.frames`): Connect-X's does, a frame per position
    #: of a 100 x 100 board being too big to send
    DRAWER_REPLAYS: ClassVar[bool] = False

    def __init__(self, game: Game[S, M]) -> None:
        self.game = game

    def title(self) -> str:
        """The game's name for people: `TITLE`, else the game's `name`."""
        return self.TITLE or self.game.name

    @abstractmethod
    def render(self, state: S) -> str:
        """A text picture of the position (several lines, no trailing newline)."""

    @abstractmethod
    def drawing(self, state: S) -> dict[str, Any]:
        """A JSON-able description for a viewer: ``{"kind": "grid" | "morris", ...}``."""

    def describe(self) -> str:
        """Where the game is played, for a sentence ("in othello size=8")."""
        return f"in {self.game.label()}"

    def move_hint(self) -> str:
        """What the person types, for a sentence ("a move, e.g. d3")."""
        game = self.game
        moves = game.legal_moves(game.initial_state())
        example = game.move_to_text(game.initial_state(), moves[0]) if moves else ""
        return f"a move (e.g. {example})" if example else "a move"

    def move_prompt(self) -> str:
        """What the prompt for a move adds ("(0-6)" for Connect-X's columns); "" for none."""
        return ""

    def draw_text(self, state: S, highlight: Sequence[Any] = (), color: bool = False) -> str:
        """The position for a terminal: `render` unless the game draws better (`highlight`:
        cells of `winning_cells` to mark, as ``*`` without colour; `color`: ANSI colours
        allowed)."""
        return self.render(state)

    def move_words(self, text: str) -> str:
        """The move `text` in a sentence ("plays d3"; Connect-X: "plays column 3")."""
        return text

    def move_short(self, text: str) -> str:
        """The move `text` in `cxarena show`'s list of moves ("d3"; Connect-X: "c3")."""
        return text

    def show_heading(self) -> str:
        """The board and parameters as `cxarena show`'s first line names them: the game's
        `label()`."""
        return self.game.label()

    def show_board(self, state: S, numbered: bool, highlight: Sequence[Any] = ()) -> str:
        """The position for `cxarena show`: `numbered`, the final one, with each piece's move
        number where the game writes them; else one of `--step`'s, with the last move marked
        where the game marks it. `highlight` as for `draw_text`; `draw_text` by default."""
        return self.draw_text(state, highlight)

    def show_notes(self, numbered: bool, highlight: bool) -> str:
        """What `show_board` marks, for the line above it ("* the winning line"); "" for
        nothing."""
        return "* the winning line" if highlight else ""

    def end_words(self, reason: str, won: bool, n_moves: int, detail: str,
                  last_move: str) -> str:
        """How a game the rules ended ended, in the game's own words, as the report's sentence
        (`arena.report.explain.describe_end`) goes on after "NAME (first player) wins" or
        "Draw" (Connect-X: ": 4 in a row with move 7 (column 0)"); "" for the shared words
        ("... after 60 moves: DETAIL"). `reason` is the record's (``win``, ``draw``, or the
        game's own word), `detail` its detail, `last_move` the last move's text ("" for none).
        """
        return ""

    def winning_cells(self, state: S) -> tuple[Any, ...]:
        """The cells of the line that won the game, to mark (none by default)."""
        return ()


class Position:
    """A game in progress as the referee keeps it: one mutable object per game, moved in
    place by `play`. This default keeps the game's immutable states; a game with a faster
    representation (Connect-X's `CXBoard`) gives its own through `Game.new_position`."""

    def __init__(self, game: Game[Any, Any]) -> None:
        self.game = game
        self.state: Any = game.initial_state()

    def to_move(self) -> int:
        """The side to move: 0 or 1."""
        return self.game.to_move(self.state)

    def outcome(self) -> Outcome | None:
        """None while the game goes on."""
        return self.game.outcome(self.state)

    def play(self, text: str) -> str:
        """Play the move `text` names for the side to move and return its canonical text.
        Raises MoveSyntaxError or IllegalMoveError (the position is unchanged)."""
        game, state = self.game, self.state
        move = game.parse_move(state, text)
        canonical = game.move_to_text(state, move)
        self.state = game.apply(state, move)
        return canonical
