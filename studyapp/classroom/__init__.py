"""The classroom service: every profile of a database, or exported files, as a class.

``report`` builds the class report (mastery per student and post, who has
the most overdue cards), ``items`` the questions missed most the first
time, ``publishing`` the published decks and their versions. The faces
(``studyapp class report``, ``studyapp deck publish``…, the TUI's class
screen) call the names below.
"""

from studyapp.classroom.items import ItemReport
from studyapp.classroom.publishing import (
    NotPublishedError,
    Publication,
    PublishRefused,
    Unpublished,
    deck_diff,
    deck_history,
    publish_deck_file,
    recorded_base,
    rollback_deck,
    stored_version,
    unpublish_deck,
    version_author,
)
from studyapp.classroom.regrade import Regrade, regrade_deck
from studyapp.classroom.report import (
    NAME_WIDTH,
    ClassFilterError,
    ClassReport,
    StudentReport,
    class_report,
    class_report_for,
    class_report_from_files,
    deck_card_totals,
    student_blocks,
    studied_card_totals,
    studied_deck_totals,
)
from studyapp.classroom.source import ClassSource
from studyapp.store.classroom import QuestionRow

__all__ = [
    "NAME_WIDTH", "ClassFilterError", "ClassReport", "ClassSource", "ItemReport",
    "NotPublishedError", "Publication", "PublishRefused", "QuestionRow", "Regrade",
    "StudentReport",
    "Unpublished", "class_report", "class_report_for", "class_report_from_files",
    "deck_card_totals", "deck_diff", "deck_history", "publish_deck_file", "recorded_base",
    "regrade_deck", "rollback_deck", "stored_version", "student_blocks", "studied_card_totals",
    "studied_deck_totals", "unpublish_deck", "version_author",
]
