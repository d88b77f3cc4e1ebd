"""Opens TCP connections: to 127.0.0.1 (option `port`, where the test listens) and to an outside
address (option `outside`, host:port)."""

import socket
import sys

from arena.player import CXPlayer


def _connect(host, port):
    try:
        with socket.create_connection((host, int(port)), timeout=2.0):
            pass
        print(f"CHEAT connect {host}:{port}: SUCCEEDED", file=sys.stderr, flush=True)
    except OSError as e:
        print(f"CHEAT connect {host}:{port}: blocked ({e})", file=sys.stderr, flush=True)


class Network(CXPlayer):
    port = 0
    outside = "1.1.1.1:53"

    def initPlayer(self, M, N, K, first, timeout_in_secs):
        self.done = False

    def selectColumn(self, B):
        if not self.done:
            self.done = True
            _connect("127.0.0.1", self.port)
            _connect(*self.outside.rsplit(":", 1))
        return B.getAvailableColumns()[0]

    def playerName(self):
        return "network"
