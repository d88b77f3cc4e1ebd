"""A person plays a bot: `cxarena play` (terminal) and `cxarena serve` (browser).

- `seat`: `HumanSeat`, the CXPlayer that stands for the person. The referee runs it like any
  Python bot (its own process, `arena.entrants.host`); it takes its moves from the game's user
  interface over a private Unix socket.
- `session`: `HumanGame`, one game of a person against a bot, refereed by the real
  `arena.referee.Referee` (the bot's time limit enforced, the person's seat untimed), with live
  move events and the finished game stored as an ordinary `GameRecord` (`results/play`).
- `terminal`: the text user interface of `cxarena play`.
- `server`: the Starlette web app of `cxarena serve` (pages in `static/`).

Nothing here changes how a bot is run: a bot cannot tell a person from a bot.
"""
