"""MCTS: Monte-Carlo tree search with UCT and random playouts.

The bot grows a game tree from the current position, one node per iteration, until its time
budget is spent. Each iteration has four steps:

1. **Selection**: from the root, repeatedly go to the child with the best UCT value
   ``score/visits + c * sqrt(ln(parent visits) / visits)`` (the first term favours moves that
   did well, the second moves tried rarely) until reaching a node with untried moves;
2. **Expansion**: play one untried move there and add the new position to the tree;
3. **Simulation**: finish the game from it with uniformly random moves (`players._shared.playout`);
4. **Backpropagation**: add the result to every node on the path (1 for a win, 1/2 for a draw,
   each node counting from the side of the player who made its move).

The answer is the root's most visited child. Scores are kept in each node from the point of view
of the player who moved into it, so "best for the side to move" is simply the child with the
best score.

Tactics that make it much stronger than plain UCT for the same number of playouts:
- before searching, an immediate win is played and an immediate threat is blocked
  (`players._shared.common`);
- in the tree, a node whose side to move can win at once is a proven loss for the player who
  moved into it, and a node where the opponent threatens to win at once only gets the blocking
  move (two threats: a proven win for the mover). Proven results go up the tree as in
  MCTS-Solver: a node with a winning child is won; a node whose children are all proven is
  worth its best child. Proven-lost children are never selected again.

The tree is reused: on our next turn, if the opponent's reply to our move is in the tree (the
child of our move's node), that node becomes the new root with all its statistics.

On boards wider than 12 columns the tree only considers columns near the pieces already played
(see `players._shared.playout.candidate_columns`); playouts still use every column.

Options (set as attributes by the harness): ``playouts`` fixes the number of iterations per move
instead of using the clock (deterministic for a seed while the time limit allows);
``exploration`` is the UCT constant c.
"""

from __future__ import annotations

import math
import random

from arena.board import CXBoard
from arena.player import CXPlayer
from arena.timing import Deadline, safe_budget_s
from players._shared.common import immediate_threats, immediate_wins, no_gc_pauses, release_frozen
from players._shared.playout import (
    Position,
    candidate_columns,
    random_playout,
    tactical_moves,
)

WIN, DRAW, LOSS = 1.0, 0.5, 0.0


class Node:
    """A position in the search tree, reached by `move` of player `mover` (1 or 2).

    `score` sums the playout results from `mover`'s point of view over `visits` playouts.
    `untried` is None until the node is first expanded, then the moves not yet added as children.
    `proven` is WIN/DRAW/LOSS (for `mover`) once the game-theoretic value is known, else None.
    """

    __slots__ = ("move", "mover", "children", "untried", "visits", "score", "proven")

    def __init__(self, move: int, mover: int, proven: float | None = None) -> None:
        self.move = move
        self.mover = mover
        self.children: list[Node] = []
        self.untried: list[int] | None = None
        self.visits = 0
        self.score = 0.0
        self.proven = proven

    def child(self, move: int) -> Node | None:
        for ch in self.children:
            if ch.move == move:
                return ch
        return None


class MCTS(CXPlayer):
    #: iterations per move; None: as many as the time budget allows
    playouts: int | None = None
    #: the UCT exploration constant c
    exploration: float = 1.0

    def initPlayer(self, M: int, N: int, K: int, first: bool, timeout_in_secs: float) -> None:
        release_frozen()  # the previous game's search, frozen by no_gc_pauses
        self.rng = random.Random(self.seed)
        self.budget_s = safe_budget_s(timeout_in_secs)
        self.tree: Node | None = None  # the root of the last search (the position before our
        self.played: list[int] = []  # last move) and the moves up to and including that move
        self.reused = False  # whether the last search started from a reused subtree
        self.iterations = 0  # iterations run by the last search

    def playerName(self) -> str:
        return "MCTS"

    def selectColumn(self, B: CXBoard) -> int:
        deadline = Deadline(self.budget_s)
        moves = B.moves()
        root = self._reusable_root(moves)
        self.reused = root is not None
        self.iterations = 0
        legal = B.getAvailableColumns()
        choice = None
        for tactic in (immediate_wins, immediate_threats):
            found = tactic(B)
            if found:
                choice = found[0]
                break
        if choice is None and len(legal) == 1:
            choice = legal[0]
        if choice is None:
            pos = Position.from_board(B)
            if root is None:
                root = Node(moves[-1] if moves else -1, 3 - pos.player)
            with no_gc_pauses():
                self._search(root, pos, deadline)
            choice = self._best_move(root, pos)
        self.tree = root
        self.played = moves + [choice]
        return choice

    # ----------------------------------------------------------------- tree reuse
    def _reusable_root(self, moves: list[int]) -> Node | None:
        """The node of the current position in the last search's tree (our last move, then the
        opponent's reply), if `moves` continue our game and the tree has it; else None."""
        if self.tree is None or moves[:-1] != self.played:
            return None
        ours = self.tree.child(self.played[-1])
        return ours.child(moves[-1]) if ours is not None else None

    # --------------------------------------------------------------------- search
    def _search(self, root: Node, pos: Position, deadline: Deadline) -> None:
        random = self.rng.random
        c = self.exploration
        budget = self.playouts
        end_s = deadline.end_s
        while root.proven is None and not deadline.expired():
            if budget is not None and self.iterations >= budget:
                break
            self.iterations += 1
            p = pos.copy()
            node = root
            path = [root]
            # 1. selection: descend through fully expanded nodes
            while node.proven is None:
                if node.untried is None:
                    if node is not root and node.visits == 0:
                        break  # a fresh leaf: play out from here
                    self._expand_moves(node, p)
                    if node.proven is not None:
                        break
                if node.untried:
                    # 2. expansion: add one untried move
                    move = node.untried.pop()
                    won = p.play(move)
                    child = Node(move, node.mover ^ 3,
                                 WIN if won else DRAW if p.is_full() else None)
                    node.children.append(child)
                    node = child
                    path.append(node)
                    break
                node = self._select_child(node, c)
                p.play(node.move)
                path.append(node)
            # 3. simulation
            if node.proven is not None:
                winner = (node.mover if node.proven == WIN
                          else 3 - node.mover if node.proven == LOSS else 0)
            else:
                result = random_playout(p, random, end_s)
                if result is None:
                    break  # out of time in the playout: discard it
                winner = result
            # 4. backpropagation (with proofs going up while they can)
            proving = node.proven is not None
            for i in range(len(path) - 1, -1, -1):
                n = path[i]
                n.visits += 1
                if winner == n.mover:
                    n.score += 1.0
                elif winner == 0:
                    n.score += 0.5
                if proving and i + 1 < len(path):
                    proving = self._update_proof(n)

    def _expand_moves(self, node: Node, p: Position) -> None:
        """Set `node.untried` for position `p`, or prove the node from the tactics."""
        wins, threats = tactical_moves(p)
        if wins:
            node.proven = LOSS  # the side to move wins at once
            node.untried = []
        elif len(threats) >= 2:
            node.proven = WIN  # two threats cannot both be blocked
            node.untried = []
        elif threats:
            node.untried = threats
        else:
            node.untried = candidate_columns(p)[::-1]  # popped from the end: centre first

    @staticmethod
    def _select_child(node: Node, c: float) -> Node:
        """The child with the best UCT value among those not proven lost for their mover (a
        node being searched is unproven, so it has such a child)."""
        log_n = math.log(node.visits)
        best, best_value = node.children[0], -math.inf
        for ch in node.children:
            if ch.proven == LOSS:
                continue
            if not ch.visits:  # its playout was cut off by the clock: visit it first
                return ch
            value = ch.score / ch.visits + c * math.sqrt(log_n / ch.visits)
            if value > best_value:
                best, best_value = ch, value
        return best

    @staticmethod
    def _update_proof(node: Node) -> bool:
        """Prove `node` from its children if possible (MCTS-Solver); True if it is proven."""
        if node.proven is not None:
            return True
        best = None
        complete = node.untried is not None and not node.untried
        for ch in node.children:
            v = ch.proven
            if v == WIN:  # the side to move at `node` has a winning move
                node.proven = LOSS
                return True
            if v is None:
                complete = False
            elif best is None or v > best:
                best = v
        if complete and best is not None:
            node.proven = 1.0 - best
            return True
        return False

    def _best_move(self, root: Node, pos: Position) -> int:
        """A proven win if there is one; else the most visited child not proven lost."""
        children = root.children
        for ch in children:
            if ch.proven == WIN:
                return ch.move
        alive = [ch for ch in children if ch.proven != LOSS] or children
        if not alive:  # no iteration finished: fall back on the centre-most candidate
            return candidate_columns(pos)[0]
        return max(alive, key=lambda ch: (ch.visits, ch.score)).move
