"""``python -m studyapp.cli`` runs the command line."""

from studyapp.cli import main

main()
