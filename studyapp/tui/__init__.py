"""The Textual app: screens, widgets and styles over ``studyapp.study``.

Nothing outside this package imports Textual; the app reaches progress,
decks and questions only through the study service.
"""
