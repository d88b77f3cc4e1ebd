"""Othello as a game plug-in: rules and notation (`game`)."""

from arena.games.othello.game import PASS, Othello, OthelloState, perft

__all__ = ["PASS", "Othello", "OthelloState", "perft"]
