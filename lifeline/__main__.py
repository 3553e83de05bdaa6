"""``python -m lifeline`` runs the CLI."""

from lifeline.cli import main

main()
