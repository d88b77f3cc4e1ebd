"""Writes `mib` MiB (default 200) to stderr in initPlayer, then raises (crash): its log must stay
capped (tests/referee/test_logcap.py). Each MiB is `chunk(k)`: numbered lines of 64 bytes."""

import sys

from arena.player import CXPlayer

_BASE = b"".join(b"%05d " % i + b"." * 57 + b"\n" for i in range(16384))  # 1 MiB


def chunk(k):
    """The k-th MiB the bomb writes: it starts with its number."""
    return b"#%03d" % k + _BASE[4:]


class StderrBomb(CXPlayer):
    mib = 200

    def initPlayer(self, M, N, K, first, timeout_in_secs):
        out = sys.stderr.buffer
        for k in range(int(self.mib)):
            out.write(chunk(k))
        out.flush()
        raise RuntimeError("zoo: the stderr bomb went off")

    def selectColumn(self, B):
        return B.getAvailableColumns()[0]

    def playerName(self):
        return "stderr_bomb"
