"""The analysis process of a league server that was killed (SIGKILL: no stop, no goodbye)
ends by itself (issue 40, point 9: nothing accumulates under or after the server). Started from
the fork server, it would otherwise wait for games forever, and keep that fork server alive."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from tests.conftest import sigint_state

ROOT = Path(__file__).resolve().parents[2]

SERVER = textwrap.dedent("""\
    import sys, time
    from pathlib import Path

    from arena.commands import analysis_oracle
    from arena.league.feed import _Analyses

    if __name__ == "__main__":  # the fork server's children import this module too
        analyses = _Analyses(Path(sys.argv[1]), analysis_oracle)
        print(analyses.proc.pid, flush=True)
        time.sleep(600)
    """)


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _in_its_main(pid: int) -> bool:
    """Whether the analysis process runs its own code (`feed._analysis_main`, whose first act
    is to ignore SIGINT): its start (imports, on a busy machine seconds) is over."""
    try:
        return sigint_state(pid)[0]
    except OSError:
        return False


def test_the_analysis_process_ends_with_a_killed_server(tmp_path: Path) -> None:
    script = tmp_path / "server.py"
    script.write_text(SERVER)
    server = subprocess.Popen([sys.executable, str(script), str(tmp_path)], cwd=ROOT,
                              stdout=subprocess.PIPE, text=True,
                              env=dict(os.environ, PYTHONPATH=str(ROOT)))
    pid = 0
    try:
        assert server.stdout is not None
        pid = int(server.stdout.readline())
        # up: however long its start takes on a busy machine (the bound is for a failure)
        deadline = time.monotonic() + 300
        while _alive(pid) and not _in_its_main(pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _alive(pid) and _in_its_main(pid), "the analysis process did not start"
        os.kill(server.pid, signal.SIGKILL)
        server.wait()
        # it notices within a second or so (feed.PARENT_CHECK_S); the bound is for a failure
        deadline = time.monotonic() + 120
        while _alive(pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not _alive(pid), "the analysis process outlived its killed server"
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
        if pid and _alive(pid):  # a failure leaves nothing behind either
            os.kill(pid, signal.SIGKILL)
