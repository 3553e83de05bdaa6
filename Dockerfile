# Lifeline environment server (OpenEnv / MCP / WebSocket): every registered environment under
# /<env> (e.g. /ed/ws), health check at /health. Built from this repository alone:
#
#   docker build -t lifeline-server .
#   docker run --rm -p 8000:8000 [-e LIFELINE_TOKEN=secret] lifeline-server
#
# Offline (no package index reachable during the build): put the wheels in ./wheels first, on a
# machine with the index, and build with OFFLINE=1:
#
#   pip download "setuptools>=68" wheel ".[server]" -d wheels
#   docker build --build-arg OFFLINE=1 -t lifeline-server .
ARG PYTHON_IMAGE=python:3.11-slim
FROM ${PYTHON_IMAGE}

ARG OFFLINE=0
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /src
# .dockerignore keeps the context to the package sources (and ./wheels when present).
COPY . /src
RUN if [ "$OFFLINE" = "1" ]; then \
        pip install --no-index --find-links /src/wheels "/src[server]"; \
    else \
        pip install "/src[server]"; \
    fi \
    && rm -rf /src/wheels \
    && useradd --create-home --uid 10001 lifeline

USER lifeline
WORKDIR /home/lifeline
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=3s --start-period=10s --retries=3 \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/health', timeout=2)"]
# 0.0.0.0: reachable from outside the container (lifeline serve binds 127.0.0.1 by default).
CMD ["lifeline", "serve", "--host", "0.0.0.0", "--port", "8000"]
