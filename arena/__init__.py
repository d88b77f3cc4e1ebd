"""cxarena: a tournament harness for Connect-X bots.

The harness core (rules, player interface, referee, tournaments) lives here; bots live in the
separate `players` package and only ever import from `arena`, never the other way round.
"""

import logging

__version__ = "0.1.0"

# The harness logs (bot starts, faults, worker events) but prints nothing unless the caller
# configures logging; a tournament sends everything to results/<name>/arena.log.
logging.getLogger("arena").addHandler(logging.NullHandler())
