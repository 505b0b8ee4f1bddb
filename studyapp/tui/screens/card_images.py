"""Opening the images a card names (``[image: NAME]``) from its deck's media folder.

In a terminal the image opens in the system viewer; in the browser face the
checked bytes go to the tab, as checked. A file that is not a raster image is
refused (a browser would run an SVG's or an HTML page's script), with why.
"""

from __future__ import annotations

import io
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from studyapp.study import Presented
    from studyapp.tui.screens.base import StudyScreen


def card_texts(presented: Presented | None, *, graded: bool) -> list[str]:
    """The card text on screen: the prompt, and once graded its solution too."""
    if presented is None:
        return []
    question = presented.question
    if graded:
        return [question.prompt, str(question.answer), question.explanation]
    return [question.prompt]


async def open_card_images(screen: StudyScreen, presented: Presented | None,
                           texts: list[str]) -> None:
    """Open every image ``texts`` (the card's text on screen) name, telling the learner
    what was opened or why not."""
    from studyapp.decks.media import named_images

    app, tr = screen.app, screen.tr
    names = named_images(texts)
    if presented is None or not names:
        app.notify(tr("anki.image.none"))
        return
    deck_id, card_key = presented.deck_id, presented.card_key
    found = await screen.study_app.backend.call(
        lambda service: service.card_images(deck_id, card_key, texts))
    for name, why in found.refused:
        app.notify(tr("anki.image.refused", name=name, why=why.render(screen.lang)),
                   severity="warning")
    if not found.shown:
        if not found.refused:
            app.notify(tr("anki.image.missing", names=", ".join(names)))
        return
    for image in found.shown:
        if app.is_web:
            app.deliver_binary(io.BytesIO(image.data), open_method="browser",
                               save_filename=image.path.name, mime_type=image.mime_type)
        else:
            app.open_url(image.path.resolve().as_uri())
    app.notify(tr("anki.image.opened", names=", ".join(i.path.name for i in found.shown)))
