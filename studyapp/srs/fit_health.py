"""Anki's health check of fitted FSRS parameters: can FSRS predict this learner at all?

Anki 25.x/26.x (``rslib/src/scheduler/fsrs/params.rs``, ``compute_params``) runs it
after fitting when there are more than 300 FSRS items: fsrs-rs evaluates the
history with time-series splits (fit on the earlier part, predict the next),
and its log loss and RMSE(bins) are divided by what a learner with the same
retention ``r`` (share of items whose last answer passed) and item count
``c`` typically gets::

    log_loss_adjustment(r) = 0.623 * (4 r (1 - r)) ** 0.738
    rmse_adjustment(r, c) = 0.0135 / (r ** 0.504 - 1.14)
                            + 0.176 / ((c / 1000) ** 0.825 + 2.22) + 0.101

The check passes when either adjusted figure is within its bound (log loss
1.11, RMSE 1.53); when both are over, Anki warns "Your memory is difficult
for FSRS to predict" (``deck-config-fsrs-bad-fit-warning``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import fsrs_rs_python as fsrs_rs

HEALTH_MIN_ITEMS = 300
"""Anki checks health only above this many items (``train_set.len() > 300``)."""

LOG_LOSS_BOUND = 1.11
RMSE_BOUND = 1.53
TRAINING_EPOCHS = 8
"""Anki's training config for fitting, and so for the check's splits (``num_epochs: 8``)."""


def log_loss_adjustment(retention: float) -> float:
    return 0.623 * math.pow(4 * retention * (1 - retention), 0.738)


def rmse_adjustment(retention: float, items: int) -> float:
    return (0.0135 / (math.pow(retention, 0.504) - 1.14)
            + 0.176 / (math.pow(items / 1000, 0.825) + 2.22) + 0.101)


def _ratio(value: float, scale: float) -> float:
    return value / scale if scale > 0 and math.isfinite(value) else math.inf


@dataclass(frozen=True)
class HealthCheck:
    """The check's figures and verdict."""

    log_loss: float  # time-series-split evaluation by fsrs-rs
    rmse_bins: float
    retention: float  # share of items whose last answer passed
    adjusted_log_loss: float
    adjusted_rmse: float

    @property
    def passed(self) -> bool:
        return self.adjusted_log_loss <= LOG_LOSS_BOUND or self.adjusted_rmse <= RMSE_BOUND

    def as_json(self) -> dict[str, object]:
        return {"passed": self.passed, "log_loss": self.log_loss, "rmse_bins": self.rmse_bins,
                "retention": self.retention, "adjusted_log_loss": self.adjusted_log_loss,
                "adjusted_rmse": self.adjusted_rmse}


def health_check(items: Sequence[Sequence[tuple[int, int]]], card_ids: Sequence[int]
                 ) -> HealthCheck | None:
    """Anki's health check of a history's FSRS items ((rating, days) reviews, in time
    order); None at 300 items or fewer, where Anki does not check."""
    if len(items) <= HEALTH_MIN_ITEMS:
        return None
    config = fsrs_rs.TrainingConfig()
    config.num_epochs = TRAINING_EPOCHS
    evaluation = fsrs_rs.evaluate_with_time_series_splits(
        [fsrs_rs.FSRSItem([fsrs_rs.FSRSReview(r, d) for r, d in item]) for item in items],
        list(card_ids), True, None, config)
    passed = sum(1 for item in items if item[-1][0] > 1)
    retention = passed / len(items)
    return HealthCheck(
        log_loss=evaluation.log_loss, rmse_bins=evaluation.rmse_bins, retention=retention,
        adjusted_log_loss=_ratio(evaluation.log_loss, log_loss_adjustment(retention)),
        adjusted_rmse=_ratio(evaluation.rmse_bins, rmse_adjustment(retention, len(items))))
