"""The faces of a Lifeline environment: the same core env seen through another API.

* :mod:`~lifeline.faces.gymnasium` — ``gymnasium.Env`` / ``VectorEnv`` ids (``lifeline/ED-v3``);
* :mod:`~lifeline.faces.rendering` and :mod:`~lifeline.faces.raster` — its ``render()``
  (text, or the ``frame(state)`` picture drawn with matplotlib);
* :mod:`~lifeline.faces.tools` — typed tools (one per action type), the text observation and
  the parser of a tool call: what an LLM or an MCP client sees;
* :mod:`~lifeline.faces.features` — the flat policy input a network is fed.

Faces depend on the core contract only (never on one environment): every registered env gets
them for free. The served face (OpenEnv, MCP, WebSocket) is :mod:`lifeline.serve`; the two-role
PettingZoo face of ``evgrid`` is evgrid's own (``lifeline.envs.evgrid.marl``).
"""
