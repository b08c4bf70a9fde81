"""`refuge explore`: the interactive explorer, served on this machine."""

from __future__ import annotations

import socket
from typing import Annotated

import typer

from refuge_map.cli._app import app
from refuge_map.errors import RefugeError

#: How many connections may wait for the server to take them (uvicorn's default).
BACKLOG = 2048


@app.command()
def explore(
    host: Annotated[
        str, typer.Option("--host", help="Address to listen on (this machine only by default).")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="Port (0: any free port).")] = 8765,
) -> None:
    """Open the cities of refuge in the browser: zones under any opinion, a point, a tree, a
    case, a flight, the coverage field, two settings side by side. Prints its address."""
    try:
        import uvicorn

        from refuge_map.explore.app import create_app
    except ImportError as missing:
        raise RefugeError(
            f"{missing.name} is not installed: pip install 'refuge-map[explore]'",
            source="refuge explore",
        ) from None
    listener = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    try:
        listener.bind((host, port))
        # listening before the address is printed: a browser (or a script) that goes there at
        # once waits in the queue until the server serves, rather than being refused
        listener.listen(BACKLOG)
    except OSError as busy:
        raise RefugeError(f"cannot listen: {busy.strerror}", field="--port", value=port) from None
    bound = listener.getsockname()[1]
    typer.echo(f"refuge explore: open http://{host}:{bound}/ (Ctrl-C stops it)", err=False)
    config = uvicorn.Config(create_app(), log_level="warning", backlog=BACKLOG)
    uvicorn.Server(config).run(sockets=[listener])
