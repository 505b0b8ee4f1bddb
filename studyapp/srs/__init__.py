"""Spaced repetition: FSRS scheduling, the study day and today's queue."""

from studyapp.srs.calendar import day_bounds, study_day
from studyapp.srs.queue import QueueItem, build_queue, interleave
from studyapp.srs.scheduler import (
    CardStage,
    Memory,
    Rating,
    Scheduler,
    SchedulerSettings,
    format_interval,
)

__all__ = [
    "CardStage",
    "Memory",
    "QueueItem",
    "Rating",
    "Scheduler",
    "SchedulerSettings",
    "build_queue",
    "day_bounds",
    "format_interval",
    "interleave",
    "study_day",
]
