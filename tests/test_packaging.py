"""The release artefacts (issue 19): an sdist and a wheel built from the tracked files, with the
license and the metadata a package index shows, installed into a clean venv where the console
script runs the demo and a search. Built without network (`python -m build --no-isolation`)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytest.importorskip("build")


def _tracked_copy(dest: Path) -> Path:
    """The files git tracks (as they are in the working tree), copied to `dest`."""
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True)
    if listed.returncode != 0:
        pytest.skip("needs a git checkout (the package is built from the tracked files)")
    names = listed.stdout.decode().split("\0")
    for name in filter(None, names):
        src = ROOT / name
        if src.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / name)
    return dest


@pytest.mark.slow
def test_sdist_and_wheel_install_into_a_clean_venv(tmp_path: Path):
    tree = _tracked_copy(tmp_path / "tree")
    dist = tmp_path / "dist"
    r = subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--sdist", "--wheel", "--outdir",
         str(dist), str(tree)],
        capture_output=True, text=True, timeout=600,
    )
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    sdist = next(dist.glob("salience-*.tar.gz"))
    wheel = next(dist.glob("salience-*.whl"))

    with tarfile.open(sdist) as tf:
        names = {n.split("/", 1)[1] for n in tf.getnames() if "/" in n}
    assert {"LICENSE", "README.md", "pyproject.toml",
            "src/salience/data/demo_conversation.json"} <= names
    with zipfile.ZipFile(wheel) as zf:
        files = zf.namelist()
        meta = zf.read(next(n for n in files if n.endswith(".dist-info/METADATA"))).decode()
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in files)
    assert "salience/py.typed" in files and "salience/data/demo_conversation.json" in files
    assert "License-Expression: Apache-2.0" in meta
    assert "Classifier: Programming Language :: Python :: 3.11" in meta
    assert "Provides-Extra: server" in meta
    urls = [ln.split(",", 1)[-1].strip() for ln in meta.splitlines() if ln.startswith("Project-URL:")]
    assert all(u.startswith("https://") for u in urls), urls  # see pyproject.toml: none yet

    # a clean venv holding only the wheel; its dependencies come from this environment's
    # site-packages (a path entry appended after the venv's own, so the wheel's copy wins)
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    py = venv / "bin" / "python"
    r = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(py), "install", "--no-deps", "--no-index",
         "--quiet", str(wheel)], capture_output=True, text=True, timeout=300,
    )
    assert r.returncode == 0, r.stderr
    site = subprocess.run(
        [str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()
    (Path(site) / "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")

    env = {**os.environ, "SALIENCE_HOME": str(tmp_path / "home"), "SALIENCE_EMBEDDER": "hash"}
    env.pop("PYTHONPATH", None)
    where = subprocess.run(
        [str(py), "-c", "import salience; print(salience.__file__)"],
        capture_output=True, text=True, env=env, check=True,
    ).stdout.strip()
    assert where.startswith(str(venv)), where  # the installed wheel, not the source tree
    salience = str(venv / "bin" / "salience")

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([salience, *args], capture_output=True, text=True, env=env,
                              timeout=600)

    r = run("--version")
    assert r.returncode == 0 and "salience 0." in r.stdout
    r = run("demo", "--json")
    assert r.returncode == 0, r.stderr[-2000:]
    assert json.loads(r.stdout)["turns"] == 34
    assert run("add", "Maya is allergic to penicillin", "--mind", "w").returncode == 0
    r = run("search", "penicillin", "--mind", "w", "--json")
    assert r.returncode == 0 and "penicillin" in json.loads(r.stdout)[0]["memory"]["content"]
