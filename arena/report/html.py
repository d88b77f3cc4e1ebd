"""The HTML report: `render_report(results_dir) -> str`, `write_report(results_dir, path)`.

One self-contained page (opens from disk, no server, no network request): inline CSS and JS
from `static/`, plots as inline SVG (`arena.report.plots`), and every game as compact JSON in a
``<script type="application/json" id="cx-data">`` element, decoded by `static/report.js`
(paging and filters) and replayed by `static/viewer.js` (`CXViewer.mount`) with the board of
each game drawn by its drawer (``draw.js`` in the game's folder, `arena.games.drawer_paths`).

The game data is column-oriented (one array per field, not one object per game) and each
game's moves and times are short strings decoded only when the game is shown:
- moves: one character per move from `MOVE_ALPHABET` when N <= 64, else two (high, low);
- times: each move's time in units of 10 microseconds, as base-36 integers joined by ",".
Each game is the viewer's object (`arena.report.viewer_json.viewer_game`, the league's too),
packed by `pack_games`: the columns, and the rest of the object (the fault's explanation and
detail, stderr tail, opening, info rows ...) in a sparse map keyed by the game's index; an
info value is stored once ("label_values") and games refer to it by index.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import html
import json
import math
import re
from collections import defaultdict
from datetime import datetime, timezone
from importlib import resources
from pathlib import Path
from string import Template
from typing import Any

import numpy as np

from arena import __version__
from arena.analysis.batch import blunder_rows
from arena.analysis.render import viewer_data
from arena.analysis.store import AnalysisStore
from arena.games import drawer_paths
from arena.records import NO_CGROUP, RLIMITS_ONLY, Reason, StoredGame
from arena.report import REPORT_HTML, plots
from arena.report.data import ReportData, load_report
from arena.report.viewer_json import (
    MOVE_ALPHABET,
    TIME_UNIT_MS,
    encode_moves,
    encode_times,
    pack_games,
    viewer_game,
)
from arena.results.fairness import load_account
from arena.results.standings import (
    COLUMN_KEY,
    POINTS_DRAW,
    POINTS_WIN,
    BoardKey,
    board_label,
    head_to_head_cells,
    max_ms_text,
    record_board_key,
)

__all__ = ["MOVE_ALPHABET", "TIME_UNIT_MS", "encode_moves", "encode_times", "render_html",
           "render_report", "report_csp", "static_text", "viewer_script", "write_report"]

def static_text(name: str) -> str:
    """The text of `arena/report/static/<name>` (package data)."""
    static = resources.files("arena.report").joinpath("static")
    return static.joinpath(name).read_text(encoding="utf-8")


#: an inline script element of the report's template (not its JSON data block)
_OWN_SCRIPT = re.compile(r"<script>(.*?)</script>", re.S)


@functools.lru_cache(maxsize=1)
def report_csp() -> str:
    """The report's Content-Security-Policy: its own inline scripts (the viewer and report.js,
    as the template `static/report.html` holds them) allowed by their SHA-256 hashes, computed
    from cxarena's own files, never from a rendered page, so that a script that found its way
    into a page (through a bot's name, say) is not allowed; nothing is loaded from anywhere
    (the page is self-contained), styles inline. The same policy is the page's ``<meta>`` and
    the header the league serves it with."""
    own = Template(static_text("report.html")).safe_substitute(
        viewer_js=viewer_script(), report_js=static_text("report.js"))
    hashes = " ".join(
        "'sha256-" + base64.b64encode(hashlib.sha256(m.group(1).encode()).digest()).decode()
        + "'" for m in _OWN_SCRIPT.finditer(own))
    return (f"default-src 'none'; script-src 'self' {hashes}; style-src 'unsafe-inline'; "
            f"img-src data:; object-src 'none'; base-uri 'none'; form-action 'none'")


def viewer_script() -> str:
    """The game viewer (`static/viewer.js`) and every installed game's drawer, as one script."""
    parts = [static_text("viewer.js")]
    parts += [path.read_text(encoding="utf-8") for path in drawer_paths().values()]
    return "\n".join(parts)


def _e(x: object) -> str:
    return html.escape(str(x), quote=True)


def _split_labels(games: tuple[StoredGame, ...]
                  ) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """The records' labels of the run (the tournament's name and cxarena version, when every
    game has the same) and of a player (its code fingerprint); a game's own are in its viewer
    object (`viewer_game`)."""
    run: dict[str, Any] = {}
    for key in ("tournament", "version"):
        values = {getattr(g.record, key) for g in games}
        if len(values) == 1 and "" not in values:
            run[key] = values.pop()
    per_player: dict[str, dict[str, Any]] = defaultdict(dict)
    for g in games:
        rec = g.record
        for name, code in ((g.player1, rec.code1), (g.player2, rec.code2)):
            if code:
                per_player[name]["code"] = code
    return run, dict(per_player)


def _payload(data: ReportData, bot_text: bool = True) -> tuple[dict[str, Any],
                                                               dict[str, np.ndarray]]:
    """The page's game data (every game's `viewer_game` object, packed by `pack_games`), and
    every player's move times (ms) for the plot. Without `bot_text`, no fault's detail or
    stderr (a bot's own words: its author's to read)."""
    players = [r.player for r in data.standings.ranking]
    pidx = {p: i for i, p in enumerate(players)}
    boards: list[Any] = [b if isinstance(b, str) else list(b) for b in data.standings.boards]
    times: dict[str, list[np.ndarray]] = {p: [] for p in players}
    run_info, player_info = _split_labels(data.games)
    if not bot_text:  # a report for every student: no entry's code hash either (equal hashes
        # would tell one student that another's bot is a copy of theirs; the teacher's is kept)
        player_info = {p: {k: v for k, v in info.items() if k != "code"}
                       for p, info in player_info.items()}
        player_info = {p: info for p, info in player_info.items() if info}
    analyses = AnalysisStore(data.results_dir).all() if data.results_dir else {}
    shown: list[tuple[StoredGame, dict[str, Any]]] = []
    faults: list[int] = []
    for g in data.games:
        rec = g.record
        if g.player1 not in pidx or g.player2 not in pidx:
            continue  # a game of players no longer in the config: standings skip it too
        if rec.is_fault:
            faults.append(len(shown))
        analysis = analyses.get(g.game_id)
        shown.append((g, viewer_game(
            rec, g.game_id, [g.player1, g.player2], own_words=bot_text,
            timeout_s=data.timeout_s, round=g.round,
            analysis=None if analysis is None else viewer_data(analysis))))
        played1, played2 = rec.played_times_ms  # an opening's moves were nobody's choice
        times[g.player1].append(np.asarray(played1, dtype=float))
        times[g.player2].append(np.asarray(played2, dtype=float))
    timeout_s = data.timeout_s
    grace = data.grace_s
    timeout_ms = None if timeout_s is None else timeout_s * 1000.0
    packed = pack_games(shown, players, boards, timeout_ms)
    payload = {
        "version": 2,
        "name": data.name,
        "players": players,
        "boards": boards,
        "reasons": [r.value for r in Reason],
        "timeout_ms": timeout_ms,
        "grace_ms": None if grace is None else grace * 1000.0,
        "time_unit_ms": TIME_UNIT_MS,
        "move_alphabet": MOVE_ALPHABET,
        **packed,
        "faults": faults,
        "run_info": run_info,
        "player_info": player_info,
    }
    merged = {p: (np.concatenate(v) if v else np.zeros(0)) for p, v in times.items()}
    return payload, merged


# ------------------------------------------------------------------------------- sections
def _standings_html(data: ReportData) -> str:
    rows = []
    for r in data.standings.ranking:
        mean = "-" if math.isnan(r.mean_move_ms) else f"{r.mean_move_ms:.1f}"
        mx = max_ms_text(r)  # the late answers of games lost on time count
        cells = [r.rank, r.player, r.points, r.games, r.wins, r.draws, r.losses, r.timeouts,
                 r.illegal, r.crashes, mean, mx, f"{r.elo:+.0f} ± {r.elo_ci95:.0f}"]
        classes = {1: "name", 7: "bad" if r.timeouts else "", 8: "bad" if r.illegal else "",
                   9: "bad" if r.crashes else ""}
        tds = "".join(f'<td class="{classes[k]}">{_e(c)}</td>' if classes.get(k) else
                      f"<td>{_e(c)}</td>" for k, c in enumerate(cells))
        rows.append(f"<tr>{tds}</tr>")
    heads = ["rank", "player", "points", "games", "wins", "draws", "losses", "timeouts",
             "illegal", "crashes", "mean ms", "max ms", "Elo (95%)"]
    key = "".join(f"<tr><th>{_e(c)}</th><td>{_e(m)}</td></tr>" for c, m in COLUMN_KEY)
    return (f'<p class="ranked-by">{_e(data.standings.ranking_note())}</p>'
            '<table class="ranking" id="ranking"><thead><tr>'
            + "".join(f"<th>{_e(h)}</th>" for h in heads)
            + "</tr></thead><tbody>" + "".join(rows) + "</tbody></table>"
            + '<details class="key" open><summary>What the columns mean</summary>'
            f'<table class="column-key">{key}</table></details>')


def _cell(value: str, fraction: float, title: str, attrs: dict[str, str]) -> str:
    bg = plots.heat_colour(fraction)
    fg = plots.text_colour(bg)
    data_attrs = "".join(f' data-{k}="{_e(v)}"' for k, v in attrs.items())
    return (f'<td class="heat" style="background:{bg};color:{fg}" title="{_e(title)}">'
            f'<a href="#games" class="games-link"{data_attrs}>{_e(value)}</a></td>')


def _crosstable_html(data: ReportData) -> str:
    st = data.standings
    names = [r.player for r in st.ranking]
    wdl: dict[tuple[str, str], list[int]] = {}
    for a, b, diff in st.pairs:
        wdl[(a, b)] = [diff.wins, diff.draws, diff.losses]
        wdl[(b, a)] = [diff.losses, diff.draws, diff.wins]
    head = "".join(f"<th>{_e(n)}</th>" for n in names)
    rows = []
    for a in names:
        tds = []
        for b in names:
            if a == b:
                tds.append('<td class="self">—</td>')
                continue
            w, d, l = wdl.get((a, b), [0, 0, 0])
            n = w + d + l
            pts = st.cross[a][b]
            frac = pts / (POINTS_WIN * n) if n else math.nan
            title = (f"{a} against {b}: {w} won, {d} drawn, {l} lost; {pts} of "
                     f"{POINTS_WIN * n} points. Click to list the games.")
            tds.append(_cell(str(pts), frac, title, {"player": a, "opponent": b}))
        rows.append(f'<tr><th class="name">{_e(a)}</th>{"".join(tds)}'
                    f'<td class="total">{st.row(a).points}</td></tr>')
    return (f'<table class="heatmap" id="crosstable"><thead><tr><th>row took from column</th>'
            f'{head}<th>total</th></tr></thead><tbody>{"".join(rows)}</tbody></table>')


def _boards_html(data: ReportData) -> str:
    st = data.standings
    names = [r.player for r in st.ranking]
    played: dict[tuple[str, BoardKey], int] = defaultdict(int)
    for g in data.games:
        b = record_board_key(g.record)
        played[(g.player1, b)] += 1
        played[(g.player2, b)] += 1
    head = "".join(f"<th>{_e(board_label(b)).replace(' K=', '<br>K=')}</th>"
                   for b in st.boards)
    rows = []
    for p in names:
        tds = []
        for bi, b in enumerate(st.boards):
            n = played.get((p, b), 0)
            pts = st.board_points.get(b, {}).get(p, 0)
            frac = pts / (POINTS_WIN * n) if n else math.nan
            title = (f"{p} on {board_label(b)}: {pts} of {POINTS_WIN * n} points in {n} games. "
                     f"Click to list the games.")
            tds.append(_cell(str(pts), frac, title, {"player": p, "board": str(bi)}))
        rows.append(f'<tr><th class="name">{_e(p)}</th>{"".join(tds)}</tr>')
    return (f'<div class="scroll"><table class="heatmap" id="boardmap"><thead><tr>'
            f'<th>player \\ board (rows x columns)</th>{head}</tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table></div>')


def _pairs_html(data: ReportData) -> str:
    """Head to head: the same figures and words as standings.md (`head_to_head_cells`)."""
    estimates = [(a, b, e) for a, b, e in data.standings.estimates if e.n]
    rows = []
    for a, b, e in estimates:
        sample = f"{e.n} {'pairs' if e.model.value == 'pentanomial' else 'games'}"
        cells = [a, b, sample, *head_to_head_cells(e)]
        rows.append("<tr>" + "".join(f"<td>{_e(c)}</td>" for c in cells) + "</tr>")
    return ('<table class="pairs"><thead><tr><th>player</th><th>opponent</th><th>sample</th>'
            '<th>Elo diff</th><th>± 95%</th><th>LOS</th><th>note</th></tr></thead><tbody>'
            + "".join(rows) + "</tbody></table>")


def _times_table(times: dict[str, np.ndarray], limit_ms: float | None) -> str:
    rows = []
    for p, t in times.items():
        if t.size == 0:
            rows.append(f'<tr><td class="name">{_e(p)}</td><td>0</td>' + "<td>-</td>" * 6
                        + "</tr>")
            continue
        q50, q90, q99 = np.percentile(t, [50, 90, 99])
        mx = float(t.max())
        share = f"{100.0 * mx / limit_ms:.0f} %" if limit_ms else "-"
        half = f"{int((t > 0.5 * limit_ms).sum())}" if limit_ms else "-"
        rows.append(f'<tr><td class="name">{_e(p)}</td><td>{t.size}</td><td>{q50:.2f}</td>'
                    f'<td>{q90:.2f}</td><td>{q99:.2f}</td><td>{mx:.2f}</td><td>{share}</td>'
                    f'<td>{half}</td></tr>')
    return ('<table class="times"><thead><tr><th>player</th><th>moves</th><th>median ms</th>'
            '<th>p90 ms</th><th>p99 ms</th><th>max ms</th><th>max / limit</th>'
            '<th>moves over half the limit</th></tr></thead><tbody>' + "".join(rows)
            + "</tbody></table>")


def _run_info_html(data: ReportData, payload: dict[str, Any], paths: bool = True) -> str:
    """The run's facts (`paths`: with the config's path on this machine)."""
    m = data.meta
    stored = len(data.games)
    sched = data.scheduled
    items: list[tuple[str, str]] = [
        ("games", f"{stored} stored" + (f" of {sched} scheduled" + (
            " (incomplete: rerun the tournament to resume)" if sched != stored else "")
            if sched is not None else "")),
        ("players", str(len(payload["players"]))),
        ("boards", ", ".join(board_label(b if isinstance(b, str) else tuple(b))
                             for b in payload["boards"])),
    ]
    if data.timeout_s is not None:
        grace = "" if data.grace_s is None else f", grace {data.grace_s * 1000:g} ms"
        items.append(("time limit", f"{data.timeout_s:g} s per move (also for initPlayer)"
                                    f"{grace}"))
    fp = data.fingerprint
    if isinstance(fp.get("memory_limit_mb"), int):
        items.append(("memory limit", f"{fp['memory_limit_mb']} MiB per bot"))
    if isinstance(fp.get("max_tasks"), int):
        items.append(("task cap", f"{fp['max_tasks']} processes and threads per bot"))
    containment = _containment(data)
    if containment:
        items.append(("containment", containment))
    if m.get("doors"):  # every door through which the entrants' code ran, and how
        items.append(("entrant code", str(m["doors"])))
    if isinstance(fp.get("fresh_process"), bool):
        items.append(("bot processes", "a fresh process for every game" if fp["fresh_process"]
                      else "reused between games"))
    for k in ("rounds", "seed", "path", "version"):
        if m.get(k) is not None and (k != "path" or paths):
            items.append((k if k != "path" else "config", str(m[k])))
    faults = len(payload["faults"])
    items.append(("faults", f"{faults} (timeouts, illegal moves, crashes)"))
    account = load_account((g.record for g in data.games), data.timeout_s)
    items.append(("busy machine", account.text().removeprefix("busy machine: ")))
    for k, v in payload["run_info"].items():
        if k not in {key for key, _ in items}:  # e.g. the version, already from the meta
            items.append((k, v if isinstance(v, str) else json.dumps(v)))
    items.append(("scoring", f"win {POINTS_WIN}, draw {POINTS_DRAW}, loss 0; a fault loses for "
                             f"the offender"))
    return '<dl class="info">' + "".join(f"<dt>{_e(k)}</dt><dd>{_e(v)}</dd>"
                                         for k, v in items) + "</dl>"


def _containment(data: ReportData) -> str:
    """What contained the bots, from the records ("cgroup v1 in 90 of 90 games", "rlimits only
    (...) in 4 of 4 games"; "" when no record says, i.e. games stored before cgroups were
    used)."""
    kinds: dict[str, int] = {}
    for g in data.games:
        kind = g.record.extra.get("cgroup")
        key = (RLIMITS_ONLY if kind == NO_CGROUP else f"cgroup {kind}" if isinstance(kind, str)
               else "not recorded")
        kinds[key] = kinds.get(key, 0) + 1
    if set(kinds) == {"not recorded"}:
        return ""
    total = len(data.games)
    return "; ".join(f"{k} in {n} of {total} games" for k, n in sorted(kinds.items()))


def _player_info_html(payload: dict[str, Any]) -> str:
    info: dict[str, dict[str, Any]] = payload["player_info"]
    if not info:
        return ""
    keys = sorted({k for d in info.values() for k in d})
    head = "".join(f"<th>{_e(k)}</th>" for k in keys)
    rows = "".join(
        f'<tr><td class="name">{_e(p)}</td>'
        + "".join(f"<td><code>{_e(_show(info.get(p, {}).get(k, '')))}</code></td>" for k in keys)
        + "</tr>" for p in payload["players"])
    return (f'<h3>Players</h3><table class="player-info"><thead><tr><th>player</th>{head}</tr>'
            f'</thead><tbody>{rows}</tbody></table>')


def _show(v: Any) -> str:
    return v if isinstance(v, str) else json.dumps(v)


def _analysis_html(data: ReportData) -> str:
    """Blunders per bot per game, per board, over the analysed games (empty if none)."""
    analyses = AnalysisStore(data.results_dir).all() if data.results_dir else {}
    rows = blunder_rows(data.games, analyses)
    if not rows:
        return ('<p class="note">No game analysed: <code>cxarena report DIR --analyze</code> '
                'solves every position of the games whose board the exact solver covers.</p>')
    body = "".join(f"<tr><td>{_e(r.player)}</td><td>{_e(r.board)}</td><td>{r.games}</td>"
                   f"<td>{r.blunders}</td><td>{r.per_game:.2f}</td></tr>" for r in rows)
    return ('<p>A blunder is a move that changed the proven value (won to drawn or lost, drawn '
            'to lost), or, without an exact value, missed an immediate win or allowed a loss '
            'the search proves. Open a game below to see its evaluation strip.</p>'
            '<table id="blunders-table"><thead><tr><th>bot</th><th>board</th>'
            '<th>games analysed</th><th>blunders</th><th>blunders per game</th></tr></thead>'
            f'<tbody>{body}</tbody></table>')


def render_html(data: ReportData, bot_text: bool = True) -> str:
    """The page for `data` (see the module docstring); `bot_text=False` leaves out what the
    bots wrote (fault details, stderr), for readers who are not the bots' authors, and the
    paths of the machine it ran on (the config's, the results folder's: its name only)."""
    payload, times = _payload(data, bot_text)
    st = data.standings
    limit_ms = payload["timeout_ms"]
    elo = plots.elo_svg([r.player for r in st.ranking], [r.elo for r in st.ranking],
                        [r.elo_ci95 for r in st.ranking])
    time_plot = plots.move_times_svg(times, limit_ms, payload["grace_ms"])
    blob = json.dumps(payload, separators=(",", ":"), ensure_ascii=False).replace("<", "\\u003c")
    generated = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    page = Template(static_text("report.html"))
    return page.substitute(
        title=_e(f"cxarena report: {data.name}"),
        name=_e(data.name),
        # a report for everyone (bot_text False) names no path of the machine it ran on
        generated=_e(f"generated {generated} by cxarena {__version__} from "
                     f"{data.results_dir if bot_text else data.results_dir.name}"),
        css=static_text("report.css"),
        run_info=_run_info_html(data, payload, paths=bot_text),
        player_info=_player_info_html(payload),
        standings=_standings_html(data),
        elo_svg=elo,
        crosstable=_crosstable_html(data),
        pairs=_pairs_html(data),
        boards=_boards_html(data),
        analysis=_analysis_html(data),
        times_svg=time_plot,
        times_table=_times_table(times, limit_ms),
        data=blob,
        viewer_js=viewer_script(),
        report_js=static_text("report.js"),
        csp=_e(report_csp()),
    )


def render_report(results_dir: str | Path) -> str:
    """The self-contained HTML report of the tournament stored in `results_dir`."""
    return render_html(load_report(results_dir))


def write_report(results_dir: str | Path, path: str | Path | None = None,
                 bot_text: bool = True) -> Path:
    """Write the report (default `results_dir/report.html`, atomically); returns its path.
    `bot_text=False`: without what the bots wrote (see `render_html`)."""
    data = load_report(results_dir)
    out = Path(path) if path is not None else data.results_dir / REPORT_HTML
    text = render_html(data, bot_text)
    tmp = out.with_name(out.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(out)
    return out
