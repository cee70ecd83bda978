"""The README's self-hosting section matches docker-compose.yml, .env.example and the Dockerfile:
the same services, the same settings, the same published address."""

from __future__ import annotations

import re
from typing import Any

import yaml

from tests.server.harness import REPO


def section(title: str) -> str:
    readme = (REPO / "README.md").read_text()
    start = readme.index(f"## {title}\n")
    end = readme.find("\n## ", start + 1)
    return readme[start : end if end != -1 else None]


def compose() -> dict[str, Any]:
    return dict(yaml.safe_load((REPO / "docker-compose.yml").read_text()))


def test_every_service_and_what_it_does_is_in_the_readme() -> None:
    text = section("Self-hosting with Docker")
    services = compose()["services"]
    described = re.findall(r"^- `(\w+)`:", text, flags=re.MULTILINE)
    assert described == list(services)
    for name, service in services.items():
        if service.get("restart"):
            assert f"`restart: {service['restart']}`" in text, name
    assert services["db"]["image"] in text
    assert " ".join(services["migrate"]["command"]) in text
    assert (
        "AUTO_MIGRATE=false" in text and services["app"]["environment"]["AUTO_MIGRATE"] == "false"
    )
    (published,) = services["app"]["ports"]
    assert published.rsplit(":", 1)[0] in text
    assert published.startswith("${BIND_ADDRESS:-127.0.0.1}:")
    for volume in compose()["volumes"]:
        assert f"`{volume}`" in text


def test_the_settings_are_the_same_in_the_three_places() -> None:
    text = section("Self-hosting with Docker")
    in_compose = set(re.findall(r"\$\{(\w+)", (REPO / "docker-compose.yml").read_text()))
    example = (REPO / ".env.example").read_text()
    in_example = set(re.findall(r"^(?:# )?([A-Z_]+)=", example, flags=re.MULTILINE))
    in_readme = set(re.findall(r"^\| `([A-Z_]+)` \|", text, flags=re.MULTILINE))
    assert in_compose == in_example == in_readme


def test_the_image_is_what_the_readme_says() -> None:
    dockerfile = (REPO / "Dockerfile").read_text()
    final = dockerfile[dockerfile.rindex("\nFROM ") :]
    assert "COPY --from=build /opt/dragonstones /opt/dragonstones" in final
    assert "pip install" not in final and "COPY app" not in final
    assert "USER dragonstones" in final and "--uid 10001" in final
    assert "STOPSIGNAL SIGTERM" in final and "/healthz" in final
    text = section("Self-hosting with Docker")
    assert "uid 10001" in text and "`SIGTERM`" in text and "`/healthz`" in text
