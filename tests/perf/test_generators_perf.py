"""Benchmark: instances per second for every generator family (printed).

Run with ``pytest tests/perf/test_generators_perf.py -s`` to see the table.
A study session draws one instance per review, so even the slowest family
must stay far above what a person can answer.
"""

from __future__ import annotations

import time

from studyapp.questions.generators import registered_families
from studyapp.questions.generators.drawing import instance_seed

INSTANCES = 300
FLOOR_PER_SECOND = 200


def test_instances_per_second_per_family() -> None:
    table = registered_families()
    for family in table.values():  # warm caches (catalog, string tables)
        family.generate(0, "en", {})
        family.generate(0, "es", {})
    rates: dict[str, float] = {}
    for name, family in table.items():
        start = time.perf_counter()
        for index in range(INSTANCES):
            family.generate(instance_seed(1, index), "es" if index % 2 else "en", {})
        rates[name] = INSTANCES / (time.perf_counter() - start)
    width = max(map(len, rates))
    print()
    for name, rate in sorted(rates.items(), key=lambda item: item[1]):
        print(f"{name:<{width}}  {rate:>10,.0f} instances/s")
    slow = {name: rate for name, rate in rates.items() if rate < FLOOR_PER_SECOND}
    assert not slow, f"families slower than {FLOOR_PER_SECOND}/s: {slow}"
