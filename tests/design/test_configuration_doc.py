"""docs/configuration.md is the settings' own descriptions, rendered (app.core.config_doc): every
setting has one, and the page in the repository is the one they render today. The other pages
point to it instead of listing the settings again."""

from __future__ import annotations

import pytest
from pydantic import Field

from app.core import config_doc
from app.core.config import Settings
from tests.server.harness import REPO

PAGE = REPO / "docs" / "configuration.md"


def test_every_setting_has_a_description() -> None:
    assert config_doc.undocumented(Settings) == [], (
        "write each setting as `name: type = Field(default=..., description=...)`"
    )


def test_the_configuration_page_is_current() -> None:
    assert PAGE.read_text(encoding="utf-8") == config_doc.render(Settings), (
        f"docs/configuration.md is not current: run `.venv/bin/{config_doc.COMMAND}`"
    )


def test_a_setting_without_a_description_is_refused() -> None:
    class More(Settings):
        documented: int = Field(default=1, description="Says what it does.")
        bare: int = 0

    assert config_doc.undocumented(More) == ["bare"]
    with pytest.raises(ValueError, match="BARE"):
        config_doc.render(More)


def test_every_setting_is_on_the_page_once_with_its_default() -> None:
    page = PAGE.read_text(encoding="utf-8")
    for name, field in Settings.model_fields.items():
        rows = [line for line in page.splitlines() if line.startswith(f"| `{name.upper()}` |")]
        assert len(rows) == 1, name
        assert config_doc.default_text(field) in rows[0], name


def test_a_setting_written_in_settings_itself_is_still_listed() -> None:
    class More(Settings):
        late: int = Field(default=3, description="Added at the end of the class.")

    (title, names) = config_doc.sections(More)[-1]
    assert (title, names) == ("Other settings", ["late"])
    assert "| `LATE` | integer | `3` | Added at the end of the class. |" in config_doc.render(More)


def test_the_other_pages_point_to_the_configuration_page() -> None:
    for page in ("README.md", "docs/protocol.md", "docs/selfhost.md"):
        assert "configuration.md" in (REPO / page).read_text(encoding="utf-8"), page
    protocol = (REPO / "docs" / "protocol.md").read_text(encoding="utf-8")
    listed = [n.upper() for n in Settings.model_fields if f"| `{n.upper()}` |" in protocol]
    assert listed == [], f"docs/protocol.md lists settings again: {listed}"
