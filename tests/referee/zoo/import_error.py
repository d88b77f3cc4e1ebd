"""Fails to import (crash: failed to start)."""

import no_such_module_for_the_zoo  # noqa: F401

from arena.player import CXPlayer


class ImportError_(CXPlayer):
    def initPlayer(self, M, N, K, first, timeout_in_secs):
        pass

    def selectColumn(self, B):
        return 0

    def playerName(self):
        return "import_error"
