"""Emergency medical dispatch on a city road graph (``lifeline/Dispatch-v2``,
``lifeline/DispatchMetro-v2``); see README.md."""
