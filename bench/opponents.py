"""Benchmark opponents nobody here wrote, as `exec:` bots speaking docs/protocol.md (v1).

    .venv-bench/bin/python bench/opponents.py openspiel-mcts [--fraction 0.7] [--uct-c 2]
    .venv-bench/bin/python bench/opponents.py kaggle-negamax

- ``openspiel-mcts``: OpenSpiel's C++ ``MCTSBot`` (`pyspiel.MCTSBot`) on OpenSpiel's
  ``connect_four`` game with the board's rows, columns and x_in_row; one random rollout per
  leaf (`pyspiel.RandomRolloutEvaluator`), UCT constant 2, MCTS-Solver on (``solve=True``),
  seeded from the game's seed; stopped by its own wall clock (``max_wall_clock_time``) at
  ``--fraction`` (default 70 %) of the per-move limit. It builds a new tree every move.
- ``kaggle-negamax``: the ``negamax`` agent that ships with kaggle-environments' ConnectX
  (depth-4 negamax with its own heuristic); it has no clock.

Run under a separate environment that has the packages (never cxarena's runtime or test
dependencies):

    python3 -m venv .venv-bench && .venv-bench/bin/pip install open-spiel kaggle-environments

This file imports nothing from cxarena: it is a program of its own, as a student's C++ bot
would be. Library chatter at import goes to stderr (stdout carries the protocol only).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from typing import Any


def _send(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


class OpenSpielMCTS:
    def __init__(self, fraction: float, uct_c: float) -> None:
        with contextlib.redirect_stdout(sys.stderr):
            import pyspiel
        self.pyspiel = pyspiel
        self.fraction = fraction
        self.uct_c = uct_c

    def new_game(self, M: int, N: int, K: int, timeout_s: float, seed: int) -> str:
        ps = self.pyspiel
        game = ps.load_game("connect_four", {"rows": M, "columns": N, "x_in_row": K})
        self.state = game.new_initial_state()
        seed %= 2**31
        evaluator = ps.RandomRolloutEvaluator(1, seed)
        self.bot = ps.MCTSBot(game, evaluator, self.uct_c, 10**9, 1000, True, seed, False,
                              ps.ChildSelectionPolicy.UCT, self.fraction * timeout_s)
        return f"openspiel-mcts({self.fraction:g})"

    def opponent(self, col: int) -> None:
        self.state.apply_action(col)

    def go(self) -> int:
        action = self.bot.step(self.state)
        self.state.apply_action(action)
        return int(action)


class KaggleNegamax:
    def __init__(self) -> None:
        with contextlib.redirect_stdout(sys.stderr):
            from kaggle_environments.envs.connectx.connectx import negamax_agent
        self.agent = negamax_agent

    def new_game(self, M: int, N: int, K: int, timeout_s: float, seed: int) -> str:
        self.M, self.N = M, N
        self.config = _Struct(rows=M, columns=N, inarow=K, timeout=timeout_s)
        self.board = [0] * (M * N)  # Kaggle's layout: row 0 on top, row-major
        self.moves = 0
        return "kaggle-negamax"

    def _drop(self, col: int) -> None:
        mark = self.moves % 2 + 1
        for row in range(self.M - 1, -1, -1):
            if self.board[row * self.N + col] == 0:
                self.board[row * self.N + col] = mark
                break
        self.moves += 1

    def opponent(self, col: int) -> None:
        self._drop(col)

    def go(self) -> int:
        obs = _Struct(board=list(self.board), mark=self.moves % 2 + 1)
        with contextlib.redirect_stdout(sys.stderr):
            col = int(self.agent(obs, self.config))
        self._drop(col)
        return col


class _Struct(dict):
    """Kaggle's agents read both obs.board and obs["board"]."""

    def __getattr__(self, name: str) -> Any:
        return self[name]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("bot", choices=["openspiel-mcts", "kaggle-negamax"])
    parser.add_argument("--fraction", type=float, default=0.7,
                        help="openspiel-mcts: share of the move limit it searches")
    parser.add_argument("--uct-c", type=float, default=2.0)
    args = parser.parse_args(argv)
    try:
        bot: OpenSpielMCTS | KaggleNegamax = (
            OpenSpielMCTS(args.fraction, args.uct_c) if args.bot == "openspiel-mcts"
            else KaggleNegamax())
    except ImportError as e:
        print(f"{args.bot}: cannot import its library ({e}); install it with "
              f".venv-bench/bin/pip install open-spiel kaggle-environments", file=sys.stderr)
        return 1
    for raw in sys.stdin:
        parts = raw.rstrip("\r\n").split(" ")
        word = parts[0]
        try:
            if word == "hello":
                _send("ready 1")
            elif word == "newgame":
                M, N, K = (int(x) for x in parts[1:4])
                timeout_s, seed = float(parts[5]), int(parts[6])
                json.loads(" ".join(parts[7:]) or "{}")  # options: none used
                _send("ok " + bot.new_game(M, N, K, timeout_s, seed))
            elif word == "opponent":
                bot.opponent(int(parts[1]))
            elif word == "go":
                _send(f"play {bot.go()}")
            elif word == "quit":
                return 0
        except Exception as e:
            _send(f"error {type(e).__name__}: {e}".replace("\n", " ")[:500])
            return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
