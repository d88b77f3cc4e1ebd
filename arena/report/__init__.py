"""Looking at a finished tournament: the HTML report and the terminal game view.

Everything here READS stored games and standings (`arena.results.store`,
`arena.results.standings`); nothing here runs a game or a bot.

- `explain.py`: words for how a game ended (fault explanations from `Reason` + detail) and the
  winning line of a position (pure);
- `data.py`: loads a results directory into a `ReportData` (games, standings, config summary);
- `plots.py`: the matplotlib figures (Elo with 95 % intervals, move times against the limit),
  rendered to inline SVG without a display;
- `html.py`: `render_report(results_dir) -> str`, one self-contained HTML page (inline CSS, JS,
  SVG and compact game data; no network);
- `show.py`: one game as text for `cxarena show`;
- `frames.py`: the positions of a game whose rules are not in JavaScript, for its drawer;
- `static/`: the page's CSS and JS; `static/viewer.js` is the game viewer of every game
  (`CXViewer.mount(element, game, options)`), reusable by any page that shows a board, with
  the board drawn by the game's drawer (``arena/games/<game>/draw.js``, loaded beside it).
"""

from __future__ import annotations

from arena.results import REPORT_HTML

__all__ = ["REPORT_HTML"]
