"""The learner's progress service: stats, one card's history, export, import, backup.

Sits between the faces (CLI, TUI) and the store: it turns study days into UTC
boundaries, applies the profile's FSRS forgetting curve to card rows, and
hands back frozen dataclasses with a JSON form. The faces reach stored progress
only through here and ``studyapp.study``; the store's plain result types they
show are re-exported below. It needs the study service only as a
``ProgressSource`` (``sources``), so ``studyapp.study`` can use it without an
import cycle. ``recall`` applies the forgetting curve, ``stats`` gathers the
figures, ``series`` follows them over time (``series_text``: as text tables),
``charts`` draws them as text and ``files`` moves progress in and out of files.
"""

from studyapp.progress.charts import SHADES, calendar_lines, forecast_lines
from studyapp.progress.options_text import options_lines
from studyapp.progress.profile_files import (
    BackupError,
    backup_database,
    export_file,
    export_progress,
    import_file,
    is_package,
)
from studyapp.progress.recall import (
    LAPSE_WEIGHT,
    MASTERY_RETRIEVABILITY,
    WEAKEST_RECALL_CAP,
    count_mastered,
    day_boundaries,
    forgetting_curve,
    mastery_age,
    mastery_places,
    retrievability,
    round_or_none,
    study_day_shift,
    weakness,
)
from studyapp.progress.sources import ComingBackCounts, OverviewCounts, PostCounts, ProgressSource
from studyapp.progress.stats import (
    AUTHORED,
    FORECAST_DAYS,
    HEATMAP_DAYS,
    MASTERY_DEFINITION,
    RETENTION_DAYS,
    CardLine,
    FamilyStats,
    LearnerStats,
    PostStats,
    card_drilldown,
    learner_stats,
    mastered_per_place,
    mastery_share,
    post_mastery,
    streak_days,
    weakest_lines,
)
from studyapp.store import StoreError
from studyapp.store.progress_files import ImportResult
from studyapp.store.stats import CardDetail, LogLine

__all__ = [
    "AUTHORED",
    "FORECAST_DAYS",
    "HEATMAP_DAYS",
    "LAPSE_WEIGHT",
    "MASTERY_DEFINITION",
    "MASTERY_RETRIEVABILITY",
    "RETENTION_DAYS",
    "SHADES",
    "WEAKEST_RECALL_CAP",
    "BackupError",
    "CardDetail",
    "CardLine",
    "ComingBackCounts",
    "FamilyStats",
    "ImportResult",
    "LearnerStats",
    "LogLine",
    "OverviewCounts",
    "PostCounts",
    "PostStats",
    "ProgressSource",
    "StoreError",
    "backup_database",
    "calendar_lines",
    "card_drilldown",
    "count_mastered",
    "day_boundaries",
    "export_file",
    "export_progress",
    "forecast_lines",
    "forgetting_curve",
    "import_file",
    "is_package",
    "learner_stats",
    "mastered_per_place",
    "mastery_age",
    "mastery_places",
    "mastery_share",
    "options_lines",
    "post_mastery",
    "retrievability",
    "round_or_none",
    "streak_days",
    "study_day_shift",
    "weakest_lines",
    "weakness",
]


