"""The wheel ships content/ and decks/: installed outside the repo, it still answers.

The wheel is built from this checkout and installed without dependencies into
a fresh venv that borrows this environment's site-packages (no network), then
``studyapp calc kv`` runs from a folder outside the repository.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow
def test_wheel_ships_content_and_runs_outside_the_repo(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                    "-q", "-w", str(dist), str(ROOT)], check=True, cwd=tmp_path)
    wheel = next(dist.glob("studyapp-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    assert "studyapp/_data/content/hardware.yaml" in names
    assert "studyapp/_data/content/posts/h200.es.md" in names
    assert any(n.startswith("studyapp/_data/decks/posts/") for n in names)
    assert any(n.startswith("studyapp/_data/content/i18n/") for n in names)

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    site = next((venv / "lib").glob("python3*/site-packages"))
    # dependencies come from this environment; studyapp itself only from the wheel
    (site / "borrowed.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "-q",
                    "--target", str(site), str(wheel)], check=True)
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "STUDYAPP_DB")}
    env["STUDYAPP_HOME"] = str(tmp_path / "home")
    python = venv / "bin" / "python"
    where = subprocess.run([str(python), "-c", "import studyapp, studyapp.locations as l;"
                            "print(studyapp.__file__); print(l.content_dir())"],
                           capture_output=True, text=True, check=True, cwd=outside, env=env)
    module_file, content = where.stdout.split()
    assert module_file.startswith(str(site)), module_file
    assert content.startswith(str(site)), content
    result = subprocess.run(
        [str(python), "-m", "studyapp.cli", "calc", "kv", "--model", "llama-3.1-8b",
         "--tokens", "8192", "--batch", "1", "--dtype", "bf16", "--json"],
        capture_output=True, text=True, cwd=outside, env=env, check=True)
    assert json.loads(result.stdout)["kv_cache_bytes_per_token"] == 131_072
