"""Anki decks in and out: .apkg export of studyapp decks, Anki decks into studyapp YAML.

Nothing here touches the progress store: export reads decks, import writes a
deck file, so both work without a database.
"""
