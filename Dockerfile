# Dragonstones Online server image. Build: docker build -t dragonstones .
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1
WORKDIR /srv/dragonstones

# Dependencies first, so that code changes do not reinstall them.
COPY pyproject.toml README.md LICENSE ./
COPY engine engine
COPY app app
COPY migrations migrations
COPY static static
# Editable install: the static client and migrations are read from this folder.
RUN pip install -e . && useradd --create-home dragonstones && mkdir -p /data \
    && chown dragonstones /data
USER dragonstones
WORKDIR /data

EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=3s CMD python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/healthz')"
CMD ["dragonstones", "serve", "--host", "0.0.0.0", "--port", "8000"]
