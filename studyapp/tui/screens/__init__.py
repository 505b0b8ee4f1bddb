"""The app's screens: each is imported when it is first opened, so the home screen paints first."""
