"""Serving Lifeline environments to OpenEnv, MCP and WebSocket clients (``lifeline serve``).

Layers, each importing only those before it (no import circles):

* ``frames`` (reply encoding, the Protocols the fast lane is typed against), ``sessions`` (the
  server's own session table), ``slots``, ``metrics``, ``transport``, ``tasks``, ``wire``,
  ``mcp`` (the Model Context Protocol proper);
* ``openenv`` (an environment as an OpenEnv ``Environment``), ``fastlane``, ``guard``;
* ``server`` (``build_app``), ``workers`` (several processes), ``run`` (``serve``,
  ``background_server``), ``asgi`` (``lifeline.asgi:app``), ``client`` (``LifelineClient``).

Nothing else in the package imports this one except the command line, the ASGI shim and
``train/grpo.py``'s optional server mode (which uses the client). The server mounts the
browser pages of :mod:`lifeline.web` (imported inside ``build_app``), which never import the
server: they use the served environments they are handed (``ServedEnv``).
"""
