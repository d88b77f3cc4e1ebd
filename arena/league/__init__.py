"""The class league: accounts, uploads and their storage in DIR/league.sqlite (WAL).

State lives in one sqlite file; each version of a bot is stored unchanged with a fingerprint of
its bytes. See LEAGUE_API (coordinator) for the Python API the web app codes against.
"""

from arena.league.db import League, LeagueError, Submission, UploadError, User

__all__ = ["League", "LeagueError", "Submission", "UploadError", "User"]
