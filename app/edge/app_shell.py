"""The service worker's script, served from the site's root (`/sw.js`, so that its scope is every
page) with the client's version written into it: a digest of the names, sizes and times of the
client's files, so that a new release (or an edited file) is a new worker, which browsers
install and the page announces (static/sw.js, static/js/app-shell.js)."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from fastapi import APIRouter, HTTPException, Request, Response

router = APIRouter(include_in_schema=False)

PLACEHOLDER = 'const VERSION = "dev";'


def client_version(static_dir: Path) -> str:
    """What changes whenever a file of the client does (a walk of a few dozen files)."""
    digest = hashlib.sha256()
    for root, dirs, files in os.walk(static_dir):
        dirs.sort()
        for name in sorted(files):
            path = Path(root, name)
            stat = path.stat()
            digest.update(
                f"{path.relative_to(static_dir)}:{stat.st_size}:{stat.st_mtime_ns}\n".encode()
            )
    return digest.hexdigest()[:16]


@router.get("/sw.js")
async def service_worker(request: Request) -> Response:
    static_dir: Path = request.app.state.settings.static_dir
    path = static_dir / "sw.js"
    if not path.is_file():
        raise HTTPException(404, {"code": "not_found", "message": "sw.js is not installed"})
    text = path.read_text(encoding="utf-8")
    text = text.replace(PLACEHOLDER, f'const VERSION = "{client_version(static_dir)}";', 1)
    # Looked at on every load: a new version is found (and then taken on the next load).
    return Response(text, media_type="text/javascript", headers={"Cache-Control": "no-cache"})
