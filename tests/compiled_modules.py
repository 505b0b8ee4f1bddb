"""Compiled modules kept between the test processes where bytecode is not written.

Many tests start ``studyapp`` as a child process, and a parallel run starts one test
process a worker; under PYTHONDONTWRITEBYTECODE each of them compiled every module it
imports again (0.1 s of CPU for ``calc``, more for the store's commands). The run keeps
them in a folder of its own instead (never in the source tree), which later processes
and later runs read.

That folder is a ``PYTHONPYCACHEPREFIX``, and Python then reads compiled modules only
from it, not the ``__pycache__`` folders pip filled when it installed the packages: on a
new machine the four workers compiled the standard library, the installed packages and
the project each, at once (39 s of CPU and 20 s before the first test). The process
that starts the workers links the compiled files that are already there and compiles
the project once, before any worker starts.
"""

from __future__ import annotations

import compileall
import hashlib
import importlib.util
import multiprocessing
import os
import sys
import tempfile
from concurrent.futures import ProcessPoolExecutor
from fnmatch import fnmatch
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def keep_compiled_modules(config: pytest.Config) -> None:
    """Compiled modules in a folder of the run's own, ready before the workers start."""
    if not os.environ.get("PYTHONDONTWRITEBYTECODE") or os.environ.get("PYTHONPYCACHEPREFIX"):
        return
    getuid = getattr(os, "getuid", None)
    memory = Path("/dev/shm")  # linking thousands of files on a busy disk took 9 s
    parent = memory if memory.is_dir() and os.access(memory, os.W_OK | os.X_OK) \
        else Path(tempfile.gettempdir())
    folder = parent / f"studyapp-test-pycache-{getuid() if getuid else 0}"
    folder.mkdir(mode=0o700, exist_ok=True)
    if getuid is not None and folder.stat().st_uid != getuid():
        return  # someone else's folder: compile as before
    os.environ["PYTHONPYCACHEPREFIX"] = str(folder)
    del os.environ["PYTHONDONTWRITEBYTECODE"]
    if not hasattr(config, "workerinput") and getattr(config.option, "numprocesses", 0):
        _prepare(folder, config)


def _prepare(folder: Path, config: pytest.Config) -> None:
    """Link the compiled files installed beside their sources into ``folder``, compile
    the project there and rewrite the test modules, once, for the workers to read."""
    sys.pycache_prefix = str(folder)  # cache_from_source now names files in ``folder``
    tops = [top for entry in dict.fromkeys(sys.path) if (top := Path(entry or ".").resolve())
            .is_dir() and top != ROOT and ROOT not in top.parents]
    # linked already for these folders as they are (an install changes a folder's time)
    done = folder / ("linked-" + hashlib.sha256(repr(
        [(str(top), top.stat().st_mtime_ns) for top in tops]).encode()).hexdigest()[:16])
    if not done.exists():
        for top in tops:
            _link_compiled(top)
        done.touch()
    compileall.compile_dir(ROOT / "studyapp", quiet=2, workers=0)
    patterns = config.getini("python_files")
    rewritten = []
    for module in sorted((ROOT / "tests").rglob("*.py")):
        # pytest rewrites the asserts of test modules and conftests as it imports them
        if module.name == "conftest.py" or any(fnmatch(module.name, p) for p in patterns):
            rewritten.append(module)
        else:
            compileall.compile_file(module, quiet=2)
    _rewrite_tests(config, rewritten)


def _link_compiled(top: Path) -> None:
    """Each compiled file under ``top`` linked where the cache folder names it."""
    tag = sys.implementation.cache_tag
    for where, dirs, files in os.walk(top):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        cache = Path(where, "__pycache__")
        for name in files:
            if not name.endswith(".py"):
                continue
            installed = cache / f"{name[:-3]}.{tag}.pyc"
            linked = Path(importlib.util.cache_from_source(os.path.join(where, name)))
            if installed.is_file() and not os.path.lexists(linked):
                linked.parent.mkdir(parents=True, exist_ok=True)
                # a stale file is replaced (not written through) when Python recompiles
                linked.symlink_to(installed)


def _rewrite_tests(config: pytest.Config, modules: list[Path]) -> None:
    """``modules`` with their asserts rewritten, as pytest keeps them, so that the
    workers read them instead of each rewriting every one (with pytest's own functions:
    where they are not as this pytest has them, each worker rewrites, as before)."""
    perf = ROOT / "tests" / "perf"  # not collected unless asked for
    try:
        from _pytest.assertion.rewrite import _read_pyc

        stale = [module for module in modules if perf not in module.parents
                 and _read_pyc(module, _rewritten_pyc(module)) is None]
    except (ImportError, TypeError):
        return
    if not stale:
        return
    global _CONFIG
    _CONFIG = config
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1
    try:
        fork = multiprocessing.get_context("fork")
    except ValueError:
        _rewrite(stale)
        return
    with ProcessPoolExecutor(cores, mp_context=fork) as pool:
        list(pool.map(_rewrite, [stale[n::cores] for n in range(cores)]))


_CONFIG: pytest.Config | None = None
"""The run's configuration, for the forked processes that rewrite test modules."""


def _rewritten_pyc(module: Path) -> Path:
    """Where pytest keeps ``module`` with its asserts rewritten."""
    from _pytest.assertion.rewrite import PYC_TAIL, get_cache_dir

    return get_cache_dir(module) / (module.name[:-3] + PYC_TAIL)


def _rewrite(modules: list[Path]) -> None:
    try:
        from _pytest.assertion.rewrite import _rewrite_test, _write_pyc, assertstate_key

        assert _CONFIG is not None
        state = _CONFIG.stash[assertstate_key]
        for module in modules:
            pyc = _rewritten_pyc(module)
            pyc.parent.mkdir(parents=True, exist_ok=True)
            source_stat, code = _rewrite_test(module, _CONFIG)
            _write_pyc(state, code, source_stat, pyc)
    except (ImportError, KeyError, TypeError, OSError, SyntaxError):
        return  # the worker that imports the module rewrites it, as before
