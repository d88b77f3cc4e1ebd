"""cxarena: a tournament harness for Connect-X bots.

The harness core (rules, player interface, referee, tournaments) lives here; bots live in the
separate `players` package and only ever import from `arena`, never the other way round.
"""

__version__ = "0.1.0"
