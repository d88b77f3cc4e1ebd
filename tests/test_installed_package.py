"""Issue #33: cxarena installed as a package (`pip install .`) works without a checkout: the
board sets ship as package data (arena/data/boards.yaml, the same file as configs/boards.yaml),
`new-bot` outside a checkout writes the bot into the current folder, and `check-bot` and
`match` run from an empty folder."""

from __future__ import annotations

import os
import shutil
import site
import subprocess
import sys
from pathlib import Path

import pytest

from arena.competition import settings
from arena.tournament import config as tconfig

ROOT = Path(__file__).resolve().parents[1]


def test_the_package_boards_are_the_checkouts() -> None:
    """One source of truth: configs/boards.yaml is the package's arena/data/boards.yaml."""
    shipped = ROOT / "arena" / "data" / "boards.yaml"
    assert shipped.is_file()
    assert shipped.read_bytes() == (ROOT / "configs" / "boards.yaml").read_bytes()


def test_boards_without_a_checkout(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No configs/ of a checkout: the board sets come from the package."""
    monkeypatch.setattr(settings, "CHECKOUT_CONFIGS", tmp_path / "no-checkout")
    monkeypatch.chdir(tmp_path)
    assert settings.configs_dir() == ROOT / "arena" / "data"
    assert len(tconfig.resolve_board_set("competition")) == 35


def _run(cmd: list[str], cwd: Path, env: dict[str, str], timeout: float = 300
         ) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout)


def _venv(tmp_path: Path, wheel: Path, env: dict[str, str]) -> tuple[Path, str]:
    """A fresh venv with the wheel installed (with its dependencies from pip's usual sources;
    when they cannot be installed, without them, seeing this interpreter's packages)."""
    venv = tmp_path / "venv"
    r = _run([sys.executable, "-m", "venv", "--without-pip", str(venv)], tmp_path, env)
    if r.returncode != 0:
        pytest.skip(f"cannot make a venv: {r.stderr.strip()[-300:]}")
    py = venv / "bin" / "python"
    full = _run([sys.executable, "-m", "pip", "--python", str(py), "install", "-q",
                 str(wheel)], tmp_path, env, timeout=600)
    if full.returncode == 0:
        return py, "with its dependencies"
    purelib = _run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                   tmp_path, env).stdout.strip()
    ours = [p for p in site.getsitepackages() if Path(p).is_dir()]
    (Path(purelib) / "deps_of_the_test.pth").write_text("\n".join(ours) + "\n")
    r = _run([sys.executable, "-m", "pip", "--python", str(py), "install", "-q", "--no-deps",
              str(wheel)], tmp_path, env, timeout=600)
    assert r.returncode == 0, r.stderr
    return py, f"without dependencies ({full.stderr.strip()[-200:]})"


@pytest.mark.slow
def _tracked_files() -> list[str] | None:
    """The files git tracks in the checkout (None: not a git checkout, or no git)."""
    try:
        out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True,
                             timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    if out.returncode != 0 or not out.stdout:
        return None
    return [f for f in out.stdout.decode().split("\0") if f and (ROOT / f).is_file()]


def test_installed_wheel_works_from_an_empty_folder(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    wheels = tmp_path / "wheels"
    build_src = tmp_path / "src"  # a clean copy: no build/ or egg-info of the checkout
    junk = shutil.ignore_patterns(".git", ".venv", "__pycache__", "*.egg-info", ".*_cache")

    def ignore(folder: str, names: list[str]) -> set[str]:
        top = {"results", "build", "dist"} if Path(folder) == ROOT else set()
        return set(junk(folder, names)) | (top & set(names))
    tracked = _tracked_files()
    if tracked is None:
        shutil.copytree(ROOT, build_src, ignore=ignore)
    else:  # the project's own files: not a bot the user added to the checkout (new-bot mybot)
        for rel in tracked:
            (build_src / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / rel, build_src / rel)
    r = _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheels),
              str(build_src)], tmp_path, env, timeout=600)
    found = sorted(wheels.glob("cxarena-*.whl"))
    if r.returncode != 0 or not found:
        pytest.skip(f"the wheel cannot be built here: {r.stderr.strip()[-300:]}")
    py, how = _venv(tmp_path, found[0], env)
    cxarena = [str(py), "-m", "arena"]
    empty = tmp_path / "empty"
    empty.mkdir()

    made = _run([*cxarena, "new-bot", "mybot"], empty, env)
    assert made.returncode == 0, f"{how}: {made.stderr}"
    assert (empty / "mybot.py").is_file() and (empty / "test_mybot.py").is_file()
    assert str(empty) in made.stdout  # it names the folder it used
    assert "cxarena check-bot mybot.py" in made.stdout

    checked = _run([*cxarena, "check-bot", "mybot.py", "--quick", "--time", "1",
                    "--isolation", "none"], empty, env)
    assert checked.returncode == 0, f"{how}: {checked.stdout}{checked.stderr}"
    assert "PASSED" in checked.stdout

    played = _run([*cxarena, "match", "mybot.py", "L0", "--board", "4", "4", "3",
                   "--games", "2", "--time", "1", "--isolation", "none"], empty, env)
    assert played.returncode == 0, f"{how}: {played.stdout}{played.stderr}"

    # the generated test passes where new-bot put it
    tested = _run([str(py), "-c", "import pytest"], empty, env)
    if tested.returncode == 0:
        t = _run([str(py), "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_mybot.py"],
                 empty, env)
        assert t.returncode == 0, t.stdout + t.stderr
    assert sorted(p.name for p in empty.iterdir() if not p.name.startswith((".", "__"))) == [
        "mybot.py", "test_mybot.py"]
