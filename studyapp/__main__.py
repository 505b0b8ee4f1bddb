"""``python -m studyapp`` runs the command line."""

from studyapp.cli import main

main()
