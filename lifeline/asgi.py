"""``lifeline.asgi:app``, the documented ASGI entry (uvicorn, Docker, ``openenv.yaml``): a shim
for :mod:`lifeline.serve.asgi`, which builds the app on first access."""

from lifeline.serve.asgi import __getattr__ as __getattr__
