"""Emergency medical dispatch on a city road graph (``lifeline/Dispatch-v3``,
``lifeline/DispatchMetro-v3``); see README.md."""
