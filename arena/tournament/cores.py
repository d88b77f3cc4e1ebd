"""`arena.competition.cores`, under the name `arena.tournament.config` still imports (that
module is being changed elsewhere; its import moves with it, and this file goes)."""

from arena.competition.cores import usable_core_ids, usable_cores

__all__ = ["usable_core_ids", "usable_cores"]
