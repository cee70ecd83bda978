# Dragonstones Online server image.
#   docker build -t dragonstones .        (or: docker compose up -d --build; see README.md)
# Two stages: the first builds the wheel and a virtual environment with the runtime
# dependencies; the second copies only that environment, so no source tree, build tools, pip cache
# or test extras end up in the image that runs.

FROM python:3.11-slim AS build
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /src
RUN python -m venv /opt/dragonstones
# Dependencies first (read from pyproject.toml), so that a code change does not reinstall them.
COPY pyproject.toml ./
RUN python -c "import tomllib; print('\n'.join(tomllib.load(open('pyproject.toml', 'rb'))['project']['dependencies']))" > requirements.txt \
 && /opt/dragonstones/bin/pip install -r requirements.txt
COPY README.md LICENSE ./
COPY engine engine
COPY app app
COPY migrations migrations
COPY static static
# A real wheel (not an editable install): the client and the migrations travel inside it.
RUN /opt/dragonstones/bin/pip wheel --no-deps -w /wheels . \
 && /opt/dragonstones/bin/pip install --no-deps /wheels/dragonstones-*.whl \
 && /opt/dragonstones/bin/pip uninstall -y -q pip setuptools

FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PATH=/opt/dragonstones/bin:$PATH
COPY --from=build /opt/dragonstones /opt/dragonstones
# An unprivileged user; /data is its working directory (a SQLite file lands there when no
# DATABASE_URL is set: mount a volume on it).
RUN useradd --system --uid 10001 --user-group --home-dir /data --create-home dragonstones
USER dragonstones
WORKDIR /data
EXPOSE 8000
# uvicorn stops on SIGTERM: it stops accepting, finishes requests, closes sockets with 1012.
STOPSIGNAL SIGTERM
# No curl in slim images: the health check is a Python one-liner against /healthz.
HEALTHCHECK --interval=5s --timeout=3s --start-period=30s --retries=3 \
  CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=2)"]
CMD ["dragonstones", "serve", "--host", "0.0.0.0", "--port", "8000"]
