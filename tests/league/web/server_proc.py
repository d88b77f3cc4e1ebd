"""Start the league's real server (uvicorn, 127.0.0.1, a free port) in a subprocess."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


@dataclass
class Server:
    proc: subprocess.Popen[str]
    url: str
    output: list[str]

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def start_server(directory: Path, timeout_s: float = 300.0) -> Server:
    """The server of the league in `directory`, once it says its address; `timeout_s` is only
    for a failure (on a busy machine its start has taken over 60 s)."""
    from arena.referee.sandbox import resolve

    cmd = [sys.executable, "-m", "arena", "league", "serve", str(directory), "--port", "0"]
    if not resolve("auto").isolated:  # CI machines without bubblewrap: say it in the name
        cmd.append("--unsafe-no-isolation")
    proc = subprocess.Popen(cmd, cwd=str(ROOT), stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True,
                            env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert proc.stdout is not None
    output: list[str] = []
    found: list[str] = []
    ready = threading.Event()

    def pump() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            output.append(line)
            m = re.search(r"open (http://127\.0\.0\.1:\d+)/", line)
            if m and not found:
                found.append(m.group(1))
                ready.set()
        ready.set()

    threading.Thread(target=pump, daemon=True).start()
    ready.wait(timeout_s)
    if not found:
        proc.kill()
        proc.wait()
        raise RuntimeError("the league server did not start:\n" + "".join(output))
    return Server(proc, found[0], output)
