"""The wire between the referee and a bot process, shared by both ends.

Lives here: the line protocol (`protocol.py`: pure, no I/O, no third-party imports) and the
parent-death lifeline (`lifeline.py`). The referee (`arena.referee`) speaks it from one side,
the hosts of `arena.entrants` from the other, so both import this package and neither imports
the other.

Must not live here: processes, sandboxes, tournaments or any particular bot. This package
imports only the rules (`arena.board`) and the records (`arena.records`).
"""
