"""A key footer that shows and hides its keys instead of rebuilding them.

Textual's footer rebuilds every key on each bindings refresh: each focus
change and each reactive declared with ``bindings=True`` queues a whole new
set of key widgets, each styled three times over. One answer on the question
screen fires several such refreshes, and the rebuilds cost far more than the
answer itself. This footer coalesces the refreshes of one frame, keeps the
keys it has drawn, and only shows or hides them when the screen's keys come
and go (Undo, "I was right"); it draws exactly what Textual's footer draws.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from textual.app import ComposeResult
from textual.reactive import reactive
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

if TYPE_CHECKING:
    from textual.screen import Screen

MOST_KEYS = 24
"""Keys kept drawn (shown or hidden) at most; past that the footer starts afresh."""


class KeyFace(NamedTuple):
    """Everything a footer key draws."""

    key: str
    key_display: str
    description: str
    action: str
    enabled: bool
    tooltip: str


class SteadyFooterKey(FooterKey):
    """Textual's footer key, its compact style set once instead of bound and re-applied."""

    compact = reactive(True, init=False)

    def __init__(self, face: KeyFace, *, compact: bool, classes: str = "") -> None:
        super().__init__(face.key, face.key_display, face.description, face.action,
                         disabled=not face.enabled, tooltip=face.tooltip,
                         classes=f"{classes} -compact" if compact else classes)
        self.set_reactive(SteadyFooterKey.compact, compact)
        self.face = face


def merged(drawn: list[KeyFace], wanted: list[KeyFace]) -> list[KeyFace]:
    """The keys drawn so far with the wanted ones added, each list keeping its order."""
    result: list[KeyFace] = []
    i = j = 0
    while i < len(drawn) and j < len(wanted):
        if drawn[i] == wanted[j]:
            result.append(wanted[j])
            i, j = i + 1, j + 1
        elif wanted[j] in drawn[i:]:
            result.append(drawn[i])
            i += 1
        else:
            result.append(wanted[j])
            j += 1
    return result + drawn[i:] + wanted[j:]


def is_subsequence(wanted: list[KeyFace], drawn: list[KeyFace]) -> bool:
    rest = iter(drawn)
    return all(face in rest for face in wanted)


class SteadyFooter(Footer):
    """Textual's footer, drawn the same, its keys kept and shown or hidden as they change."""

    def __init__(self, *, compact: bool = False) -> None:
        super().__init__(compact=compact)
        self._pending = False
        self._plan: tuple[list[KeyFace], list[KeyFace], KeyFace | None] | None = None
        """The keys drawn, those shown, and the palette key; None: Textual's own layout."""
        self._keys: list[SteadyFooterKey] = []

    def faces(self) -> tuple[list[KeyFace], KeyFace | None] | None:
        """The keys to show and the palette key, as Textual's footer picks them.

        None when a binding belongs to a group: Textual's own layout draws those.
        """
        app = self.app
        active = self.screen.active_bindings
        faces: list[KeyFace] = []
        actions: set[str] = set()
        for _, binding, enabled, tooltip in active.values():
            if not binding.show or binding.action in actions:
                continue  # one key per action: the first one bound
            if binding.group is not None:
                return None
            actions.add(binding.action)
            faces.append(KeyFace(binding.key, app.get_key_display(binding),
                                 binding.description, binding.action, enabled, tooltip))
        palette = None
        if self.show_command_palette and app.ENABLE_COMMAND_PALETTE:
            entry = active.get(app.COMMAND_PALETTE_BINDING)
            if entry is not None:
                _, binding, enabled, _ = entry
                palette = KeyFace(binding.key, app.get_key_display(binding),
                                  binding.description, binding.action, enabled,
                                  binding.tooltip or binding.description)
        return faces, palette

    def compose(self) -> ComposeResult:
        plan = self._plan
        if plan is None:
            yield from super().compose()
            return
        drawn, wanted, palette = plan
        self.styles.grid_size_columns = len(wanted)
        self._keys = [SteadyFooterKey(face, compact=self.compact) for face in drawn]
        show_only(self._keys, wanted)
        yield from self._keys
        if palette is not None:  # Textual leaves this one compact, unbound
            yield SteadyFooterKey(palette, compact=True, classes="-command-palette")

    def watch_compact(self, compact: bool) -> None:
        for key in self._keys:
            key.compact = compact

    def bindings_changed(self, screen: Screen[object]) -> None:
        self._bindings_ready = True
        if not screen.app.app_focus:
            return
        if self.is_attached and screen is self.screen and not self._pending:
            self._pending = True
            if self._plan is None:
                # the first keys after the screen's first frame, as Textual's footer draws
                # them: drawing them before it made the home screen paint 16 ms later
                self.call_after_refresh(self._update_keys)
            else:
                self.call_later(self._update_keys)  # in the frame the key changes are seen

    async def _update_keys(self) -> None:
        """Show and hide the keys drawn; draw afresh only when a key is new."""
        self._pending = False
        if not self.is_attached:
            return
        faces = self.faces()
        if faces is None:
            self._plan, self._keys = None, []
            await self.recompose()
            return
        wanted, palette = faces
        drawn = [key.face for key in self._keys]
        if self._plan is not None and palette == self._plan[2] and is_subsequence(
                wanted, drawn):
            show_only(self._keys, wanted)
            return
        keep = merged(drawn, wanted) if self._plan is not None else wanted
        self._plan = (keep if len(keep) <= MOST_KEYS else wanted, wanted, palette)
        await self.recompose()


def show_only(keys: list[SteadyFooterKey], wanted: list[KeyFace]) -> None:
    """Show the keys that draw ``wanted``, in order; hide the others."""
    rest = iter(wanted)
    shown = next(rest, None)
    for key in keys:
        key.display = key.face == shown
        if key.display:
            shown = next(rest, None)
