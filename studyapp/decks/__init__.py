"""Instructor decks: YAML schema, loader with precise problem positions, safe formulas.

Text from a deck is untrusted plain text. The loader strips ANSI escape
sequences and makes control characters visible; everything else (including
``[bold]`` or ``[@click=...]``) is kept literally, and renderers must show it
as plain text, never as Rich/Textual markup.
"""

from studyapp.catalog.posts import POST_SLUGS
from studyapp.decks.deck_loader import MAX_DECK_BYTES, check_deck_file, load_deck, validate_paths
from studyapp.decks.deck_model import CardSpec, CardType, Deck, DeckSource, ParamSpec, deck_title
from studyapp.decks.formula import DTYPE_BYTES, EntryView, FormulaError
from studyapp.decks.library import DeckListing, discover_decks, find_deck, install_deck
from studyapp.decks.problems import DeckError, Problem
from studyapp.decks.schema import deck_json_schema

__all__ = [
    "DTYPE_BYTES",
    "MAX_DECK_BYTES",
    "POST_SLUGS",
    "CardSpec",
    "CardType",
    "Deck",
    "DeckError",
    "DeckListing",
    "DeckSource",
    "EntryView",
    "FormulaError",
    "ParamSpec",
    "Problem",
    "check_deck_file",
    "deck_json_schema",
    "deck_title",
    "discover_decks",
    "find_deck",
    "install_deck",
    "load_deck",
    "validate_paths",
]
