"""`serve(...)`: the league's web app under uvicorn, with the league's workers.

Binds 127.0.0.1 unless another host is asked for; then the Host header may also name that host
(for 0.0.0.0 / :: any name is accepted: put a TLS reverse proxy in front, see docs). Uploaded code
runs only in the sandbox: `serve` refuses to start when this machine cannot isolate bots, unless
`unsafe_no_isolation`.

Workers: `CheckPool`, threads of this process, runs the queued conformance checks, up to the
league's `check_workers` at once and never two of one student (`arena.league.checks`: each in a
process of its own, ended at the league's `check_limit_s`; a check that a killed server left
half-done is queued again at the next start, so it is not lost), and the rating games are
played by `workers` (default 1) worker processes or on a Dask cluster (`--scheduler`), see
`arena.league.worker`. A thread asks each new version for its play-similarity answers when no
check waits and the final is not running (`arena.similarity.background`).
"""

from __future__ import annotations

import contextlib
import logging
import socket
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import uvicorn

from arena.competition.openings import Judge
from arena.league import League, LeagueError
from arena.league.analysis import OracleFactory
from arena.league.checks import claim_check, prune_trees, requeue_interrupted, run_claimed
from arena.league.config import CONFIG_FILE
from arena.league.feed import start_workers
from arena.league.final import final_at_deadline
from arena.league.web.app import LOOPBACK_HOSTS, create_app
from arena.referee.sandbox import resolve
from arena.similarity.background import SimilarityWorker

__all__ = ["CheckPool", "serve"]

log = logging.getLogger("arena.league.web")


class CheckPool:
    """Runs the queued conformance checks until stopped: a dispatcher thread claims the next
    (`claim_check`: users take turns, never two checks of one user at a time) while fewer
    than the league's `check_workers` run, and runs each in a thread of its own
    (`run_claimed`: a process ended at the league's `check_limit_s`). After each check the
    unpacked folders of superseded versions are removed (`prune_trees`). The dispatcher also
    starts the final at the deadline (`final_at_deadline`)."""

    def __init__(self, directory: Path, idle_s: float = 0.5,
                 results_root: Path | None = None) -> None:
        self.dir = Path(directory)
        self.idle_s = idle_s
        #: where the final's results go when the deadline starts it (`final_at_deadline`)
        self.results_root = results_root or self.dir / "results"
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._running: dict[int, threading.Thread] = {}
        self._config_seen: tuple[float, int] | None = None
        lg = League.open(self.dir)
        try:  # a check in flight when the server was killed runs again
            self._apply_config(lg)
            requeue_interrupted(lg)
            prune_trees(lg)
        finally:
            lg.conn.close()
        self.thread = threading.Thread(target=self._run, name="league-checks", daemon=True)
        self.thread.start()

    def _apply_config(self, lg: League) -> None:
        """Apply DIR/league.yaml when it changed since last seen (`League.apply_config_file`):
        the changes, or the refusal and its reason, go to the server's log once."""
        path = self.dir / CONFIG_FILE
        try:
            st = path.stat()
            seen: tuple[float, int] | None = (st.st_mtime, st.st_size)
        except FileNotFoundError:
            seen = None
        if seen is not None and seen == self._config_seen:
            return
        self._config_seen = seen
        try:
            for change in lg.apply_config_file("serve"):
                log.warning("league.yaml: %s (applied)", change)
        except LeagueError as exc:
            log.warning("%s", exc)
        except OSError as exc:
            log.warning("league.yaml: cannot read it: %s", exc)

    def _check(self, sid: int) -> None:
        try:
            lg = League.open(self.dir)
            try:
                run_claimed(lg, sid, stop=self._stop)
                if not self._stop.is_set():
                    prune_trees(lg)
            finally:
                lg.conn.close()
        except Exception:  # a check must never take the server down
            log.exception("league check of submission %d failed", sid)
        finally:
            self._wake.set()

    def _run(self) -> None:
        while not self._stop.is_set():
            self._wake.clear()
            try:
                lg = League.open(self.dir)
                try:
                    self._apply_config(lg)
                    for done in [s for s, t in self._running.items() if not t.is_alive()]:
                        del self._running[done]
                    while len(self._running) < lg.config.file.check_workers:
                        sid = claim_check(lg)
                        if sid is None:
                            break
                        t = threading.Thread(target=self._check, args=(sid,), daemon=True,
                                             name=f"league-check-{sid}")
                        self._running[sid] = t
                        t.start()
                    started = final_at_deadline(lg, self.results_root)
                    if started:
                        log.warning("the deadline has passed: the final round robin started "
                                    "(%s)", started)
                finally:
                    lg.conn.close()
            except Exception:  # a check must never take the server down
                log.exception("league check failed")
            self._wake.wait(self.idle_s)

    def running(self) -> list[int]:
        """The versions being checked now."""
        return [s for s, t in list(self._running.items()) if t.is_alive()]

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        self.thread.join(timeout=5)
        for t in list(self._running.values()):
            t.join(timeout=10)


class _Workers:
    """The check thread of this process, the game workers (`arena.league.worker`) and the
    play similarity asked in the background (`arena.similarity.background`)."""

    def __init__(self, directory: Path, workers: int | None, scheduler: str | None,
                 judge: Judge | None, strict: bool = True,
                 oracle_factory: OracleFactory | None = None) -> None:
        self.games = start_workers(directory, workers, scheduler, judge, strict,
                                   oracle_factory)
        self.checks = CheckPool(directory)
        self.similarity = SimilarityWorker(directory)

    def stop(self) -> None:
        self.similarity.stop()
        self.checks.stop()
        self.games.stop()


def _allowed_hosts(host: str) -> tuple[str, ...] | None:
    if host in ("0.0.0.0", "::", ""):
        return None
    return tuple(dict.fromkeys((*LOOPBACK_HOSTS, host.lower())))


def serve(directory: Path, host: str = "127.0.0.1", port: int = 8000,
          workers: int | None = None, scheduler: str | None = None,
          unsafe_no_isolation: bool = False,
          announce: Callable[[str], None] = print, judge: Judge | None = None,
          forwarded_allow_ips: str | None = None,
          oracle_factory: OracleFactory | None = None) -> None:
    """Run the web app and the workers until interrupted. Port 0 picks a free port; the address
    is announced ("league: open http://...") once the server listens. `judge` judges the
    openings of rating games (None: every pair starts from the empty board).
    `forwarded_allow_ips`: the reverse proxy whose X-Forwarded-For header names the client;
    None trusts no forwarded header (the client is the TCP peer). `oracle_factory`: the search
    that analyses the rating games a student lost (None: no analyses)."""


    directory = Path(directory)
    League.open(directory).conn.close()
    isolation = resolve("auto")
    if not isolation.isolated and not unsafe_no_isolation:
        raise LeagueError(f"uploaded code must run in the sandbox, and this machine cannot "
                          f"isolate bots ({isolation.reason}); install bubblewrap, or pass "
                          f"--unsafe-no-isolation on a machine of your own")
    app = create_app(directory, allowed_hosts=_allowed_hosts(host))
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(128)
    bound = sock.getsockname()[1]
    pool = _Workers(directory, workers, scheduler, judge, strict=not unsafe_no_isolation,
                    oracle_factory=oracle_factory)
    shown = f"[{host}]" if ":" in host else host
    try:
        # uvicorn trusts X-Forwarded-For from 127.0.0.1 unless told otherwise, which would let
        # anyone on this host pick their own address: trust a proxy only when named
        config = uvicorn.Config(app, log_level="warning", timeout_graceful_shutdown=5,
                                proxy_headers=bool(forwarded_allow_ips),
                                forwarded_allow_ips=forwarded_allow_ips or "")
        server = uvicorn.Server(config)
        if not isolation.isolated:
            announce("league: WARNING: uploaded code runs WITHOUT isolation "
                     "(--unsafe-no-isolation)")
        announce(f"league: open http://{shown}:{bound}/  (Ctrl-C stops)")
        sys.stdout.flush()
        server.run(sockets=[sock])
    finally:
        with contextlib.suppress(Exception):
            pool.stop()
        sock.close()
