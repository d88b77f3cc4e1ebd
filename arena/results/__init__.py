"""The results model: what a tournament writes and the report reads.

Lives here: the durable SQLite store (`store.py`), standings recomputed from stored games
(`standings.py`), the Elo fit (`elo.py`) and the match statistics (`stats.py`: Elo intervals,
pentanomial model, SPRT), and the names of the files in a results folder.

Must not live here: running games (`arena.tournament`, which writes here) or rendering them
(`arena.report`, which reads here). This package imports only `arena.records` and
`arena.errors`.
"""

#: the files cxarena writes into a results folder (results/NAME/)
REPORT_HTML = "report.html"
LOG_FILE = "arena.log"
LOGS_DIR = "logs"
STANDINGS_MD = "standings.md"
STANDINGS_CSV = "standings.csv"
#: an adaptive final's ranking and how it was decided (`arena.league.final_adaptive` writes
#: them; the standings read the JSON's order)
ADAPTIVE_MD = "adaptive.md"
ADAPTIVE_JSON = "adaptive.json"
