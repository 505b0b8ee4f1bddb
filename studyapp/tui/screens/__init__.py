"""The app's screens, one module each, listed in ``tui.registry``: each is imported when
first opened, so the home screen paints first."""
