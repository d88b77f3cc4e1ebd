"""Prints to stdout (print, sys.stdout.write, os.write on fd 1) and reads stdin every move;
plays legally. Must play normally: none of this may reach the protocol."""

import os
import sys

from arena.player import CXPlayer


class Printer(CXPlayer):
    def initPlayer(self, M, N, K, first, timeout_in_secs):
        print("play 0")  # would be a legal-looking answer if it reached the referee
        print("ok hacked")

    def selectColumn(self, B):
        print("thinking... play 0")
        sys.stdout.write("play 0\n")
        sys.stdout.flush()
        os.write(1, b"play 0\ngarbage \xff\n")
        sys.stdin.read()  # must not swallow the referee's messages
        return B.getAvailableColumns()[-1]

    def playerName(self):
        print("my name is printer")
        return "printer"
