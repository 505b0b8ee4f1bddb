"""An answer "a / b" is one answer unless the note clearly names one thing twice."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("anki.collection")
from anki_fixtures import add, export, typed_cloze
from test_field_roles import questions, right


def test_a_piece_of_a_two_part_answer_is_not_the_answer(tmp_path: Path) -> None:
    from anki.collection import Collection

    col = Collection(str(tmp_path / "fabric.anki2"))
    typed = "Basic (type in the answer)"
    try:
        typed_cloze(col)
        add(col, typed, "Fabric", "", Front="What joins the GPUs of a DGX H100?",
            Back="NVLink / NVSwitch")
        add(col, typed, "Fabric", "", Front="Scale-out fabric of a DGX SuperPOD",
            Back="InfiniBand / IB")
        add(col, "Cloze (typed)", "Fabric", "", Text="Scale-up: {{c1::NVLink::NVLink / NVL}}")
        add(col, typed, "Fabric", "", Front="Memory of the H200", Back="HBM3e")
        package = export(col, tmp_path / "fabric.apkg")
    finally:
        col.close()
    found = questions(tmp_path, package)
    both = found["What joins the GPUs of a DGX H100?"]
    assert not right(both, "NVLink") and not right(both, "NVSwitch")
    assert right(both, "NVLink / NVSwitch") and right(both, "nvlink/nvswitch")
    fabric = found["Scale-out fabric of a DGX SuperPOD"]
    assert right(fabric, "IB") and right(fabric, "InfiniBand") and not right(fabric, "RoCE")
    hinted = found["Scale-up: [NVLink / NVL]"]  # a cloze hint that lists them
    assert right(hinted, "NVL") and right(hinted, "NVLink")
    memory = found["Memory of the H200"]
    assert right(memory, "HBM3e") and not right(memory, "HBM3") and not right(memory, "HBM3é")
