"""A whole scenario in the browser through ``studyapp serve``: the same question screen.

A wrong first step, a right second one, and a third right from the learner's own
first answer; the feedback says so and the log keeps every step.
"""

from __future__ import annotations

import json
import math
import re
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from test_serve_in_browser import (  # noqa: F401  (fixtures)
    Served,
    artifacts_dir,
    browser,
    open_tab,
    pytestmark,
    serve,
    studyapp,
    wait_until,
)

DECK = """\
deck: serving-drill
title: Serving drill
language: en
post: hgx
cards:
  - id: serve
    type: scenario
    prompt: "Serve a {params_b}B model in BF16 to {users} users, KV cache {kv_gb} GB each, \\
      on GPUs of {gpu.memory_gb} GB."
    params:
      params_b: [8, 70]
      users: [16, 32]
      kv_gb: 1.25
      gpu: {from: accelerators, where: {id: [h100-sxm, h200-sxm]}}
    parts:
      - {name: weights, prompt: "Weights, in GB?", answer: "params_b * 2", unit: GB}
      - {name: kv, prompt: "KV cache of all users, in GB?", answer: "users * kv_gb", unit: GB}
      - name: gpus
        prompt: "Fewest GPUs (90% of memory usable)?"
        answer: "ceil((weights + kv) / (gpu.memory_gb * 0.9))"
        tolerance: 0
"""


def test_a_scenario_in_the_browser(serve: Callable[..., Served], browser: Any,  # noqa: F811
                                   tmp_path: Path) -> None:
    deck = tmp_path / "deck.yaml"
    deck.write_text(DECK, encoding="utf-8")
    studyapp(tmp_path, "deck", "add", str(deck))
    for slug in ("blackwell", "gaudi", "h100", "h200", "hbm-kv-cache", "hgx", "intro", "mi350",
                 "nvlink-infiniband", "storage-checkpoints", "tpu", "trainium"):
        studyapp(tmp_path, "deck", "disable", f"post-{slug}")
    studyapp(tmp_path, "deck", "enable", "serving-drill")
    server = serve()
    page, screen = open_tab(browser, server.url)
    screen.wait_for("Reviewed today")
    screen.press("c")  # continue: the post first, then its study session
    text = screen.wait_for_any("Study this post", "Step 1/3")
    if "Step 1/3" not in text:
        screen.press("s")
        text = screen.wait_for("Step 1/3")
    flat = re.sub(r"\s+", " ", text)
    found = re.search(r"Serve a (\d+)B model in BF16 to (\d+) users, KV cache 1.25 GB each, "
                      r"on GPUs of (\d+) GB", flat)
    assert found is not None, flat[-600:]
    params_b, users, memory = map(int, found.groups())
    usable = memory * 0.9
    mine = round(params_b * 2 + usable)  # one GPU's worth too much
    kv = users * 1.25
    for typed, shown in ((str(mine), "Step 2/3"), (f"{kv:g}", "Step 3/3"),
                         (str(math.ceil((mine + kv) / usable)), "steps right")):
        screen.press(*typed, "Enter")
        screen.wait_for(shown)
    # one step of three wrong (the third right from it): passes, rated Hard at most
    text = re.sub(r"\s+", " ", screen.wait_for_any("A step went wrong"))
    page.wait_for_timeout(300)
    page.screenshot(path=str(artifacts_dir() / "serve-scenario-1280x800.png"))
    assert f"Right from your {mine} GB; the true value was {params_b * 2} GB" in \
        re.sub(r"\s+", " ", screen.text())
    screen.press("Enter")
    wait_until(lambda: _logs(server.db))
    [(rating, params)] = _logs(server.db)
    steps = json.loads(params)["parts"]
    assert rating == 2 and [s["correct"] for s in steps] == [False, True, False]
    assert steps[2]["carried"] is True
    page.close()
    code, _, err = server.stop()
    assert code == 0 and "Traceback" not in err


def _logs(db: Path) -> list[tuple[int, str]]:
    with sqlite3.connect(db) as connection:
        return list(connection.execute("SELECT rating, params FROM review_logs"))
