"""Course repositories as students hand them in (issue 51), entered unchanged with the real
javac: macOS litter beside the course's ``connectx/L0`` and ``connectx/L1`` (AppleDouble
``._L0.java`` files of binary, a ``__MACOSX/`` folder, ``.DS_Store``), a bot whose file names the
course's Swing classes (``CXBoardPanel`` as a debug field), a bot naming a course class cxarena
does not have, and a compile error in a file javac found by itself (its path is the student's).

The layouts are written here from the course's API (no course or student code). Skipped, with
the reason, without a JDK."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from arena.entrants import java
from arena.entrants.sources import is_junk, walk
from arena.entrants.specs import SpecError, parse_spec

if shutil.which("javac") is None or shutil.which("java") is None:
    pytest.skip("javac/java not found: install a JDK (e.g. default-jdk-headless) to run the "
                "course layout tests", allow_module_level=True)

#: what macOS writes beside a file copied to a FAT disk or zipped by the Finder: a resource
#: fork with the file's name, binary (not UTF-8), naming its attributes
APPLEDOUBLE = (b"\x00\x05\x16\x07\x00\x02\x00\x00Mac OS X        \x00\x02\x00\x00\x00\t"
               b"\x00\x00\x002\x00\x00\x0e\xb0\xff\xfe\x80\x81com.apple.quarantine\x00"
               b"q/0081;6571c3d2;Safari;\xc3\x28\xa0\xa1")


def bot(package: str, cls: str, extra: str = "", imports: str = "") -> str:
    return f"""package {package};

import connectx.CXBoard;
import connectx.CXPlayer;
{imports}
public class {cls} implements CXPlayer {{
{extra}
    public void initPlayer(int M, int N, int X, boolean first, int timeout_in_secs) {{
    }}

    public int selectColumn(CXBoard B) {{
        return B.getAvailableColumns()[0];
    }}

    public String playerName() {{
        return "{cls}";
    }}
}}
"""


def write(root: Path, files: dict[str, str | bytes]) -> Path:
    for rel, data in files.items():
        f = root / rel
        f.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(data, bytes):
            f.write_bytes(data)
        else:
            f.write_text(data, encoding="utf-8")
    return root


def with_macos_litter(files: dict[str, str | bytes]) -> dict[str, str | bytes]:
    """`files` with an AppleDouble twin of each, their __MACOSX copies and .DS_Store files."""
    out: dict[str, str | bytes] = dict(files)
    for rel in files:
        folder, _, name = rel.rpartition("/")
        twin = f"{folder}/._{name}" if folder else f"._{name}"
        out[twin] = APPLEDOUBLE
        out[f"__MACOSX/{twin}"] = APPLEDOUBLE
        out[f"{folder}/.DS_Store" if folder else ".DS_Store"] = b"\x00\x00\x00\x01Bud1\x00"
    return out


@pytest.fixture(autouse=True)
def cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private compile cache (the bots compile for real)."""
    folder = tmp_path_factory.getbasetemp() / "cxcache"
    monkeypatch.setenv("CXARENA_CACHE_DIR", str(folder))
    return folder


def course_repo(root: Path) -> Path:
    """The course's L0 and L1 in their folders, with the Finder's litter beside them."""
    return write(root, with_macos_litter({
        "connectx/L0/L0.java": bot("connectx.L0", "L0"),
        "connectx/L1/L1.java": bot("connectx.L1", "L1"),
    }))


def test_the_litter_is_told_from_sources() -> None:
    for junk in ("._L0.java", "connectx/L0/._L0.java", "__MACOSX/connectx/L0/L0.java",
                 "__MACOSX/", ".DS_Store", "connectx/.DS_Store", "Thumbs.db", "L0.java~",
                 ".git/config", "a\\__MACOSX\\b.java"):
        assert is_junk(junk), junk
    for real in ("L0.java", "connectx/L0/L0.java", "connectx/", "main.py", "_private.py",
                 "my.bot/Bot.java"):
        assert not is_junk(real), real


def test_walk_leaves_the_litter_out(tmp_path: Path) -> None:
    repo = course_repo(tmp_path / "repo")
    found = [p.relative_to(repo).as_posix() for p in walk(repo, (".java",))]
    assert found == ["connectx/L0/L0.java", "connectx/L1/L1.java"]
    assert len(walk(repo)) == 2  # no suffix: every real file, still no litter


def test_one_bot_with_litter_enters_by_its_folder(tmp_path: Path) -> None:
    repo = course_repo(tmp_path / "repo")
    spec = parse_spec(f"java:{repo / 'connectx' / 'L0'}")
    assert spec.cls == "connectx.L0.L0"
    # the fingerprint's files are the real ones too
    own = [p for p in java.code_files(repo) if repo in p.parents]
    assert sorted(p.name for p in own) == ["L0.java", "L1.java"]


def test_several_bots_with_litter_are_listed_then_named(tmp_path: Path) -> None:
    repo = course_repo(tmp_path / "repo")
    with pytest.raises(SpecError) as listed:
        parse_spec(f"java:{repo}")
    said = str(listed.value)
    assert "several classes" in said and "connectx.L0.L0, connectx.L1.L1" in said, said
    assert "unmappable" not in said and "Mac OS X" not in said, said
    assert parse_spec(f"java:{repo}:connectx.L1.L1").cls == "connectx.L1.L1"


def test_an_appledouble_file_given_alone_is_no_source(tmp_path: Path) -> None:
    repo = course_repo(tmp_path / "repo")
    with pytest.raises(SpecError) as e:
        parse_spec(f"java:{repo / 'connectx' / 'L0' / '._L0.java'}")
    assert "unmappable" not in str(e.value), e.value


# ------------------------------------------------------------ the course's Swing classes
def test_a_bot_with_a_board_panel_field_compiles_and_loads(tmp_path: Path) -> None:
    """The course's GUI classes are headless stand-ins: a field naming one, a method using the
    game window's types, compile; the class loads in a JVM (as a game would)."""
    repo = write(tmp_path / "repo", with_macos_litter({
        "connectx/Watched/Watched.java": bot(
            "connectx.Watched", "Watched",
            extra="    private CXBoardPanel panel; // debug: panel.repaint() when watching\n"
                  "    private CXGame.CXGameType type = CXGame.CXGameType.COMPUTERvsCOMPUTER;\n"
                  "    int top() { return CXGame.EXTRA_ORIZONTAL_BORDER + CXBoardPanel.PLAYER2; }\n"
                  "    void show(CXInputPanel side) { if (panel != null) panel.repaint(); }\n",
            imports="import connectx.CXBoardPanel;\nimport connectx.CXGame;\n"
                    "import connectx.CXInputPanel;\n"),
        "connectx/L1/L1.java": bot("connectx.L1", "L1"),
    }))
    alone = parse_spec(f"java:{repo / 'connectx' / 'Watched'}")
    named = parse_spec(f"java:{repo}:connectx.Watched.Watched")
    assert alone.cls == named.cls == "connectx.Watched.Watched"
    target = java.resolve(named.path, named.cls)
    assert java.check_class(target, timeout_s=60.0) is None


def test_a_course_class_cxarena_lacks_is_named_in_one_line(tmp_path: Path) -> None:
    repo = write(tmp_path / "repo", {
        "connectx/Odd/Odd.java": bot("connectx.Odd", "Odd",
                                     extra="    private CXScoreTable table;\n",
                                     imports="import connectx.CXScoreTable;\n"),
    })
    with pytest.raises(SpecError) as e:
        parse_spec(f"java:{repo}")
    said = str(e.value)
    assert "uses the course class connectx.CXScoreTable, which cxarena does not provide" in said
    assert "CXBoardPanel" in said.split("its first errors")[0]  # what it has instead


# ------------------------------------------------------------------ compile-error paths
def test_compile_errors_name_the_students_files(tmp_path: Path) -> None:
    """An error in a file javac found on the source path (a helper of the named class) is shown
    by the student's path, never by the copy's path in the cache."""
    repo = write(tmp_path / "repo", {
        "connectx/Uses/Uses.java": bot("connectx.Uses", "Uses",
                                       extra="    private Helper h = new Helper();\n"),
        "connectx/Uses/Helper.java": "package connectx.Uses;\n\nclass Helper {\n"
                                     "    int broken() { return 1 }\n}\n",
    })
    for spec in (f"java:{repo}", f"java:{repo}:connectx.Uses.Uses"):
        with pytest.raises(SpecError) as e:
            parse_spec(spec)
        said = str(e.value)
        assert "connectx/Uses/Helper.java:4: error" in said, said
        assert ".bot-" not in said and str(java.cache_root()) not in said, said
