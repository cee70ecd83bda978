"""Where the browser client and the migrations are, in a checkout and once installed.

A wheel ships them inside the package (`app/static/`, `app/migrations/`; see pyproject's
package-dir); a checkout or an editable install keeps them at the top of the repository.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import app as _app_pkg


def _find(name: str, marker: str) -> Path:
    # Installed (wheel, `pip install .`): beside the modules, inside the package.
    installed = Path(str(resources.files("app") / name))
    if (installed / marker).is_file():
        return installed
    # Checkout or editable install: the repository's top-level folder.
    return Path(_app_pkg.__file__).resolve().parent.parent / name


def static_dir() -> Path:
    """The browser client's files (index.html, table.html, css/, js/)."""
    return _find("static", "index.html")


def migrations_dir() -> Path:
    """Alembic's script location (env.py, versions/)."""
    return _find("migrations", "env.py")
