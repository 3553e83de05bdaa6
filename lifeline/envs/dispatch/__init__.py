"""Emergency medical dispatch on a city road graph (``lifeline/Dispatch-v1``,
``lifeline/DispatchMetro-v1``); see README.md."""
