"""The settings of the analysis of finished games (a section of app.core.config.Settings)."""

from __future__ import annotations

from pydantic import Field
from pydantic_settings import BaseSettings


class AnalysisSettings(BaseSettings):
    """After the game: the hard bot's view of each decision."""

    analysis_worlds: int = Field(
        default=40,
        ge=1,
        le=1000,
        description="The budget of the analysis of a finished game: worlds drawn per decision, "
        "in each of which every candidate action is played out (about 0.1 s of CPU per decision "
        "at 40). The same game at the same budget always gives the same analysis; a new budget "
        "starts a new one.",
    )
    analysis_workers: int = Field(
        default=1,
        ge=1,
        le=64,
        description="Worker processes in which finished games are analysed, off the event loop "
        "(started with the first analysis).",
    )
    analysis_nice: int = Field(
        default=19,
        ge=0,
        le=19,
        description="How much lower the analysis workers' CPU priority is than the server's "
        "(`os.nice`): below the hard bots' workers by default, so that games being played go "
        "first. 0: the same.",
    )
