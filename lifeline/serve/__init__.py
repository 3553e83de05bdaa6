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


def _import_openenv_without_gradio() -> None:
    """Import ``openenv.core.env_server`` with ``gradio`` hidden, once, before any module here.

    openenv's package ``__init__`` imports its Gradio web interface when gradio is installed
    (about 12 of the 16 s that ``lifeline serve`` took to start on a loaded 2-core machine); the
    server never uses that interface, and openenv skips it on ``ModuleNotFoundError``. gradio
    stays importable afterwards (only ``openenv...create_web_interface_app`` is then ``None``
    in this process). Without openenv nothing happens: the ``server`` extra check says so.
    """
    import sys

    if "openenv.core.env_server" in sys.modules:
        return
    hide = "gradio" not in sys.modules
    if hide:
        sys.modules["gradio"] = None  # type: ignore[assignment]  # import raises ModuleNotFound
    try:
        import openenv.core.env_server  # noqa: F401
    except ImportError:
        pass
    finally:
        if hide and sys.modules.get("gradio", 0) is None:
            del sys.modules["gradio"]


_import_openenv_without_gradio()
