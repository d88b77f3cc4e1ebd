"""The three kinds of course repository seen this term (issue 42), each entered as
docs/writing-a-bot.md §8 says, with `cxarena check-bot` or `cxarena match` (the real javac and
JVM, with the default isolation: sandboxed where the machine has bubblewrap):

1. several bots (the student's own and copies of the course's L0 and L1) beside copies of the
   course's Swing classes (`connectx/CXGame.java` with its `main`, its panels) and a Swing
   viewer of the student's own with a `main`: named with `java:REPO:CLASS` or by the bot's own
   folder; the Swing classes are never taken as bots, never break the compile, never run;
2. one bot that imports a helper package of its own (utility classes and an abstract base
   player in another package): entered by the folder that holds `connectx/`;
3. one bot, with the course's framework files beside it: entered by the repository's folder.

The repositories are written here, into tmp_path, as small stand-ins of the real ones' layouts
(no course or student code is committed). Skipped, with the reason, without a JDK."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from arena.referee.sandbox import resolve
from tests.conftest import ROOT

if shutil.which("javac") is None or shutil.which("java") is None:
    pytest.skip("javac/java not found: install a JDK (e.g. default-jdk-headless) to run the "
                "course layout tests", allow_module_level=True)

pytestmark = pytest.mark.slow  # each test compiles and starts JVMs under the real referee

#: the games of a check: one small board, whole seconds (a Java bot's limit), both colours
CHECK = ("--board", "4", "5", "4", "--time", "1")
RUN_TIMEOUT_S = 600

# ------------------------------------------------------------- the course's own files
# copies of the course's framework as a student's repository holds them: package connectx,
# CX*.java (cxarena replaces them by its own API and never compiles them); the GUI classes
# use Swing and CXGame has the course's `main`
FRAMEWORK = {
    "CXBoard.java": """
package connectx;

public class CXBoard {
    public final int M, N, X;
    public CXBoard(int M, int N, int X) { this.M = M; this.N = N; this.X = X; }
    // the course's board, cut down: a copy that must never be compiled in place of cxarena's
}
""",
    "CXPlayer.java": """
package connectx;

public interface CXPlayer {
    void initPlayer(int M, int N, int X, boolean first, int timeout_in_secs);
    int selectColumn(CXBoard B);
    String playerName();
}
""",
    "CXGame.java": """
package connectx;

import javax.swing.JFrame;
import javax.swing.JLabel;

/** The course's game window: connectx.CXGame M N X [player classes]. */
public class CXGame extends JFrame {
    protected final CXBoard B;
    JLabel statusBar = new JLabel("ready");
    CXBoardPanel boardPanel;
    CXInputPanel inPanel;

    public CXGame(int M, int N, int X) {
        super("ConnectX");
        B = new CXBoard(M, N, X);
        boardPanel = new CXBoardPanel(this);
        inPanel = new CXInputPanel(this);
        add(boardPanel);
    }

    public static void main(String[] args) {
        new CXGame(6, 7, 4).setVisible(true);
    }
}
""",
    "CXBoardPanel.java": """
package connectx;

import java.awt.Graphics;
import javax.swing.JPanel;

class CXBoardPanel extends JPanel {
    private final CXGame game;
    CXBoardPanel(CXGame game) { this.game = game; }
    @Override
    protected void paintComponent(Graphics g) { super.paintComponent(g); }
}
""",
    "CXInputPanel.java": """
package connectx;

import javax.swing.JButton;
import javax.swing.JPanel;

class CXInputPanel extends JPanel {
    CXInputPanel(CXGame game) { add(new JButton("new game")); }
}
""",
    "CXPlayerTester.java": """
package connectx;

public class CXPlayerTester {
    public static void main(String[] args) { System.out.println("the course's tester"); }
}
""",
}


def bot_source(package: str, cls: str, body: str, imports: str = "",
               extends: str = "implements CXPlayer") -> str:
    return f"""
package {package};

import connectx.CXBoard;
import connectx.CXGameState;
import connectx.CXPlayer;
{imports}
public class {cls} {extends} {{
{body}
    public String playerName() {{ return "{cls}"; }}
}}
"""


# the bot's search: a win at once, else the first column of its order
PLAIN = """
    private boolean first;
    public void initPlayer(int M, int N, int X, boolean first, int timeout_in_secs) {
        this.first = first;
    }
    public int selectColumn(CXBoard B) {
        CXGameState mine = first ? CXGameState.WINP1 : CXGameState.WINP2;
        Integer[] cols = B.getAvailableColumns();
        for (int c : cols) {
            if (B.markColumn(c) == mine) return c;
            B.unmarkColumn();
        }
        return cols[%s];
    }
"""

# a Swing window of the student's own, to watch a bot: compiles here (javax.swing is the
# JDK's), is no player, and must never run: its `main` or its loading would end the bot's JVM
VIEWER = """
package connectx.{package};

import javax.swing.JFrame;
import javax.swing.SwingUtilities;

public class {cls} extends JFrame {{
    static {{
        System.out.println("the viewer was loaded");
        System.exit(3);
    }}

    public {cls}() {{
        super("watch " + new {bot}().playerName());
    }}

    public static void main(String[] args) {{
        SwingUtilities.invokeLater(() -> new {cls}().setVisible(true));
    }}
}}
"""


def write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        f = root / rel
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(text.lstrip(), encoding="utf-8")
    return root


def with_framework(files: dict[str, str]) -> dict[str, str]:
    return {**{f"connectx/{n}": t for n, t in FRAMEWORK.items()}, **files}


# ------------------------------------------------------------------------- running
@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A private compile cache for this module (the commands compile for real)."""
    return tmp_path_factory.mktemp("cxcache")


def cxarena(cache: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`cxarena ARGS` as a student runs it (this interpreter, the project on the path), with
    the default isolation."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), CXARENA_CACHE_DIR=str(cache))
    return subprocess.run([sys.executable, "-m", "arena", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=RUN_TIMEOUT_S)


def passed(done: subprocess.CompletedProcess[str]) -> str:
    """The output of a check-bot that passed (sandboxed where the machine can)."""
    said = done.stdout + done.stderr
    assert done.returncode == 0, said
    assert "PASSED" in done.stdout, said
    if resolve("auto").isolated:
        assert "not isolated" not in said, said
    return done.stdout


# --------------------------------------------------------------------------- layouts
def several_bots_and_swing(root: Path) -> Path:
    """Layout 1: the student's Alpha and Beta, the course's L0 and L1, the course's Swing
    classes and the student's own Swing viewer of Alpha (with a `main`)."""
    return write(root, with_framework({
        "connectx/Alpha/Alpha.java": bot_source("connectx.Alpha", "Alpha", PLAIN % "0"),
        "connectx/Alpha/AlphaViewer.java": VIEWER.format(package="Alpha", cls="AlphaViewer",
                                                         bot="Alpha"),
        "connectx/Beta/Beta.java": bot_source("connectx.Beta", "Beta",
                                              PLAIN % "cols.length - 1"),
        "connectx/L0/L0.java": bot_source("connectx.L0", "L0", PLAIN % "cols.length / 2"),
        "connectx/L1/L1.java": bot_source("connectx.L1", "L1", PLAIN % "(cols.length + 1) / 2"),
    }))


def test_a_repository_of_several_bots_and_the_courses_swing_classes(tmp_path: Path,
                                                                   cache: Path) -> None:
    repo = several_bots_and_swing(tmp_path / "course")
    # the repository as a whole: every bot is listed to choose from, no Swing class is one
    # (the student's viewer compiles with the rest: Swing needs nothing of cxarena's)
    whole = cxarena(cache, tmp_path, "check-bot", f"java:{repo}", *CHECK)
    assert whole.returncode == 2, whole.stdout + whole.stderr
    listed = re.search(r"implement connectx.CXPlayer \(([^)]*)\); name one", whole.stderr)
    assert listed, whole.stderr
    assert listed[1].split(", ") == ["connectx.Alpha.Alpha", "connectx.Beta.Beta",
                                     "connectx.L0.L0", "connectx.L1.L1"]
    # one bot named in the repository (the docs' java:course:connectx.MyBot.MyBot)
    beta = f"java:{repo}:connectx.Beta.Beta"
    out = passed(cxarena(cache, tmp_path, "check-bot", beta, *CHECK))
    assert "playerName(): 'Beta'" in out, out
    # another bot by its own folder (its Swing viewer compiled with it, never loaded: its
    # loading would end the JVM), in a match against the first
    alpha = f"java:{repo / 'connectx' / 'Alpha'}"
    played = cxarena(cache, tmp_path, "match", alpha, beta, "--board", "4", "5", "4",
                     "--time", "1", "--games", "2")
    said = played.stdout + played.stderr
    assert played.returncode == 0, said
    assert "faults by Alpha: 0" in played.stdout and "faults by Beta: 0" in played.stdout, said
    assert re.search(r"W/D/L for Alpha: \d+/\d+/\d+", played.stdout), said


def helper_package(root: Path) -> Path:
    """Layout 2: the bot Gamma imports a package of its own utility classes (`gammautil`,
    beside `connectx/`), among them the abstract base class of its players."""
    return write(root, with_framework({
        "gammautil/BasePlayer.java": """
package gammautil;

import connectx.CXPlayer;

/** What my players share: the game's parameters. */
public abstract class BasePlayer implements CXPlayer {
    protected int M, N, X;
    protected boolean first;

    public void initPlayer(int M, int N, int X, boolean first, int timeout_in_secs) {
        this.M = M;
        this.N = N;
        this.X = X;
        this.first = first;
    }
}
""",
        "gammautil/Tactics.java": """
package gammautil;

import connectx.CXBoard;
import connectx.CXGameState;

public final class Tactics {
    private Tactics() {}

    /** A column that wins at once for `mine`, or -1. */
    public static int winning(CXBoard B, CXGameState mine) {
        for (int c : B.getAvailableColumns()) {
            CXGameState s = B.markColumn(c);
            B.unmarkColumn();
            if (s == mine) return c;
        }
        return -1;
    }

    /** The free column nearest the centre. */
    public static int central(CXBoard B) {
        int best = -1;
        for (int c : B.getAvailableColumns()) {
            if (best < 0 || Math.abs(2 * c - (B.N - 1)) < Math.abs(2 * best - (B.N - 1))) {
                best = c;
            }
        }
        return best;
    }
}
""",
        "connectx/Gamma/Gamma.java": bot_source("connectx.Gamma", "Gamma", """
    public int selectColumn(CXBoard B) {
        int win = Tactics.winning(B, first ? CXGameState.WINP1 : CXGameState.WINP2);
        return win >= 0 ? win : Tactics.central(B);
    }
""", imports="import gammautil.BasePlayer;\nimport gammautil.Tactics;\n",
                                                 extends="extends BasePlayer"),
    }))


def test_a_bot_with_a_helper_package(tmp_path: Path, cache: Path) -> None:
    repo = helper_package(tmp_path / "course")
    out = passed(cxarena(cache, tmp_path, "check-bot", f"java:{repo}", *CHECK))
    assert "playerName(): 'Gamma'" in out, out  # the abstract base is no candidate
    # the bot's own folder does not hold the helper package: the docs say to name the folder
    # that holds connectx/ (and javac says what it misses)
    alone = cxarena(cache, tmp_path, "check-bot", f"java:{repo / 'connectx' / 'Gamma'}",
                    *CHECK)
    assert alone.returncode == 2, alone.stdout + alone.stderr
    assert "package gammautil does not exist" in alone.stderr, alone.stderr


def test_a_repository_of_one_bot(tmp_path: Path, cache: Path) -> None:
    """Layout 3: one bot beside the course's framework files, entered by the repository's
    folder (without naming a class), as a student's config would name it, from its parent."""
    write(tmp_path / "solo", with_framework({
        "connectx/Solo/Solo.java": bot_source("connectx.Solo", "Solo", PLAIN % "0"),
    }))
    out = passed(cxarena(cache, tmp_path, "check-bot", "java:solo", *CHECK))
    assert "playerName(): 'Solo'" in out, out
