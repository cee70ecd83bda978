"""Settings, read from the environment (pydantic-settings): the whole set, assembled from its
sections (app.core.config_server, config_limits, config_play, config_analysis, config_push).

Every field is written `name: type = Field(default=..., description="...")`: the description is
the user-facing documentation of its environment variable (what it does, its units, what 0 or
empty means). docs/configuration.md is generated from them, section by section:
`python -m app.core.config_doc docs/configuration.md` (tests/design checks that it is current).
"""

from __future__ import annotations

from functools import lru_cache

from pydantic import Field  # noqa: F401 (a setting written in Settings itself uses it)
from pydantic_settings import SettingsConfigDict

from app.core.config_analysis import AnalysisSettings
from app.core.config_limits import ConnectionSettings, LimitSettings
from app.core.config_play import ChatSettings, LobbySettings, PlaySettings
from app.core.config_push import PushSettings
from app.core.config_server import StoreSettings, WebSettings


class Settings(
    StoreSettings,
    WebSettings,
    LimitSettings,
    ConnectionSettings,
    PlaySettings,
    LobbySettings,
    ChatSettings,
    AnalysisSettings,
    PushSettings,
):
    """Every knob of the server. Environment variables use the field name in upper case.

    A new setting goes in the section where it belongs (the classes above); one written here
    is listed under "Other settings" in docs/configuration.md."""

    model_config = SettingsConfigDict(env_prefix="", case_sensitive=False, extra="ignore")


@lru_cache
def get_settings() -> Settings:
    return Settings()
