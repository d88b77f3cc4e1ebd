"""Returns the value of its `value` option (set by the test): -1, 2.0, "3", None ...
Special values: "N" returns B.N (out of range); "numpy" a numpy integer of a legal column;
"huge" an int of 5000 digits (more than Python prints)."""

import numpy as np

from arena.player import CXPlayer


class Answer(CXPlayer):
    value: object = 0

    def initPlayer(self, M, N, K, first, timeout_in_secs):
        pass

    def selectColumn(self, B):
        if self.value == "N":
            return B.N
        if self.value == "huge":
            return 10**5000
        if self.value == "numpy":
            return np.int64(B.getAvailableColumns()[-1])
        return self.value

    def playerName(self):
        return f"answer({self.value!r})"
