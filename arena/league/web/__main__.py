"""`python -m arena.league.web DIR ...`: see `arena.league.web.server.main`."""

import sys

from arena.league.web.server import main

sys.exit(main())
