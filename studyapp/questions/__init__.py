"""Questions: the model, grading and units, and the generator families."""

from studyapp.questions.model import DEFAULT_TOLERANCE, Kind, Question, Tolerance

__all__ = ["DEFAULT_TOLERANCE", "Kind", "Question", "Tolerance"]
