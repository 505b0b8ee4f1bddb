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
        _prepare(folder)
        _rewrite_tests(config)


def _prepare(folder: Path) -> None:
    """Link the compiled files installed beside their sources into ``folder`` and compile
    the project there, once, for the workers to read."""
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
    for helper in (ROOT / "tests").rglob("*.py"):  # test modules are rewritten instead
        if not helper.name.startswith("test_") and helper.name != "conftest.py":
            compileall.compile_file(helper, quiet=2)


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


def _rewrite_tests(config: pytest.Config) -> None:
    """The test modules with their asserts rewritten, as pytest keeps them, so that the
    workers read them instead of each rewriting every one (with pytest's own functions:
    where they are not as this pytest has them, each worker rewrites, as before)."""
    try:
        from _pytest.assertion.rewrite import PYC_TAIL, _read_pyc, get_cache_dir
    except ImportError:
        return
    perf = ROOT / "tests" / "perf"
    stale = [module for module in sorted((ROOT / "tests").rglob("*.py"))
             if perf not in module.parents
             and (module.name.startswith("test_") or module.name == "conftest.py")
             and _read_pyc(module, get_cache_dir(module) / (module.name[:-3] + PYC_TAIL))
             is None]
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


def _rewrite(modules: list[Path]) -> None:
    try:
        from _pytest.assertion.rewrite import (
            PYC_TAIL,
            _rewrite_test,
            _write_pyc,
            assertstate_key,
            get_cache_dir,
        )

        assert _CONFIG is not None
        state = _CONFIG.stash[assertstate_key]
        for module in modules:
            pyc = get_cache_dir(module) / (module.name[:-3] + PYC_TAIL)
            pyc.parent.mkdir(parents=True, exist_ok=True)
            source_stat, code = _rewrite_test(module, _CONFIG)
            _write_pyc(state, code, source_stat, pyc)
    except (ImportError, KeyError, TypeError, OSError, SyntaxError):
        return  # the worker that imports the module rewrites it, as before
