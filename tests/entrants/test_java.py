"""Course Java bots (`java:PATH[:CLASS]`): cxarena's own `connectx` API and Java host, compiled
with the real javac and played under the real referee against L1.

The bots are written here, into a temporary folder laid out as a course project
(``connectx/<Bot>/<Bot>.java``). The games share one Referee per module, so each Java bot
starts its JVM once; boards and game counts are small. Skipped, with the reason, without javac.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena import cli
from arena.board import CXBoard, CXGameState
from arena.entrants import java
from arena.entrants.fingerprint import code_fingerprint
from arena.entrants.specs import BotSpec, Kind, SpecError, parse_spec, time_limit_problem
from arena.errors import UsageError
from arena.limits import Limits
from arena.onboarding.conformance import run_check
from arena.records import Reason
from arena.referee.referee import MatchSettings, Referee, course_game
from arena.tournament.config import load_config
from tests.helpers import cmdline, tagged_pids, wait_until

if shutil.which("javac") is None or shutil.which("java") is None:
    pytest.skip("javac/java not found: install a JDK (e.g. default-jdk-headless) to run the "
                "Java entrant tests", allow_module_level=True)

BOTS = {
    # no Exit; options land on its fields; stdout goes to the log
    "Steady/Steady.java": """
package connectx.Steady;

import connectx.CXBoard;
import connectx.CXGameState;
import connectx.CXPlayer;

public class Steady implements CXPlayer {
    int depth = 0;
    private boolean first;

    public void initPlayer(int M, int N, int X, boolean first, int timeout_in_secs) {
        this.first = first;
        if (timeout_in_secs != 1) {
            throw new IllegalArgumentException("timeout_in_secs " + timeout_in_secs);
        }
    }

    public int selectColumn(CXBoard B) {
        Integer[] cols = B.getAvailableColumns();
        CXGameState mine = first ? CXGameState.WINP1 : CXGameState.WINP2;
        for (int c : cols) {
            if (B.markColumn(c) == mine) {
                return c;
            }
            B.unmarkColumn();
        }
        System.out.println("Steady: no winning move");
        return cols[cols.length / 2];
    }

    public String playerName() {
        return "Steady" + depth + System.getProperty("steady.suffix", "");
    }
}
""",
    # Exit, and a board subclass reading the protected fields
    "Sub/MyBoard.java": """
package connectx.Sub;

import connectx.CXBoard;
import connectx.CXCell;
import connectx.CXCellState;
import connectx.CXGameState;
import java.util.ArrayList;
import java.util.List;

public class MyBoard extends CXBoard {
    public MyBoard(CXBoard b) {
        super(b.M, b.N, b.X);
        for (CXCell c : b.getMarkedCells()) {
            markColumn(c.j);
        }
    }

    /** The columns with at least two free cells, from the protected fields. */
    public List<Integer> roomy() {
        List<Integer> out = new ArrayList<Integer>();
        for (int j : AC) {
            if (RP[j] >= 1) {
                out.add(j);
            }
        }
        return out;
    }

    /** The protected fields agree with the public view. */
    public String problem() {
        if (currentPlayer != MC.size() % 2) return "currentPlayer " + currentPlayer;
        if (gameState != CXGameState.OPEN) return "gameState " + gameState;
        int marked = 0;
        for (int i = 0; i < M; i++) {
            for (int j = 0; j < N; j++) {
                if (B[i][j] != CXCellState.FREE) marked++;
            }
        }
        if (marked != MC.size()) return "B has " + marked + " pieces, MC " + MC.size();
        for (int j = 0; j < N; j++) {
            int free = 0;
            while (free < M && B[free][j] == CXCellState.FREE) free++;
            if (RP[j] != free - 1) return "RP[" + j + "]=" + RP[j] + ", free " + free;
            if (AC.contains(j) != (free > 0)) return "AC " + AC;
        }
        CXCell last = MC.isEmpty() ? null : MC.getLast();
        if (last != getLastMove()) return "MC.getLast()";
        return null;
    }
}
""",
    "Sub/SubBot.java": """
package connectx.Sub;

import connectx.CXBoard;
import connectx.CXPlayer;
import java.util.List;

public class SubBot implements CXPlayer {
    static int exits = 0; // static: lives as long as the JVM, across games

    public void initPlayer(int M, int N, int X, boolean first, int timeout_in_secs) {
    }

    public int selectColumn(CXBoard B) {
        MyBoard b = new MyBoard(B);
        String problem = b.problem();
        if (problem != null) {
            throw new IllegalStateException("protected fields out of step: " + problem);
        }
        List<Integer> r = b.roomy();
        return r.isEmpty() ? B.getAvailableColumns()[0] : r.get(r.size() / 2);
    }

    public void Exit(CXBoard B) {
        exits++;
        System.err.println("SubBot: Exit after " + B.numOfMarkedCells() + " moves");
    }

    public String playerName() {
        return "SubBot exits=" + exits;
    }
}
""",
    "Thrower/Thrower.java": """
package connectx.Thrower;

import connectx.CXBoard;
import connectx.CXPlayer;

public class Thrower implements CXPlayer {
    public void initPlayer(int M, int N, int X, boolean first, int timeout_in_secs) {
    }

    public int selectColumn(CXBoard B) {
        return deeper(B.numOfMarkedCells());
    }

    private int deeper(int n) {
        if (n >= 2) {
            throw new IllegalStateException("thrown after " + n + " moves");
        }
        return 0;
    }

    public String playerName() {
        return "Thrower";
    }
}
""",
    "Looper/Looper.java": """
package connectx.Looper;

import connectx.CXBoard;
import connectx.CXPlayer;

public class Looper implements CXPlayer {
    static volatile long spins;

    public void initPlayer(int M, int N, int X, boolean first, int timeout_in_secs) {
        Thread t = new Thread(() -> { while (true) { spins++; } }); // a thread that never ends
        t.start();
    }

    public int selectColumn(CXBoard B) {
        while (true) {
            spins++;
        }
    }

    public String playerName() {
        return "Looper";
    }
}
""",
}

BAD = """
package connectx.Bad;

import connectx.CXBoard;
import connectx.CXPlayer;

public class Bad implements CXPlayer {
    public void initPlayer(int M, int N, int X, boolean first, int timeout_in_secs) {
    }

    public int selectColumn(CXBoard B) {
        return B.noSuchMethod();
    }

    public String playerName() {
        return 42;
    }
}
"""


def write(folder: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        f = folder / "connectx" / rel
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(text.lstrip())
    return folder


@pytest.fixture(scope="module", autouse=True)
def java_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A private compile cache for this module's bots."""
    cache = tmp_path_factory.mktemp("cxcache")
    old = os.environ.get("CXARENA_CACHE_DIR")
    os.environ["CXARENA_CACHE_DIR"] = str(cache)
    yield cache
    if old is None:
        os.environ.pop("CXARENA_CACHE_DIR", None)
    else:
        os.environ["CXARENA_CACHE_DIR"] = old


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A course project: one folder per bot under connectx/."""
    return write(tmp_path_factory.mktemp("course"), BOTS)


def bot(project: Path, name: str) -> BotSpec:
    return parse_spec(f"java:{project / 'connectx' / name}")


@pytest.fixture(scope="module")
def referee() -> Iterator[Referee]:
    # the default memory limit: Java bots must start under it
    with Referee(MatchSettings(limits=Limits(timeout_s=1.0))) as ref:
        yield ref


# ------------------------------------------------------------------------------ games
def test_a_course_bot_without_exit_plays_l1_with_its_options(project: Path,
                                                             referee: Referee) -> None:
    steady, l1 = bot(project, "Steady"), parse_spec("L1")
    assert steady.kind is Kind.JAVA and steady.cls == "connectx.Steady.Steady"
    options = {"depth": 3, "jvm_options": ["-Dsteady.suffix=!"]}
    for seed, first in ((1, True), (2, False)):
        rec = (referee.play(steady, l1, course_game(6, 7, 4), seed, options1=options) if first
               else referee.play(l1, steady, course_game(6, 7, 4), seed, options2=options))
        assert not rec.is_fault, rec.detail
        assert rec.names[0 if first else 1] == "Steady3!"
        assert rec.n_moves >= 7


def test_a_bot_with_exit_and_a_board_subclass_plays_l1(project: Path, referee: Referee) -> None:
    sub, l1 = bot(project, "Sub"), parse_spec("L1")
    assert sub.cls == "connectx.Sub.SubBot"  # MyBoard is not a player
    names = []
    for seed in (3, 4):
        rec = referee.play(l1, sub, course_game(6, 7, 4), seed)
        assert not rec.is_fault, (rec.detail, rec.stderr_tail)
        names.append(rec.names[1])
    # the same JVM played both games; the first player got Exit when the second game began
    assert names == ["SubBot exits=0", "SubBot exits=1"]


def test_an_exception_is_a_crash_with_the_java_stack_trace(project: Path,
                                                         referee: Referee) -> None:
    rec = referee.play(bot(project, "Thrower"), parse_spec("L1"), course_game(6, 7, 4), 5)
    assert rec.reason is Reason.CRASH and rec.offender == 1 and rec.winner == 2
    assert "selectColumn (move 3) failed" in rec.detail
    assert "java.lang.IllegalStateException: thrown after 2 moves" in rec.detail
    tail = rec.stderr_tail.splitlines()
    # the trace ends in the bot's own frames (the host's are left out)
    assert tail[-3] == "java.lang.IllegalStateException: thrown after 2 moves"
    assert tail[-2].startswith("\tat connectx.Thrower.Thrower.deeper(Thrower.java:")
    assert tail[-1].startswith("\tat connectx.Thrower.Thrower.selectColumn(Thrower.java:")


def test_an_endless_loop_is_a_timeout_and_leaves_no_jvm(project: Path) -> None:
    with Referee(MatchSettings(limits=Limits(timeout_s=1.0))) as ref:
        rec = ref.play(parse_spec("L1"), bot(project, "Looper"), course_game(6, 7, 4), 6)
        assert rec.reason is Reason.TIMEOUT and rec.offender == 2
        assert "selectColumn (move 2)" in rec.detail
        jvms = lambda: [p for p in tagged_pids(ref.tag) if "Looper" in cmdline(p)]  # noqa: E731
        assert wait_until(lambda: not jvms()), "the JVM is still alive"
    assert wait_until(lambda: not tagged_pids(ref.tag))


def test_check_bot_passes_a_course_bot(project: Path) -> None:
    report = run_check(f"java:{project / 'connectx' / 'Steady'}", boards=[(4, 5, 4)],
                       timeout_s=1.0)
    assert report.passed, report.text()
    assert report.startup_s is not None


# ---------------------------------------------------------------- compiling and finding
def test_a_compile_error_is_a_usage_error_with_javacs_first_errors(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(tmp_path, {"Bad/Bad.java": BAD})  # (a failed compile is not cached: one javac run)
    code = cli.main(["match", f"java:{tmp_path}", "L1", "--board", "6", "7", "4", "--time",
                     "1"])
    assert code == 2
    err = capsys.readouterr().err
    assert err.startswith(f"cxarena match: error: bot SPEC 'java:{tmp_path}': javac cannot "
                          f"compile {tmp_path}; its first errors:\n")
    assert "  connectx/Bad/Bad.java:11: error: cannot find symbol\n" in err
    assert "  connectx/Bad/Bad.java:15: error: incompatible types" in err


def test_sources_compile_once_per_content(tmp_path: Path, java_cache: Path) -> None:
    write(tmp_path, {"Steady/Steady.java": BOTS["Steady/Steady.java"]})
    first = parse_spec(f"java:{tmp_path}")
    fingerprint = code_fingerprint(first)
    out = Path(first.classpath[1])
    stamp = out.stat().st_mtime_ns
    assert parse_spec(f"java:{tmp_path}").classpath == first.classpath  # not recompiled
    assert out.stat().st_mtime_ns == stamp and out.parent == java_cache / "java"
    source = tmp_path / "connectx" / "Steady" / "Steady.java"
    source.write_text(source.read_text().replace("Steady\" + depth", "Steady!\" + depth"))
    second = parse_spec(f"java:{tmp_path}")
    assert second.classpath[1] != first.classpath[1]
    assert code_fingerprint(second) != fingerprint


def test_course_framework_files_are_replaced_by_cxarenas(tmp_path: Path) -> None:
    # a student's copy of the whole course project: its connectx/CX*.java are not compiled
    write(tmp_path, {"Steady/Steady.java": BOTS["Steady/Steady.java"]})
    (tmp_path / "connectx" / "CXBoard.java").write_text(
        "package connectx;\npublic class CXBoard { this does not compile }\n")
    (tmp_path / "connectx" / "CXPlayerTester.java").write_text(
        "package connectx;\npublic class CXPlayerTester { nor this }\n")
    assert parse_spec(f"java:{tmp_path}").cls == "connectx.Steady.Steady"


def test_the_class_is_found_or_named(project: Path, tmp_path: Path) -> None:
    with pytest.raises(SpecError, match=r"several classes .* implement connectx.CXPlayer "
                                        r"\(connectx.Looper.Looper, connectx.Steady.Steady, "
                                        r"connectx.Sub.SubBot, connectx.Thrower.Thrower\); "
                                        r"name one"):
        parse_spec(f"java:{project}")
    named = parse_spec(f"java:{project}:connectx.Sub.SubBot")
    assert named.cls == "connectx.Sub.SubBot"
    with pytest.raises(SpecError, match="does not implement connectx.CXPlayer"):
        parse_spec(f"java:{project}:connectx.Sub.MyBoard")
    with pytest.raises(SpecError, match="no class connectx.Nope in"):
        parse_spec(f"java:{project}:connectx.Nope")
    with pytest.raises(SpecError, match="no such file or folder"):
        parse_spec(f"java:{tmp_path / 'missing'}")
    # a named class is compiled with what it references only
    built = {p.name for p in Path(named.classpath[1]).rglob("*.class")}
    assert "SubBot.class" in built and "Steady.class" not in built, built
    # compiled classes: a class folder, and a jar of it
    classes = Path(named.classpath[1])
    from_folder = parse_spec(f"java:{classes}:connectx.Sub.SubBot")
    assert from_folder.classpath[1:] == (str(classes),)
    jar = tmp_path / "bots.jar"
    with zipfile.ZipFile(jar, "w") as z:
        for f in classes.rglob("*.class"):
            z.write(f, f.relative_to(classes).as_posix())
    from_jar = parse_spec(f"java:{jar}:connectx.Sub.SubBot")
    assert from_jar.classpath[1:] == (str(jar),)
    with Referee(MatchSettings(limits=Limits(timeout_s=1.0, memory_limit_mb=None))) as ref:
        rec = ref.play(from_jar, from_folder, course_game(4, 4, 3), 9)
    assert not rec.is_fault, rec.detail
    assert rec.names == ("SubBot exits=0", "SubBot exits=0")


def test_read_class_sees_supertypes_and_constructors(project: Path) -> None:
    classes = Path(bot(project, "Sub").classpath[1])
    sub = java.read_class((classes / "connectx/Sub/SubBot.class").read_bytes())
    assert sub.interfaces == ("connectx/CXPlayer",) and sub.concrete
    assert sub.has_noarg_constructor
    board = java.read_class((classes / "connectx/Sub/MyBoard.class").read_bytes())
    assert board.super_name == "connectx/CXBoard" and not board.has_noarg_constructor
    api = java.api_classes()
    player = java.read_class((api / "connectx/CXPlayer.class").read_bytes())
    assert not player.concrete
    with pytest.raises(ValueError):
        java.read_class(b"\xca\xfe\xba\xbe\x00\x00")


# ------------------------------------------------------------------- limits and options
def test_only_whole_second_limits_for_java_bots(project: Path, tmp_path: Path) -> None:
    steady = bot(project, "Steady")
    assert time_limit_problem(steady, 1.0) is None and time_limit_problem(steady, 3) is None
    for bad in (0.5, 1.5, 0.1):
        assert "not a whole number of seconds" in str(time_limit_problem(steady, bad))
    assert time_limit_problem(parse_spec("L1"), 0.5) is None
    cfg = tmp_path / "t.yaml"
    cfg.write_text(f"players: [L1, 'java:{project / 'connectx' / 'Steady'}']\n"
                   f"boards: [[4, 4, 3]]\ntimeout_s: 0.5\n")
    with pytest.raises(UsageError, match=r"timeout_s: Java bot .* not a whole number of "
                                         r"seconds .* \(players\[1\]\)"):
        load_config(cfg)
    assert cli.main(["match", f"java:{project / 'connectx' / 'Steady'}", "L1", "--board", "4",
                     "4", "3", "--time", "0.5"]) == 2


def test_jvm_options_in_a_config(project: Path, tmp_path: Path) -> None:
    steady = project / "connectx" / "Steady"
    cfg = tmp_path / "t.yaml"
    base = "boards: [[4, 4, 3]]\ntimeout_s: 1\nplayers:\n  - L1\n"
    cfg.write_text(base + f"  - {{spec: 'java:{steady}', options: {{jvm_options: [-Xmx64m]}}}}\n")
    entry = load_config(cfg).players[1]
    assert entry.options == {"jvm_options": ["-Xmx64m"]}
    argv = parse_spec(entry.spec).argv(entry.options)
    assert argv.index("-Xmx64m") < argv.index(java.HOST_CLASS)
    cfg.write_text(base + f"  - {{spec: 'java:{steady}', options: {{jvm_options: [-cp, x]}}}}\n")
    with pytest.raises(UsageError, match="jvm_options: JVM option '-cp' is set by cxarena"):
        load_config(cfg)
    cfg.write_text(base + "  - {spec: L0, options: {jvm_options: [-Xmx64m]}}\n")
    with pytest.raises(UsageError, match="only Java bots"):
        load_config(cfg)


# ------------------------------------------------------------- the API against the rules
DRIVER = """
import connectx.*;
import java.util.Random;

public class Driver {
    static String cells(CXCell[] cs) {
        StringBuilder sb = new StringBuilder();
        for (CXCell c : cs) {
            sb.append(c.i).append(',').append(c.j).append(',').append(c.state).append(';');
        }
        return sb.toString();
    }

    static String show(CXBoard b) {
        StringBuilder sb = new StringBuilder();
        for (Integer c : b.getAvailableColumns()) sb.append(c).append(',');
        CXCell last = b.getLastMove();
        return b.gameState() + " " + b.currentPlayer() + " " + b.numOfMarkedCells() + " "
            + b.numOfFreeCells() + " [" + sb + "] " + (last == null ? "-" : last.i + "," + last.j
            + "," + last.state) + " " + cells(b.getMarkedCells()) + " " + b.getBoard()[b.M - 1][0];
    }

    public static void main(String[] args) {
        Random r = new Random(Long.parseLong(args[0]));
        for (int g = 0; g < 60; g++) {
            int M = 1 + r.nextInt(6), N = 1 + r.nextInt(6), X = 1 + r.nextInt(Math.max(M, N));
            CXBoard b = new CXBoard(M, N, X);
            System.out.println("board " + M + " " + N + " " + X);
            for (int step = 0; step < 3 * M * N; step++) {
                int op = r.nextInt(10);
                int c = r.nextInt(N + 2) - 1;
                String what;
                try {
                    if (op == 0) { b.unmarkColumn(); what = "unmark"; }
                    else if (op == 1) { b = b.copy(); what = "copy"; }
                    else { what = "mark " + c + " " + b.markColumn(c); }
                } catch (RuntimeException e) {
                    what = (op == 0 ? "unmark" : "mark " + c) + " " + e.getClass().getSimpleName();
                }
                System.out.println(what + " | " + show(b));
            }
        }
    }
}
"""


def _python_view(b: CXBoard) -> str:
    cols = "".join(f"{c}," for c in b.getAvailableColumns())
    last = b.getLastMove()
    last_text = "-" if last is None else f"{last.i},{last.j},{last.state.name}"
    cells = "".join(f"{c.i},{c.j},{c.state.name};" for c in b.getMarkedCells())
    return (f"{b.gameState().name} {b.currentPlayer()} {b.numOfMarkedCells()} "
            f"{b.numOfFreeCells()} [{cols}] {last_text} {cells} "
            f"{['FREE', 'P1', 'P2'][int(b.getBoard()[b.M - 1][0])]}")


def test_the_java_board_follows_the_rules_of_the_python_board(tmp_path: Path) -> None:
    (tmp_path / "Driver.java").write_text(DRIVER)
    api = str(java.api_classes())
    subprocess.run(["javac", "-cp", api, "-d", str(tmp_path), str(tmp_path / "Driver.java")],
                   check=True)
    seed = random.randrange(2**31)
    out = subprocess.run(["java", "-cp", f"{api}:{tmp_path}", "Driver", str(seed)], check=True,
                         capture_output=True, text=True).stdout.splitlines()
    errors = {"ColumnOutOfRangeError": "IndexOutOfBoundsException",
              "ColumnFullError": "IllegalStateException",
              "GameOverError": "IllegalStateException",
              "NoMoveToUndoError": "IllegalStateException"}
    board = CXBoard(1, 1, 1)
    checked = 0
    for line in out:
        if line.startswith("board "):
            board = CXBoard(*map(int, line.split()[1:]))
            continue
        op, _, view = line.partition(" | ")
        words = op.split()
        try:
            if words[0] == "unmark":
                board.unmarkColumn()
                got = "unmark"
            elif words[0] == "copy":
                board = board.copy()
                got = "copy"
            else:
                got = f"mark {words[1]} {board.markColumn(int(words[1])).name}"
        except ValueError as e:
            got = f"{words[0]}{' ' + words[1] if words[0] == 'mark' else ''} " \
                  f"{errors[type(e).__name__]}"
        assert got == op, f"seed {seed}: {line}"
        assert _python_view(board) == view, f"seed {seed}: {line}"
        checked += 1
    assert checked > 1000
    assert CXGameState.OPEN.name == "OPEN"
