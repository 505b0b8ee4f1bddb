"""studyapp: study the infrastructure behind AI models, with spaced repetition."""

__version__ = "0.1.0"
