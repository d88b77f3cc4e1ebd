"""The one door (`arena.wire.door`, `arena.referee.door`): entrant code that runs outside a game
(the load probe, the Kaggle probe, javac, the JVM's class check) runs in the sandbox, as a game's
bot does. Each test is an attack of issue 36's table, run for real: the bot tries to act outside
its sandbox at the door, and a marker file or a database outside the sandbox's view shows that it
could not. Skipped, with the reason, where the machine has no sandbox (CI installs bubblewrap)
or no JDK (the Java rows)."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.entrants.java import DEFAULT_JVM_OPTIONS
from arena.entrants.probe import check_loadable, probe_each, probe_in_turn
from arena.entrants.specs import SpecError, parse_spec
from arena.errors import UsageError
from arena.referee import door as referee_door
from arena.referee import sandbox
from arena.referee.referee import course_game
from arena.wire import door

pytestmark = pytest.mark.skipif(sandbox.probe() is not None,
                                reason=f"no sandbox here: {sandbox.probe()}")
HAS_JDK = shutil.which("javac") is not None and shutil.which("java") is not None
needs_jdk = pytest.mark.skipif(not HAS_JDK, reason="javac/java not found: install a JDK")


@pytest.fixture(autouse=True)
def sandboxed_door() -> Iterator[None]:
    """This process's door, sandboxed (as `cxarena` installs it with isolation auto)."""
    before = door.installed()
    referee_door.install("namespaces")
    yield
    if before is not None:
        door.install(before)


@pytest.fixture
def league(tmp_path: Path) -> Path:
    """A league folder as the server keeps it: its database (with a users table whose admin
    flag a student wants) and an uploaded version's folder two levels down."""
    folder = tmp_path / "league"
    (folder / "submissions" / "7").mkdir(parents=True)
    with sqlite3.connect(folder / "league.sqlite") as db:
        db.execute("create table users (name text, admin integer)")
        db.execute("insert into users values ('mallory', 0)")
    return folder


def _admin(league: Path) -> int:
    with sqlite3.connect(league / "league.sqlite") as db:
        return int(db.execute("select admin from users").fetchone()[0])


# what a hostile bot does as soon as it is imported: make its author admin, leave a marker
# outside, and rewrite its own file (so that the run can no longer be resumed)
ATTACK = '''
import os, sqlite3
HERE = os.path.dirname(os.path.abspath(__file__))
try:
    db = sqlite3.connect(os.path.join(HERE, "..", "..", "league.sqlite"))
    db.execute("update users set admin = 1")
    db.commit()
except Exception:
    pass
try:
    with open({marker!r}, "w") as f:
        f.write("ran outside the sandbox")
except OSError:
    pass
try:
    with open(__file__, "a") as f:
        f.write("# edited by the probe\\n")
except OSError:
    pass
'''

PLAYER = '''
from arena.player import CXPlayer


class Sneaky(CXPlayer):
    def initPlayer(self, M, N, K, first, timeout_in_secs):
        pass

    def selectColumn(self, B):
        return B.getAvailableColumns()[0]

    def playerName(self):
        return "Sneaky"
'''


def test_the_load_probe_of_a_python_bot_cannot_touch_the_league(league: Path,
                                                                  tmp_path: Path) -> None:
    marker = tmp_path / "marker"
    bot = league / "submissions" / "7" / "bot.py"
    bot.write_text(ATTACK.format(marker=str(marker)) + PLAYER)
    before = bot.read_bytes()
    spec = parse_spec(str(bot))
    assert check_loadable([spec]) == {}  # it loads (its attacks failed quietly)
    assert probe_each([spec.host_target()], 30.0)[spec.host_target()].player_name == "Sneaky"
    assert probe_in_turn([spec.host_target()], 30.0, 30.0)[spec.host_target()].error is None
    assert _admin(league) == 0
    assert not marker.exists()
    assert bot.read_bytes() == before  # its files are read-only at the door


def test_the_kaggle_probe_cannot_touch_the_league(league: Path, tmp_path: Path) -> None:
    marker = tmp_path / "marker"
    agent = league / "submissions" / "7" / "main.py"
    agent.write_text(ATTACK.format(marker=str(marker))
                     + "\n\ndef my_agent(observation, configuration):\n    return 0\n")
    spec = parse_spec(f"kaggle:{agent}")
    assert check_loadable([spec]) == {}
    assert _admin(league) == 0
    assert not marker.exists()


def test_a_probe_sees_no_secret_of_the_server(tmp_path: Path, monkeypatch:
                                              pytest.MonkeyPatch) -> None:
    """A bot at the door reads neither the caller's environment (a server's secrets) nor the
    files beside its own folder."""
    monkeypatch.setenv("CXARENA_SECRET_TEST", "hunter2")
    (tmp_path / "secret.txt").write_text("hunter2")
    own = tmp_path / "bot"
    own.mkdir()
    bot = own / "leaky.py"
    bot.write_text(textwrap.dedent('''
        import os
        SEEN = os.environ.get("CXARENA_SECRET_TEST", "")
        try:
            SEEN += open(os.path.join(os.path.dirname(__file__), "..", "secret.txt")).read()
        except OSError:
            pass
        ''') + PLAYER.replace('return "Sneaky"', 'return "seen:" + SEEN'))
    probe = probe_each([str(bot)], 30.0)[str(bot)]
    assert probe.player_name == "seen:", probe


def test_a_door_job_runs_as_the_sandbox_user_and_ends_at_its_limit(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    result = door.run(door.DoorJob(
        door="probe", label="id", timeout_s=30.0, write_paths=(str(out),),
        argv=("/bin/sh", "-c", f"id -u; touch {out}/made; touch {tmp_path}/not-made; true")))
    assert result.sandboxed and result.status == 0
    assert result.stdout.strip() == "65534"
    assert (out / "made").exists() and not (tmp_path / "not-made").exists()
    hung = door.run(door.DoorJob(door="probe", label="hang", timeout_s=1.0,
                                 argv=("/bin/sh", "-c", "sleep 600")))
    assert hung.timed_out and hung.status is None


def test_namespaces_refuses_where_there_is_no_sandbox_and_none_says_which_doors_open(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sandbox, "probe", lambda: "bubblewrap (bwrap) is not installed")
    with pytest.raises(UsageError, match="cannot isolate bots"):
        referee_door.ContainedDoor("namespaces").isolation  # noqa: B018 - resolving refuses
    auto = referee_door.ContainedDoor("auto").isolation
    assert not auto.isolated
    assert "every door to their code (loading, compiling, checking, playing)" in auto.notice()


# ------------------------------------------------------------------------------- Java
@pytest.fixture
def java_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    cache = tmp_path / "cache"
    monkeypatch.setenv("CXARENA_CACHE_DIR", str(cache))
    return cache


BOT_JAVA = """
package connectx.{name};

import connectx.CXBoard;
import connectx.CXPlayer;

public class {name} implements CXPlayer {{
{body}
    public void initPlayer(int M, int N, int X, boolean first, int timeout_in_secs) {{}}
    public int selectColumn(CXBoard B) {{ return B.getAvailableColumns()[0]; }}
    public String playerName() {{ return "{name}"; }}
}}
"""

EVIL_PROCESSOR = """
package evil;

import java.util.Set;
import javax.annotation.processing.*;
import javax.lang.model.element.TypeElement;

@SupportedAnnotationTypes("*")
public class Evil extends AbstractProcessor {
    public synchronized void init(ProcessingEnvironment env) {
        super.init(env);
        try {
            java.nio.file.Files.writeString(java.nio.file.Path.of(System.getProperty(
                "marker", "MARKER")), "processor ran");
        } catch (Exception e) {}
    }
    public boolean process(Set<? extends TypeElement> a, RoundEnvironment r) { return false; }
}
"""


@needs_jdk
def test_javac_reads_no_argument_file_and_runs_no_processor(tmp_path: Path,
                                                            java_cache: Path) -> None:
    """The upload lists `@.x/a.java` as a source: javac would read `.x/a.java` as an argument
    file naming an annotation processor that ships in the zip."""
    marker = tmp_path / "marker"
    upload = tmp_path / "upload"
    bot = upload / "connectx" / "Plain" / "Plain.java"
    bot.parent.mkdir(parents=True)
    bot.write_text(BOT_JAVA.format(name="Plain", body=""))
    evil = upload / "evil" / "Evil.java"
    evil.parent.mkdir(parents=True)
    evil.write_text(EVIL_PROCESSOR.replace("MARKER", str(marker)))
    subprocess.run(["javac", "-d", str(upload), str(evil)], check=True, capture_output=True)
    evil.unlink()
    (upload / "evil" / "Evil.java.txt").write_text("")
    (upload / ".x").mkdir()
    (upload / ".x" / "a.java").write_text(f"-processorpath {upload} -processor evil.Evil\n")
    (upload / "@.x").mkdir()
    (upload / "@.x" / "a.java").write_text("class A {}\n")
    try:
        spec = parse_spec(f"java:{upload}:connectx.Plain.Plain")
    except SpecError:
        pass  # refusing the odd files is fine too: what matters is that nothing ran
    else:
        assert spec.cls == "connectx.Plain.Plain"
    assert not marker.exists()
    # and even asked to compile every file, a processor never runs
    try:
        parse_spec(f"java:{upload}")
    except SpecError:
        pass
    assert not marker.exists()


@needs_jdk
def test_javac_runs_in_the_sandbox(tmp_path: Path, java_cache: Path) -> None:
    """javac itself runs as the sandbox user: a compile that names a file outside its view
    (through a link in the upload) cannot read it, and the door says "javac"."""
    seen: list[door.DoorJob] = []
    runner = door.installed()
    assert runner is not None

    def spy(job: door.DoorJob) -> door.DoorResult:
        seen.append(job)
        result = runner(job)
        assert result.sandboxed
        return result

    door.install(spy)
    secret = tmp_path / "secret"
    secret.mkdir()
    (secret / "Secret.java").write_text("this is the server's secret\n")
    upload = tmp_path / "upload"
    bot = upload / "connectx" / "Plain" / "Plain.java"
    bot.parent.mkdir(parents=True)
    bot.write_text(BOT_JAVA.format(name="Plain", body=""))
    os.symlink(secret / "Secret.java", upload / "Leak.java")
    spec = parse_spec(f"java:{upload}")
    assert spec.cls == "connectx.Plain.Plain"
    assert [j.door for j in seen] == ["javac", "javac"]  # cxarena's API, then the bot
    assert all(str(secret) not in " ".join(j.read_paths) for j in seen)


@needs_jdk
def test_a_course_repository_builds_the_named_bot(tmp_path: Path, java_cache: Path) -> None:
    """Several bots in one connectx/ tree, one of which references the course's Swing classes
    (its own copy of CXBoardPanel beside them): each named class compiles, the Swing one
    against cxarena's headless stand-ins of the course's GUI classes (issue 51)."""
    repo = tmp_path / "repo"
    for name, body in (("Good", "    Helper h = new Helper();"),
                       ("Gui", "    connectx.CXBoardPanel panel = null;")):
        f = repo / "connectx" / name / f"{name}.java"
        f.parent.mkdir(parents=True)
        f.write_text(BOT_JAVA.format(name=name, body=body))
    (repo / "connectx" / "Good" / "Helper.java").write_text(
        "package connectx.Good;\nclass Helper {}\n")
    (repo / "connectx" / "CXBoardPanel.java").write_text(
        "package connectx;\nimport javax.swing.JPanel;\n"
        "public class CXBoardPanel extends JPanel { CXBoard b; }\n")
    spec = parse_spec(f"java:{repo}:connectx.Good.Good")
    assert spec.cls == "connectx.Good.Good"
    assert parse_spec(f"java:{repo}:connectx.Gui.Gui").cls == "connectx.Gui.Gui"
    from arena.limits import Limits
    from arena.referee.referee import MatchSettings, Referee

    with Referee(MatchSettings(limits=Limits(timeout_s=1.0))) as ref:
        rec = ref.play(spec, parse_spec("L0"), course_game(4, 4, 3), 5)
    assert not rec.is_fault, rec.detail


@needs_jdk
def test_a_java_class_check_runs_in_the_sandbox(tmp_path: Path, java_cache: Path) -> None:
    """A static initialiser that acts only where it can (outside a sandbox) acts nowhere: the
    class check (the final's start-up check among others) runs in the sandbox."""
    marker = tmp_path / "marker"
    body = (f'    static {{ try {{ java.nio.file.Files.writeString(java.nio.file.Path.of('
            f'"{marker}"), "ran"); }} catch (Exception e) {{}} }}')
    f = tmp_path / "bot" / "connectx" / "Init" / "Init.java"
    f.parent.mkdir(parents=True)
    f.write_text(BOT_JAVA.format(name="Init", body=body))
    spec = parse_spec(f"java:{tmp_path / 'bot'}")
    assert check_loadable([spec]) == {}
    assert not marker.exists()


def test_the_jvm_logs_to_stderr_never_to_the_protocol_channel() -> None:
    i = DEFAULT_JVM_OPTIONS.index("-Xlog:disable")
    assert DEFAULT_JVM_OPTIONS[i + 1] == "-Xlog:all=warning:stderr"


@needs_jdk
def test_a_java_bot_at_the_task_cap_is_charged_for_the_cap_not_for_the_jvms_words(
        tmp_path: Path, java_cache: Path) -> None:
    """A Java bot that starts threads until the task cap refuses one: the JVM warns
    ("Failed to start thread"); that warning goes to the bot's log, not onto the protocol
    channel, so the record names the cap (or the bot plays on), never an illegal answer."""
    body = """
    public int selectColumn(CXBoard B) {
        java.util.List<Thread> threads = new java.util.ArrayList<>();
        try {
            for (int i = 0; i < 500; i++) {
                Thread t = new Thread(() -> { try { Thread.sleep(100000); }
                                              catch (InterruptedException e) {} });
                t.setDaemon(true);
                t.start();
                threads.add(t);
            }
        } catch (Throwable e) {
            System.err.println("no more threads: " + e);
        }
        return B.getAvailableColumns()[0];
    }
"""
    source = BOT_JAVA.format(name="Threads", body="").replace(
        "    public int selectColumn(CXBoard B) { return B.getAvailableColumns()[0]; }\n",
        body)
    f = tmp_path / "bot" / "connectx" / "Threads" / "Threads.java"
    f.parent.mkdir(parents=True)
    f.write_text(source)
    spec = parse_spec(f"java:{tmp_path / 'bot'}")
    from arena.limits import Limits
    from arena.records import Reason
    from arena.referee.referee import MatchSettings, Referee

    with Referee(MatchSettings(limits=Limits(timeout_s=2.0, max_tasks=64),
                               log_dir=str(tmp_path / "logs"))) as ref:
        rec = ref.play(spec, parse_spec("L0"), course_game(4, 4, 3), 5)
    assert rec.reason is not Reason.ILLEGAL, rec.detail
    assert "Failed to start thread" not in rec.detail
    if rec.is_fault:  # where a cgroup counts the tasks, the cap is the bot's fault
        assert "tasks" in rec.detail, rec.detail


def test_without_cgroups_a_door_job_is_capped_by_the_lifeline_in_the_sandbox(
        tmp_path: Path) -> None:
    """Where cxarena has no cgroup (a normal user without a delegated subtree), the sandbox's
    task cap is RLIMIT_NPROC, set by `arena.wire.lifeline` inside the box: the job runs (the
    lifeline is visible there) and cannot start more tasks than the cap. (Found by the VM
    stage: the lifeline could not be imported in a door's sandbox.)"""
    runner = referee_door.ContainedDoor("namespaces", use_cgroups=False)
    result = runner(door.DoorJob(door="probe", label="sh", timeout_s=30.0,
                                 argv=("/bin/sh", "-c", "echo ran")))
    assert result.sandboxed and result.status == 0, result
    assert result.stdout.strip() == "ran"
    capped = runner(door.DoorJob(
        door="probe", label="forks", timeout_s=60.0, max_tasks=20,
        argv=("/bin/sh", "-c", "(for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 "
                               "21 22 23 24 25 26 27 28 29 30; do sleep 5 & done) 2>/dev/null; "
                               "set -- /proc/[0-9]*; echo $#; kill -9 0")))
    # the processes of the sandbox's PID namespace, counted by the shell itself (no fork; a
    # fork refused at the cap ends the subshell that tried it, not this shell)
    assert capped.sandboxed and capped.stdout.strip().isdigit(), capped
    if os.geteuid() != 0:  # the kernel exempts root from RLIMIT_NPROC (docs/containment.md);
        assert int(capped.stdout.strip()) <= 20  # as a user (the VM stage) the cap holds
