"""The game viewer's object for one game (`static/viewer.js`, `CXViewer.mount`): the one
builder, used by the HTML report (which packs the objects into its columns, `pack_games`, and
whose `static/report.js` unpacks them as `unpack_game` does) and by the league's game page
(which serves one object per game).

`viewer_game(record, game_id, players, own_words=...)` gives every key of `GAME_KEYS` (None
where a game has nothing to say), then what the game's drawer reads: Connect-X's board (M, N,
K; its drawer replays the columns in `moves`), another game's positions (`game_frames`: its
name, the board's fixed parts and one frame per position; `moves` its move texts).

A bot's own words (a fault's detail, which can hold its exception text or its answer, its
stderr, an illegal answer as it sent it) are in the object only with `own_words`: for the
bot's author and the admins, never for everyone; how the game ended is then told by its reason
and move only (`describe_end(..., bot_text=False)`).
"""

from __future__ import annotations

import json
from typing import Any

from arena.games import GameError
from arena.games.connectx.record import board_and_columns
from arena.records import GameRecord, Reason, StoredGame
from arena.report.explain import describe_end, fault_move, illegal_column
from arena.report.frames import game_frames
from arena.report.show import peak_memory_text
from arena.results.fairness import game_account
from arena.results.standings import BoardKey, record_board_key

__all__ = ["GAME_KEYS", "MOVE_ALPHABET", "TIME_UNIT_MS", "encode_moves", "encode_times",
           "pack_games", "unpack_game", "viewer_game"]

#: the keys of every viewer object (values None when the game has nothing to say), in order;
#: "analysis" is there only when the game has one (a reader's page tells analysed games by it)
GAME_KEYS = ("id", "round", "game", "players", "moves", "times_ms", "timeout_ms", "winner",
             "reason", "offender", "seed", "explanation", "detail", "stderr", "fault_move",
             "illegal_col", "opening", "info")

#: 64 characters that need no escaping in JSON or HTML; index = column number
MOVE_ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-_"
#: the unit of the move times (the viewer's objects carry them in it: the report packs them
#: as whole units)
TIME_UNIT_MS = 0.01

#: entries of a record's `extra` not shown as the game's labels: start-up times (in the fault
#: details), the peak memory (shown in words, "peak memory"), a league game's sides as the
#: league keys them (`arena.league.db.SIDES`: a reference bot's SPEC may be a teacher's path)
_NOT_SHOWN = frozenset({"startup_ms", "peak_memory_mb", "sides"})
#: entries of `extra` that are a bot's own words (an illegal answer as it sent it)
_BOTS_WORDS = frozenset({"fault_move"})
#: a label longer than this (as JSON) is left out
_MAX_LABEL_CHARS = 300


def _json_label(value: Any) -> Any:
    """A JSON-able form of a label, or None if it is too long to show."""
    try:
        text = json.dumps(value, sort_keys=True, default=str)
    except (TypeError, ValueError):
        return None
    return None if len(text) > _MAX_LABEL_CHARS else json.loads(text)


def time_units(times_ms: tuple[float, ...] | list[float]) -> list[int]:
    """Move times as whole `TIME_UNIT_MS` units (halves to even)."""
    return [round(float(t) / TIME_UNIT_MS) for t in times_ms]


def _info(rec: GameRecord, own_words: bool, limit_s: float | None) -> dict[str, Any]:
    """The game's other facts, as the viewer lists them (label -> value)."""
    info: dict[str, Any] = {}
    if rec.pair_id:
        info["pair"] = rec.pair_id
    if rec.is_fault:
        info["initPlayer ms"] = " / ".join(f"{t:.1f}" for t in rec.init_ms)
    peaks = peak_memory_text(rec.extra)
    if peaks:
        info["peak memory"] = " / ".join(peaks)
    load = game_account(rec, limit_s)
    if load:
        info["busy machine"] = load.removeprefix("busy machine: ")
    for key, value in rec.extra.items():  # what other parts of cxarena added to the record
        if key in _NOT_SHOWN or key in info or (key in _BOTS_WORDS and not own_words):
            continue
        label = _json_label(value)
        if label is not None:
            info[key] = label
    return info


def viewer_game(rec: GameRecord, game_id: int | str, players: list[str] | None = None, *,
                own_words: bool = True, timeout_s: float | None = None,
                round: int | None = None, analysis: dict[str, Any] | None = None
                ) -> dict[str, Any]:
    """The viewer's object for `rec` (see the module docstring). `players`: the sides' names
    as the page shows them (default: the record's); `own_words`: the reader may read the
    faulting bot's own words; `timeout_s`: the per-move limit when the record does not name
    it (records from before they did); `round`: the game's round in a run; `analysis`: the
    exact solver's (`arena.analysis.render.viewer_data`)."""
    if players is None:
        players = [rec.player1 or rec.names[0] or rec.p1 or "player 1",
                   rec.player2 or rec.names[1] or rec.p2 or "player 2"]
    limit_s = rec.timeout_s if rec.timeout_s is not None else timeout_s
    frames = game_frames(rec)  # another game: its positions, for its drawer
    fault = rec.is_fault
    # the moves as the game's drawer reads them: Connect-X's columns
    # (`arena.games.connectx.record`), else the texts
    try:
        cx = board_and_columns(rec)
    except GameError:  # Connect-X with parameters this cxarena does not know: the texts
        cx = None
    moves: list[Any] = list(rec.texts) if cx is None else list(cx[3])
    opening = moves[:len(rec.opening_moves)]  # the first moves: nobody's choice
    units = time_units(rec.times_ms)
    game: dict[str, Any] = {
        "id": game_id, "round": round, "game": rec.game, "players": list(players),
        "moves": moves,
        "times_ms": [u * TIME_UNIT_MS for u in units],
        "timeout_ms": None if limit_s is None else limit_s * 1000.0,
        "winner": rec.winner or None, "reason": rec.reason.value,
        "offender": rec.offender or None, "seed": rec.seed,
        "explanation": (describe_end(rec, players[0], players[1], bot_text=own_words)
                        if rec.detail or fault else None),
        "detail": rec.detail if rec.detail and (own_words or not fault) else None,
        "stderr": rec.stderr_tail if fault and own_words else None,
        "fault_move": fault_move(rec) if fault else None,
        "illegal_col": illegal_column(rec),
        "opening": opening or None,
        "info": _info(rec, own_words, limit_s),
    }
    if analysis is not None:
        game["analysis"] = analysis
    if frames is None:
        M, N, K = (0, 0, 0) if cx is None else cx[:3]  # a game this cxarena does not know: 0
        game.update(M=M, N=N, K=K)
    else:
        game.update(frames)
    return game


# --------------------------------------------------------------- the report's packed form
def encode_moves(moves: tuple[int, ...] | list[int], N: int) -> str:
    """Moves as `MOVE_ALPHABET` characters: one per move if N <= 64, else two."""
    a = MOVE_ALPHABET
    if N <= 64:
        return "".join(a[c] for c in moves)
    return "".join(a[c >> 6] + a[c & 63] for c in moves)


def _b36(n: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    if n <= 0:
        return "0"
    out = []
    while n:
        n, r = divmod(n, 36)
        out.append(digits[r])
    return "".join(reversed(out))


#: base-36 text of 0 .. 36**3 - 1 (times up to 466 ms), looked up instead of computed
_B36 = [_b36(n) for n in range(36 ** 3)]


def encode_times(times_ms: tuple[float, ...] | list[float]) -> str:
    """Move times in units of `TIME_UNIT_MS`, base 36, joined by ","."""
    table, size = _B36, len(_B36)
    return ",".join([table[u] if 0 <= u < size else _b36(u) for u in time_units(times_ms)])


#: the columns of the packed form: one array per fact, one entry per game
COLUMNS = ("id", "round", "p1", "p2", "board", "winner", "reason", "offender", "seed", "moves",
           "times")
#: the object's keys that the columns hold
_IN_COLUMNS = frozenset({"id", "round", "players", "winner", "reason", "offender", "seed",
                         "moves", "times_ms"})


def _board_keys(board: Any) -> dict[str, Any]:
    """What a board of the packed form says of its games (Connect-X's: the game and M, N, K)."""
    if isinstance(board, list):
        return {"game": "connectx", "M": board[0], "N": board[1], "K": board[2]}
    return {}


def _intern(value: Any, values: list[Any], index: dict[str, int]) -> int:
    key = json.dumps(value, sort_keys=True)
    if key not in index:
        index[key] = len(values)
        values.append(value)
    return index[key]


def pack_games(games: list[tuple[StoredGame, dict[str, Any]]], players: list[str],
               boards: list[Any], timeout_ms: float | None) -> dict[str, Any]:
    """The report's compact form of the viewer objects of `games` ((stored game, its
    `viewer_game` object)): one array per column (`COLUMNS`; players, boards and reasons as
    indices into `players`, `boards` (extended with the games' boards) and the reasons; moves
    and times as short strings, see `arena.report.html`), and in "more", by the game's
    index, the rest of its object that the columns and the page's defaults do not say (an
    info value as an index into "label_values", which holds each distinct value once).
    `unpack_game` is its inverse, as `static/report.js` implements it."""
    pidx = {p: i for i, p in enumerate(players)}
    bidx: dict[Any, int] = {tuple(b) if isinstance(b, list) else b: i
                            for i, b in enumerate(boards)}
    ridx = {r.value: i for i, r in enumerate(Reason)}
    cols: dict[str, list[Any]] = {k: [] for k in COLUMNS}
    more: dict[str, dict[str, Any]] = {}
    values: list[Any] = []
    index: dict[str, int] = {}
    for i, (g, obj) in enumerate(games):
        board: BoardKey = record_board_key(g.record)
        if board not in bidx:
            bidx[board] = len(boards)
            boards.append(board if isinstance(board, str) else list(board))
        b = bidx[board]
        cols["id"].append(obj["id"])
        cols["round"].append(obj["round"])
        cols["p1"].append(pidx[obj["players"][0]])
        cols["p2"].append(pidx[obj["players"][1]])
        cols["board"].append(b)
        cols["winner"].append(obj["winner"] or 0)
        cols["reason"].append(ridx[obj["reason"]])
        cols["offender"].append(obj["offender"] or 0)
        cols["seed"].append(obj["seed"])
        columns = isinstance(boards[b], list)  # Connect-X: the moves are columns
        cols["moves"].append(encode_moves(obj["moves"], obj["N"]) if columns
                             else " ".join(obj["moves"]))
        cols["times"].append(encode_times(obj["times_ms"]))
        implied = {**_board_keys(boards[b]), "timeout_ms": timeout_ms}
        rest: dict[str, Any] = {}
        for k, v in obj.items():
            if k in _IN_COLUMNS or v is None or (k in implied and implied[k] == v):
                continue
            if k == "info":
                if v:
                    rest[k] = {key: _intern(x, values, index) for key, x in v.items()}
                continue
            rest[k] = v
        if rest:
            more[str(i)] = rest
    return {"games": cols, "more": more, "label_values": values}


def _decode_moves(text: str, board: Any) -> list[Any]:
    if not isinstance(board, list):
        return text.split(" ") if text else []
    a = {c: i for i, c in enumerate(MOVE_ALPHABET)}
    if board[1] <= 64:
        return [a[c] for c in text]
    return [a[text[k]] * 64 + a[text[k + 1]] for k in range(0, len(text) - 1, 2)]


def unpack_game(payload: dict[str, Any], i: int) -> dict[str, Any]:
    """The viewer object of the `i`-th game of the report's data (`arena.report.html`'s
    payload, `pack_games`), as `static/report.js` (`gameObject`) rebuilds it."""
    G = payload["games"]
    board = payload["boards"][G["board"][i]]
    m = payload["more"].get(str(i), {})
    game: dict[str, Any] = dict.fromkeys(GAME_KEYS)
    game.update(
        id=G["id"][i], round=G["round"][i],
        players=[payload["players"][G["p1"][i]], payload["players"][G["p2"][i]]],
        moves=_decode_moves(G["moves"][i], board),
        times_ms=[int(x, 36) * payload["time_unit_ms"] for x in G["times"][i].split(",")
                  if x],
        timeout_ms=payload["timeout_ms"], winner=G["winner"][i] or None,
        reason=payload["reasons"][G["reason"][i]], offender=G["offender"][i] or None,
        seed=G["seed"][i], info={}, **_board_keys(board))
    game.update({k: v for k, v in m.items() if k != "info"})
    game["info"] = {k: payload["label_values"][x] for k, x in m.get("info", {}).items()}
    return game
