"""Misconceptions: the one wrong idea behind slips named on different cards.

A slip is what one wrong answer shows ("×0.5: counted only K"); a
misconception is the idea a learner carries from card to card ("counts K
only"). Several slips can show one idea: GB read as GiB, KB as KiB and the
wrong way round are all "decimal for binary sizes". Each misconception's name
and explanation are ``misconception.<key>.name`` / ``.about`` in the i18n files.

A deck author's own slip key that no misconception claims is its own
misconception (named by the key), so authored slips are tracked as well.
"""

from __future__ import annotations

from dataclasses import dataclass

from studyapp.i18n import t


@dataclass(frozen=True)
class Misconception:
    """One wrong idea and the slip keys (``grading.slip.<key>``) that show it."""

    key: str
    slips: tuple[str, ...]

    def name(self, lang: str) -> str:
        """The idea in a few words, as the learner reads it in a list."""
        text = t(f"misconception.{self.key}.name", lang)
        return self.key if text == f"misconception.{self.key}.name" else text

    def about(self, lang: str) -> str:
        """One sentence on the right idea (empty for an author's own slip)."""
        text = t(f"misconception.{self.key}.about", lang)
        return "" if text == f"misconception.{self.key}.about" else text


MISCONCEPTIONS: tuple[Misconception, ...] = (
    Misconception("k_only", ("kv_pair",)),
    Misconception("bits_as_bytes", ("bits",)),
    Misconception("unit_prefix", ("prefix",)),
    Misconception("decimal_for_binary", ("binary", "kib", "gib_same_number", "gib_wrong_way")),
    Misconception("dtype_size", ("dtype_bytes", "dtype_bf16")),
    Misconception("one_direction_for_both", ("per_direction",)),
    Misconception("sparse_for_dense", ("sparse",)),
    Misconception("one_for_all", ("one_port", "one_device")),
    Misconception("ring_factor", ("ring_factor", "ring_half")),
    Misconception("memory_left_out", ("weights_left_out", "kv_left_out")),
    Misconception("weights_for_training_state", ("weights_only_checkpoint",)),
    Misconception("forward_only", ("forward_only",)),
    Misconception("peak_for_achieved", ("mfu_left_out",)),
    Misconception("latency_left_out", ("latency_left_out",)),
    Misconception("allreduce_count", ("one_allreduce_per_layer",)),
    Misconception("active_for_total", ("moe_active", "moe_total")),
    Misconception("sign", ("sign",)),
)

_BY_SLIP = {slip: m for m in MISCONCEPTIONS for slip in m.slips}
_BY_KEY = {m.key: m for m in MISCONCEPTIONS}


def misconception_of(slip: str) -> Misconception:
    """The misconception a named slip shows; an unknown (authored) slip is its own."""
    found = _BY_SLIP.get(slip)
    return found if found is not None else Misconception(slip, (slip,))


def misconception(key: str) -> Misconception | None:
    """The built-in misconception called ``key`` (None for an unknown name)."""
    return _BY_KEY.get(key)


__all__ = ["MISCONCEPTIONS", "Misconception", "misconception", "misconception_of"]
