# Dragonstones Online server image.
#   docker build -t dragonstones .        (or: docker compose up -d --build; see README.md)
# Two stages: the first builds the wheel and a virtual environment with the runtime
# dependencies; the second copies only that environment, so no source tree, build tools, pip or
# test extras end up in the image that runs. Few instructions, ordered so that a code change
# rebuilds only the wheel and the final copy.

FROM python:3.11-slim AS build
# Dependencies first, exactly as requirements.lock pins them (`bash scripts/lock.sh` writes it;
# pip checks every file against its hashes and refuses a dependency the lock does not pin), so
# that every build installs the same versions and a code change does not reinstall them. The
# lock holds the build backend (setuptools) too.
COPY requirements.lock /src/requirements.lock
RUN python -m venv /opt/dragonstones \
 && PIP_NO_CACHE_DIR=1 /opt/dragonstones/bin/pip install -q --disable-pip-version-check \
      --require-hashes -r /src/requirements.lock
# The build context is only what runs (.dockerignore): pyproject, the lock, README, LICENSE, app,
# engine, migrations, static.
COPY . /src
# A real wheel (not an editable install): the client and the migrations travel inside it.
RUN cd /src && export PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1 \
 && /opt/dragonstones/bin/pip wheel -q --no-deps --no-build-isolation -w /wheels . \
 && /opt/dragonstones/bin/pip install -q --no-deps /wheels/dragonstones-*.whl \
 && /opt/dragonstones/bin/pip uninstall -q -y pip setuptools

FROM python:3.11-slim
# An unprivileged user; /data is its working directory (a SQLite file lands there when no
# DATABASE_URL is set: mount a volume on it). The commands are linked onto the PATH.
RUN useradd --system --uid 10001 --user-group --home-dir /data --create-home dragonstones \
 && ln -s /opt/dragonstones/bin/dragonstones /opt/dragonstones/bin/alembic /usr/local/bin/
WORKDIR /data
EXPOSE 8000
# uvicorn stops on SIGTERM: it stops accepting, finishes requests, closes sockets with 1012.
STOPSIGNAL SIGTERM
# No curl in slim images: the health check is a Python one-liner against /healthz.
HEALTHCHECK --interval=5s --timeout=3s --start-period=30s --retries=3 \
  CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=2)"]
CMD ["dragonstones", "serve", "--host", "0.0.0.0", "--port", "8000"]
USER dragonstones
# Last, so that everything above stays cached when the code changes.
COPY --from=build /opt/dragonstones /opt/dragonstones
