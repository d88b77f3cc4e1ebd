"""The one home of every referee default: the config, `match`, `check-bot` and the referee read
them from here (times in seconds, memory in MiB)."""

from __future__ import annotations

#: per-move (and initPlayer) time limit of `check-bot`, `play` and `serve` when none is given
TIMEOUT_S = 1.0
#: margin added before an answer counts as late
GRACE_S = 0.010
#: from a bot process's start to its `ready`
STARTUP_TIMEOUT_S = 30.0
#: memory limit per bot process
MEMORY_LIMIT_MB = 2048
#: memory limit of a process at a door other than a game (a bot's load check, javac, a JVM's
#: class check: `arena.wire.door`)
DOOR_MEMORY_LIMIT_MB = 2048
#: the smallest memory limit accepted: a Python bot needs about 100 MiB to start
MIN_MEMORY_MB = 256
#: a late move is not charged when the machine kept the bot waiting for a CPU (run-queue wait,
#: docs/protocol.md) for at least its overrun and at least this share of the limit: the game is
#: played again instead
OVERLOAD_MIN_WAIT_SHARE = 0.2
#: the hard wall limit of a move: the referee waits past a move's deadline (limit + grace) by
#: as long as the machine kept the bot waiting for a CPU meanwhile, but never
#: past this many times the deadline; a move's charged time is its wall time less that wait
#: (docs/protocol.md)
FAIR_MAX_WALL_FACTOR = 1.5
#: a late move in which the bot computed at most this much (CPU ms, its whole cgroup where it has
#: one) while the kernel shows it held by something not its own (runnable but never run,
#: stopped, frozen, blocked in a page fault) is the machine's: played again, never charged
#: (docs/protocol.md, "A bot that never got to run")
STALL_MAX_CPU_MS = 2.0
#: resuming a bot (writing its request, then SIGCONT or the freezer) that takes at least this
#: long is looked at: the time the bot was still stopped is the referee's, not the bot's
THAW_SLOW_S = 0.001
#: the CPU weight of the folder that holds the bots' cgroups, against the other groups and
#: tasks beside it (`arena.referee.cgroups`): cgroup v1 `cpu.shares` (the kernel's maximum;
#: a task of nice 0 weighs 1024) and cgroup v2 `cpu.weight` (its maximum; 100 is the default).
#: Only the bot to move runs (the other is stopped), so it takes a core from outside work
BOTS_CPU_SHARES = 262144
BOTS_CPU_WEIGHT = 10000
#: after a game whose bot the machine kept waiting, the local executor runs one game fewer at a
#: time; after this many games in a row without such a wait, one more again
#: (`arena.competition.pressure`)
CALM_GAMES = 4
#: how many times one game is played again because of an overloaded machine before a late move
#: is charged all the same
OVERLOAD_REPLAYS = 2
#: isolation of bot processes: auto (sandbox where the machine allows it), namespaces, none
ISOLATION = "auto"
#: size of a sandboxed bot's private scratch (/tmp, and /dev/shm), in MiB
SCRATCH_MB = 64
#: `cxarena match` without --log-dir keeps the bot logs of this many most recent matches (each
#: in a cxarena-match-logs-* folder of the temp dir) and removes older ones
KEEP_MATCH_LOGS = 10
#: of each game (and of what a bot process writes before its first game), its log keeps the
#: first BOT_LOG_HEAD_KB and the last BOT_LOG_TAIL_KB KiB of its stderr, with a line saying how
#: many bytes were cut between them (arena.referee.logcap)
BOT_LOG_HEAD_KB = 64
BOT_LOG_TAIL_KB = 64
#: the bot logs of one results folder (a tournament's, a match's --log-dir) and of one league
#: take at most about this many MiB with heads and tails; past it each game's log keeps only
#: its last LOG_TAIL_OVER_BUDGET_KB KiB (after a note)
LOG_BUDGET_MB = 64
LOG_TAIL_OVER_BUDGET_KB = 4
#: the most tasks (processes and threads, counted together by the cgroup `pids` controller) one
#: bot may run at once, where cgroups are available (arena.referee.cgroups). Measured on a
#: 2-core machine: a stock JVM starts with 14 (-XX:+UseSerialGC, as cxarena runs Java bots)
#: to 19 (default GC) tasks, a numba bot with 2, a sandbox adds 2 (bwrap and its init); a
#: JVM's GC and compiler threads grow with the cores (about 100 on 64 cores): well above all
MAX_TASKS = 512
#: the smallest task cap accepted
MIN_TASKS = 16
#: use cgroups for bots where the machine offers them (`cxarena doctor` says what it offers)
CGROUPS = True
#: the most protocol comment lines (empty, or starting with #: arena.wire.protocol) and KiB of
#: them a bot may write in answer to one request (counted from the request to its answer, and
#: what it wrote since its last answer); one more is the bot's fault (`illegal` for a move,
#: `crash` for `newgame`), whose detail says so
MAX_COMMENT_LINES = 10_000
MAX_COMMENT_KB = 1024
#: a late move during which the bot wrote more comment lines or KiB than these is charged as
#: late, never voided as the machine's (overload): the referee's reading of them is CPU the
#: bot made it spend
OVERLOAD_MAX_COMMENT_LINES = 1000
OVERLOAD_MAX_COMMENT_KB = 64
#: every game has a wall-clock limit: GAME_TIME_FACTOR x (start-up limit + (2 + plies) x (limit
#: + grace)) + GAME_TIME_SLACK_S, plies being the game's move cap or its expected length
#: (`Game.cost`), or the moves played so far where more; past it the game ends and the bot
#: being waited on is charged a `timeout`
GAME_TIME_FACTOR = 2.0
GAME_TIME_SLACK_S = 30.0
