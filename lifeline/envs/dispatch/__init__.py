"""Emergency medical dispatch on a city road graph (``lifeline/Dispatch-v0``); see README.md."""
