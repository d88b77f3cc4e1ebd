"""`cxarena serve [--port N] [--host H]`: a local web app to play the bots in the browser and
browse stored results (see `arena.play.server`). Bound to 127.0.0.1 unless --host says
otherwise (with a warning: whoever reaches the port can start the listed bots)."""

from __future__ import annotations

import argparse
import socket
import sys
from pathlib import Path

from arena.errors import UsageError

HELP = "play the bots in your browser (a local web app) and browse stored results"

__all__ = ["HELP", "add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--port", type=int, default=8000, metavar="N",
                        help="TCP port (default %(default)d; 0 picks a free one)")
    parser.add_argument("--host", default="127.0.0.1", metavar="HOST",
                        help="address to listen on (default 127.0.0.1, this machine only)")
    parser.add_argument("--configs", default="configs", metavar="DIR",
                        help="also offer the players of DIR/*.yaml (default configs)")
    parser.add_argument("--results", default="results/play", metavar="DIR",
                        help="store played games here (default results/play); its parent "
                             "folder is browsed for stored results")
    parser.add_argument("--max-games", type=int, default=8, metavar="G",
                        help="games (bot processes) running at once, at most (default 8)")


def run(args: argparse.Namespace) -> int:
    import uvicorn

    from arena.play.catalog import collect_bots
    from arena.play.server import LOOPBACK_HOSTS, BotList, create_app, is_loopback

    if not 0 <= args.port <= 65535:
        raise UsageError(f"--port must be in 0..65535, got {args.port}")
    if args.max_games < 1:
        raise UsageError(f"--max-games must be at least 1, got {args.max_games}")
    configs, results = Path(args.configs), Path(args.results)
    if configs.exists() and not configs.is_dir() or (
            not configs.exists() and args.configs != "configs"):
        raise UsageError(f"--configs {configs}: not a folder of tournament configs")
    if results.exists() and not results.is_dir():
        raise UsageError(f"--results {results}: exists and is not a folder")
    try:
        sock = socket.socket(socket.AF_INET6 if ":" in args.host else socket.AF_INET)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((args.host, args.port))
        # listening before the address is printed: a client that connects as soon as it reads
        # it waits in the backlog until the server accepts, instead of being refused
        sock.listen(128)
    except OSError as e:
        raise UsageError(f"--host {args.host} --port {args.port}: cannot listen there: "
                         f"{e.strerror or e}") from None
    loopback = is_loopback(args.host)
    if not loopback:
        print(f"cxarena serve: warning: listening on {args.host}, not only this machine: "
              f"anyone who reaches this port can start the listed bots on it",
              file=sys.stderr, flush=True)
    entrants, docs, warnings = collect_bots(configs)
    for w in warnings:
        print(f"cxarena serve: warning: {w}", file=sys.stderr, flush=True)
    if not entrants:
        raise UsageError("no bot to offer: `cxarena players` lists none that loads")
    app = create_app(BotList(tuple(entrants), docs), results_dir=results,
                     results_root=results.parent, max_games=args.max_games,
                     allowed_hosts=(*LOOPBACK_HOSTS, args.host) if loopback else None)
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    print(f"cxarena serve: {len(entrants)} bots; games are stored in {results}", flush=True)
    print(f"cxarena serve: open http://{shown}:{port}/ (Ctrl-C to stop)", flush=True)
    config = uvicorn.Config(app, log_level="warning", ws_ping_interval=10.0,
                            ws_ping_timeout=10.0, timeout_graceful_shutdown=5)
    server = uvicorn.Server(config)
    server.run(sockets=[sock])
    return 0
