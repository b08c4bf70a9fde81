"""`refuge explore`: a small ASGI app (Starlette, served by uvicorn) and its Leaflet page.

The page asks; the package answers (`refuge_map.explore.answers`). Nothing is fetched from the
internet: the page's scripts are the pinned npm files `make assets` installed, served from
here. Requests carry the whole settings of their tab, so every tab keeps its own, and the
server keeps none; nothing is written to disk.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from geo import GeoError
from refuge_map.explore import answers
from refuge_map.render.assets import ASSETS_DIR, INSTALL_HINT, LINKED

STATIC = Path(__file__).resolve().parent / "static"
#: The page's own files.
PAGE_FILES = ("index.html", "explore.js", "explore.css")
#: The pinned files the page loads, by their path under /assets/.
ASSET_FILES = {f"{a.package}/{a.path}": a for a in LINKED}
#: The largest request body accepted, bytes.
MAX_BODY = 64_000

Answer = Callable[[dict[str, Any]], dict[str, Any]]


def bad_request(message: str, status: int = 400) -> JSONResponse:
    """A 4xx with its one-line message (naming the field)."""
    return JSONResponse({"error": message.splitlines()[0]}, status_code=status)


def validation_message(error: ValidationError, prefix: str = "") -> str:
    """pydantic's first problem as one line: the field path, the message, the value."""
    first = error.errors()[0]
    path = ".".join(str(p) for p in (prefix, *first["loc"]) if p != "")
    return (
        f"{path or 'body'}: {first['msg']} (got {json.dumps(first.get('input'), default=str)[:80]})"
    )


def api(answer: Answer) -> Callable[[Request], Awaitable[Response]]:
    """A POST endpoint: a JSON object in, `answer`'s JSON out (computed in a worker thread);
    every bad input a 400 naming the field."""

    async def endpoint(request: Request) -> Response:
        body = await request.body()
        if len(body) > MAX_BODY:
            return bad_request(f"body: larger than {MAX_BODY} bytes", 413)
        try:
            data = json.loads(body or b"{}")
        except ValueError:
            return bad_request("body: not JSON")
        if not isinstance(data, dict):
            return bad_request("body: not a JSON object")
        try:
            return JSONResponse(await asyncio.to_thread(answer, data))
        except ValidationError as error:
            return bad_request(validation_message(error, _section(answer)))
        except (ValueError, TypeError, KeyError, GeoError) as error:
            return bad_request(str(error) or type(error).__name__)

    return endpoint


def _section(answer: Answer) -> str:
    return "case" if answer is _judge else "settings"


def _settings(data: dict[str, Any]) -> dict[str, Any]:
    settings = data.get("settings", {})
    if not isinstance(settings, dict):
        raise ValueError("settings: not an object")
    return settings


def _point(data: dict[str, Any], name: str) -> tuple[float, float]:
    value = data.get(name)
    if (
        not isinstance(value, list)
        or len(value) != 2
        or not all(isinstance(v, int | float) and not isinstance(v, bool) for v in value)
    ):
        raise ValueError(f"{name}: [lon, lat] in degrees, not {json.dumps(value)[:60]}")
    lon, lat = float(value[0]), float(value[1])
    if not (-180 <= lon <= 180 and -90 <= lat <= 90):
        raise ValueError(f"{name}: [lon, lat] in degrees, not {value}")
    return lon, lat


def _zones(data: dict[str, Any]) -> dict[str, Any]:
    return answers.zones(_settings(data))


def _where(data: dict[str, Any]) -> dict[str, Any]:
    bough = _point(data, "bough") if data.get("bough") is not None else None
    return answers.where(_settings(data), _point(data, "point"), bough)


def _judge(data: dict[str, Any]) -> dict[str, Any]:
    return answers.judge_case(data.get("case", {}))


def _flight(data: dict[str, Any]) -> dict[str, Any]:
    n = data.get("replications", 100)
    if not isinstance(n, int) or isinstance(n, bool):
        raise ValueError(f"replications: a whole number, not {json.dumps(n)[:40]}")
    return answers.flight(_settings(data), _point(data, "place"), _point(data, "kin_home"), n)


def _coverage(data: dict[str, Any]) -> dict[str, Any]:
    cell_m = data.get("cell_m", 10_000.0)
    if not isinstance(cell_m, int | float) or isinstance(cell_m, bool):
        raise ValueError(f"cell_m: metres, not {json.dumps(cell_m)[:40]}")
    return answers.coverage(_settings(data), float(cell_m))


async def page_file(request: Request) -> Response:
    name = request.path_params.get("name", "index.html")
    if name not in PAGE_FILES:
        return PlainTextResponse("not found", status_code=404)
    return FileResponse(STATIC / name)


async def asset_file(request: Request) -> Response:
    """A pinned file of `refuge_map.render.assets`, from the installed npm packages."""
    asset = ASSET_FILES.get(request.path_params["path"])
    if asset is None:
        return PlainTextResponse("not a pinned asset", status_code=404)
    path = asset.local(ASSETS_DIR / "node_modules")
    if not path.is_file():
        return PlainTextResponse(f"asset not installed; {INSTALL_HINT}", status_code=500)
    return FileResponse(path)


async def schema(request: Request) -> Response:
    return JSONResponse(await asyncio.to_thread(answers.schema))


async def background(request: Request) -> Response:
    """The land and sea under every map (the HTML map's own shapes)."""
    return JSONResponse(await asyncio.to_thread(answers.background_layers))


def create_app() -> Starlette:
    """The explorer's app: the page, its pinned assets, the schema, the background and five
    questions."""
    routes = [
        Route("/", page_file),
        Route("/static/{name}", page_file),
        Route("/assets/{path:path}", asset_file),
        Route("/api/schema", schema),
        Route("/api/background", background),
        *(
            Route(f"/api/{name}", api(answer), methods=["POST"])
            for name, answer in [
                ("zones", _zones),
                ("where", _where),
                ("judge", _judge),
                ("flight", _flight),
                ("coverage", _coverage),
            ]
        ),
    ]
    return Starlette(routes=routes)
