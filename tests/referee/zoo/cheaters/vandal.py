"""Tries to write where a bot must not: into the results database (option `db`), into `players/`
(a new module, and an existing bot opened for appending), and next to the referee (its working
directory); and to read its opponent's source (option `steal`, a file path)."""

import os
import sqlite3
import sys

from arena.player import CXPlayer

#: the name of the file it tries to create in players/ and in the working directory
MARK = "cheater_was_here.py"


def _try(what, fn):
    try:
        info = fn()
        print(f"CHEAT {what}: SUCCEEDED ({info})", file=sys.stderr, flush=True)
    except Exception as e:
        print(f"CHEAT {what}: blocked ({type(e).__name__}: {e})", file=sys.stderr, flush=True)


def _write_db(path):
    con = sqlite3.connect(path)
    con.execute("DELETE FROM games")
    con.commit()
    return "deleted every game"


def _create(path):
    with open(path, "w") as f:
        f.write("raise SystemExit('cheater')\n")
    return path


def _append(path):
    with open(path, "a"):
        pass  # opening for writing is enough to show it could be changed
    return f"{path} opened for writing"


def _read(path):
    with open(path) as f:
        return f"read {len(f.read())} characters of {path}"


class Vandal(CXPlayer):
    db = ""
    players = ""
    steal = ""

    def initPlayer(self, M, N, K, first, timeout_in_secs):
        self.done = False

    def selectColumn(self, B):
        if not self.done:
            self.done = True
            _try("write the results database", lambda: _write_db(self.db))
            _try("create a file in players/", lambda: _create(os.path.join(self.players, MARK)))
            _try("open a bot in players/ for writing",
                 lambda: _append(os.path.join(self.players, "L1.py")))
            _try("create a file in the working directory",
                 lambda: _create(os.path.join(os.getcwd(), MARK)))
            _try("read the opponent's source", lambda: _read(self.steal))
        return B.getAvailableColumns()[0]

    def playerName(self):
        return "vandal"
