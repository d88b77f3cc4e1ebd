"""macOS litter (``._X.java``, ``__MACOSX/``, ``.DS_Store``) is no source wherever a bot's files
are collected without a compiler: a league upload's zip as it is unpacked, and the similarity
check's reading of a folder (issue 51). The compile path is in test_course_macos_and_gui.py."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

from arena.league.checks import write_files
from arena.similarity.code import sources_in

APPLEDOUBLE = b"\x00\x05\x16\x07\x00\x02\x00\x00Mac OS X        \xff\xfe com.apple.quarantine"
BOT = b"package connectx.L0;\n\npublic class L0 {}\n"


def test_a_zip_from_the_finder_unpacks_without_its_litter(tmp_path: Path) -> None:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("connectx/L0/L0.java", BOT)
        zf.writestr("connectx/L0/._L0.java", APPLEDOUBLE)
        zf.writestr("__MACOSX/connectx/L0/._L0.java", APPLEDOUBLE)
        zf.writestr("connectx/.DS_Store", b"Bud1")
    folder = write_files(tmp_path / "v1", [("bot.zip", buf.getvalue())])
    unpacked = sorted(p.relative_to(folder / "src").as_posix()
                      for p in (folder / "src").rglob("*") if p.is_file())
    assert unpacked == ["connectx/L0/L0.java"]


def test_similarity_reads_no_litter(tmp_path: Path) -> None:
    (tmp_path / "connectx" / "L0").mkdir(parents=True)
    (tmp_path / "connectx" / "L0" / "L0.java").write_bytes(BOT)
    (tmp_path / "connectx" / "L0" / "._L0.java").write_bytes(APPLEDOUBLE)
    (tmp_path / "__MACOSX" / "connectx" / "L0").mkdir(parents=True)
    (tmp_path / "__MACOSX" / "connectx" / "L0" / "._L0.java").write_bytes(APPLEDOUBLE)
    assert [f.name for f in sources_in(tmp_path)] == ["connectx/L0/L0.java"]
