"""Bots, one per module. Importing this package imports no bot: a bot is loaded only when a SPEC
names it (see `arena.entrants.specs`), so a broken bot never breaks the others. Modules whose name
starts
with an underscore hold shared helpers, not bots."""
