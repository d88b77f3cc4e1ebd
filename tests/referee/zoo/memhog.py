"""Allocates far beyond any sensible memory limit in selectColumn, 64 MB at a time (crash,
detail mentions memory). bytes(n) is calloc'ed, so hitting the limit is quick."""

from arena.player import CXPlayer


class MemHog(CXPlayer):
    def initPlayer(self, M, N, K, first, timeout_in_secs):
        pass

    def selectColumn(self, B):
        hoard = []
        for _ in range(16_384):  # up to 1 TB
            hoard.append(bytes(64 * 2**20))
        return len(hoard)

    def playerName(self):
        return "memhog"
