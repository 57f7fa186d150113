# Kurier: one image, one command per role (docs/operations.md):
#   kurier web      the API under gunicorn (gthread), port 8000 (default command)
#   kurier worker   an rq worker with its scheduler (game work: queues high default low)
#   kurier worker --queues webhooks --processes 4   the webhook workers
#   kurier mail-in  the mail receiver (SMTP on KURIER_MAILIN_PORT, 2525; docs/email.md)
# Configuration only through environment variables; `kurier config check` tells what is wrong.

# Any Debian bookworm image with Python 3.11 as python3 and its venv module: the official
# slim image, or a bookworm root file system with python3-venv (scripts/image-check builds one).
ARG PYTHON_IMAGE=python:3.11-slim-bookworm

# -- build: install the package and its dependencies into a virtualenv ----------------------------
FROM ${PYTHON_IMAGE} AS build
# The building machine's own package index settings, if it has any (scripts/image-check passes
# them); none is written here.
ARG PIP_INDEX_URL PIP_EXTRA_INDEX_URL PIP_FIND_LINKS PIP_CERT PIP_DEFAULT_TIMEOUT
ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1
RUN python3 -m venv /opt/kurier
WORKDIR /src
# Dependencies first (a layer that changes only with pyproject.toml)...
COPY pyproject.toml README.md ./
RUN mkdir -p engine service workers \
    && touch engine/__init__.py service/__init__.py workers/__init__.py \
    && /opt/kurier/bin/pip install . \
    && /opt/kurier/bin/pip uninstall --yes kurier
# ...then the code, installed without its dependencies (already there).
COPY engine ./engine
COPY service ./service
COPY workers ./workers
RUN /opt/kurier/bin/pip install --no-deps . \
    && /opt/kurier/bin/python -c "import engine.registry, service.http.wsgi, workers.jobs"

# -- runtime: the virtualenv on a clean slim base, as an unprivileged user -------------------------
FROM ${PYTHON_IMAGE} AS runtime
# The board pictures' fonts for their PNGs (service/pictures/png.py loads these files only):
# DejaVu Sans from fonts-dejavu-core, DejaVu Sans Condensed from fonts-dejavu-extra. No PyPI
# package ships the condensed faces. Pinned to bookworm's version, like the base image.
RUN apt-get update \
    && apt-get install --yes --no-install-recommends \
        fonts-dejavu-core=2.37-6 fonts-dejavu-extra=2.37-6 \
    && rm -rf /var/lib/apt/lists/*
RUN groupadd --system --gid 10001 kurier \
    && useradd --system --uid 10001 --gid kurier --home-dir /home/kurier --create-home kurier
COPY --from=build /opt/kurier /opt/kurier
ENV PATH=/opt/kurier/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    KURIER_HOST=0.0.0.0 \
    KURIER_PORT=8000 \
    KURIER_OUTBOX=/home/kurier/outbox \
    PROMETHEUS_MULTIPROC_DIR=/tmp/kurier-metrics
USER 10001:10001
WORKDIR /home/kurier
EXPOSE 8000
# /healthz answers 503 while Redis is unreachable or no game worker is alive (heartbeats).
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
    CMD ["python", "-c", "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:' + os.environ.get('KURIER_PORT', '8000') + '/healthz', timeout=4)"]
ENTRYPOINT ["kurier"]
CMD ["web"]
