"""`serve(...)`: the league's web app under uvicorn, with the league's workers.

Binds 127.0.0.1 unless another host is asked for; then the Host header may also name that host
(for 0.0.0.0 / :: any name is accepted: put a TLS reverse proxy in front, see docs). Uploaded code
runs only in the sandbox: `serve` refuses to start when this machine cannot isolate bots, unless
`unsafe_no_isolation`.

Workers: the league core's pool (`arena.league.worker.start_local_workers` or
`start_dask_workers`) when the core provides it; otherwise threads of this process: one runs
the queued conformance checks (`arena.league.checks.check_next`) -- a check that a killed server
left half-done is queued again at the next start, so it is not lost -- and `workers` (default 1)
play the rating games (`arena.league.web.rating_worker`, a stand-in for the core's worker).
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import socket
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from arena.league import League, LeagueError
from arena.league.web.app import LOOPBACK_HOSTS, create_app

__all__ = ["CheckThread", "main", "serve"]

log = logging.getLogger("arena.league.web")


class CheckThread:
    """Runs the queued conformance checks, one at a time, until stopped."""

    def __init__(self, directory: Path, idle_s: float = 0.5) -> None:
        self.dir = Path(directory)
        self.idle_s = idle_s
        self._stop = threading.Event()
        lg = League.open(self.dir)
        try:  # a check in flight when the server was killed runs again
            with lg.conn:
                lg.conn.execute("UPDATE submissions SET status='queued' WHERE status='checking'")
        finally:
            lg.conn.close()
        self.thread = threading.Thread(target=self._run, name="league-checks", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        from arena.league.checks import check_next

        while not self._stop.is_set():
            try:
                lg = League.open(self.dir)
                try:
                    done = check_next(lg)
                finally:
                    lg.conn.close()
            except Exception:  # a check must never take the server down
                log.exception("league check failed")
                done = None
            if done is None:
                self._stop.wait(self.idle_s)

    def stop(self) -> None:
        self._stop.set()
        self.thread.join(timeout=5)


def start_workers(directory: Path, workers: int | None, scheduler: str | None) -> Any:
    """The core's worker pool when it has one, else the check thread."""
    try:
        from arena.league import worker  # type: ignore[attr-defined]
    except ImportError:
        worker = None
    if worker is not None:
        if scheduler:
            return worker.start_dask_workers(directory, scheduler)
        return worker.start_local_workers(directory, workers or 1)
    if scheduler:
        raise LeagueError("--scheduler: this version of the league core has no Dask workers; "
                          "use --workers")
    return _Threads(directory, workers or 1)


class _Threads:
    """The stand-in workers: the check thread and `games` rating-game threads."""

    def __init__(self, directory: Path, games: int) -> None:
        from arena.league.web.rating_worker import RatingThread

        self.checks = CheckThread(directory)
        self.games = [RatingThread(directory) for _ in range(max(1, games))]

    def stop(self) -> None:
        self.checks.stop()
        for g in self.games:
            g.stop()


def _allowed_hosts(host: str) -> tuple[str, ...] | None:
    if host in ("0.0.0.0", "::", ""):
        return None
    return tuple(dict.fromkeys((*LOOPBACK_HOSTS, host.lower())))


def serve(directory: Path, host: str = "127.0.0.1", port: int = 8000,
          workers: int | None = None, scheduler: str | None = None,
          unsafe_no_isolation: bool = False,
          announce: Callable[[str], None] = print) -> None:
    """Run the web app and the workers until interrupted. Port 0 picks a free port; the address
    is announced ("league: open http://...") once the server listens."""
    import uvicorn

    from arena.referee.sandbox import resolve

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
    pool = start_workers(directory, workers, scheduler)
    shown = f"[{host}]" if ":" in host else host
    try:
        config = uvicorn.Config(app, log_level="warning", timeout_graceful_shutdown=5)
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


def main(argv: list[str] | None = None) -> int:
    """`python -m arena.league.web DIR [--host H] [--port P] [--workers N | --scheduler A]`
    (what `cxarena league serve` runs)."""
    p = argparse.ArgumentParser(prog="python -m arena.league.web",
                                description="run the league's web app and workers")
    p.add_argument("dir", type=Path)
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8000)
    g = p.add_mutually_exclusive_group()
    g.add_argument("--workers", type=int, default=None)
    g.add_argument("--scheduler", default=None)
    p.add_argument("--unsafe-no-isolation", action="store_true")
    args = p.parse_args(argv)
    try:
        serve(args.dir, args.host, args.port, args.workers, args.scheduler,
              args.unsafe_no_isolation)
    except (LeagueError, OSError) as exc:
        print(f"league serve: error: {exc}", file=sys.stderr)
        return 2
    return 0
