"""The wire between the referee and a bot process, shared by both ends.

Lives here: the line protocol (`protocol.py`: pure, no I/O, no third-party imports), the value
that says how to start a bot process (`launch.py`: `BotLaunch`) and the parent-death lifeline
(`lifeline.py`). The referee (`arena.referee`) speaks it from one side, the hosts of
`arena.entrants` from the other, so both import this package and neither imports the other.

Must not live here: processes, sandboxes, tournaments or any particular bot. Of `arena`, this
package imports only the games (`arena.games`: a game's rules, its parameters and its dialect
of the protocol); tests/test_architecture.py checks it.
"""
