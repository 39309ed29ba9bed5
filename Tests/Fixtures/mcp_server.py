"""A Model Context Protocol server over streamable HTTP, made with the Python reference SDK (PyPI
`mcp`), for the RequestsMCP tests.

Prints `PORT <n>` once it listens on 127.0.0.1 and exits when its stdin closes, as the other
loopback servers do. Paths:

  /mcp              the MCP endpoint: sessions, an event store (so that every stream can be
                    resumed with Last-Event-ID) and a retry interval of 100 ms
  /mcp?auth=1       the same behind a bearer token: anything but "Bearer fresh" gets a 401
  /counts           {"deletes": <DELETEs of a session seen>, "unauthorized": <401s sent>,
                     "gets": <GET streams opened>, "resumed": <requests with Last-Event-ID>}
  /expire           ends every session, so that the next request of one gets a 404

Tools: add(a, b); progress(steps) reports each step, then answers; dropped(steps) reports a step,
closes its stream (the client resumes), reports the rest and answers; roots() asks the client
for its roots (a request related to no request of the client's: it goes on the GET stream) and
answers their URIs.
"""

import asyncio
import itertools
import json
import os
import socket
import sys
import threading

import uvicorn
from starlette.responses import JSONResponse, Response

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.streamable_http import EventStore

COUNTS = {"deletes": 0, "unauthorized": 0, "gets": 0, "resumed": 0}


class MemoryEventStore(EventStore):
    """Every event of every stream, in order, for replay after a Last-Event-ID."""

    def __init__(self):
        self.events = []  # (event id, stream id, message)
        self.ids = itertools.count(1)

    async def store_event(self, stream_id, message):
        event_id = str(next(self.ids))
        self.events.append((event_id, stream_id, message))
        return event_id

    async def replay_events_after(self, last_event_id, send_callback):
        position = next((i for i, (event_id, _, _) in enumerate(self.events) if event_id == last_event_id), None)
        if position is None:
            return None
        stream_id = self.events[position][1]
        for event_id, stream, message in self.events[position + 1:]:
            if stream == stream_id and message is not None:
                from mcp.server.streamable_http import EventMessage
                await send_callback(EventMessage(message, event_id))
        return stream_id


server = MCPServer("requests-fixture")


@server.tool()
def add(a: int, b: int) -> int:
    """Adds two numbers."""
    return a + b


@server.tool()
async def progress(steps: int, ctx: Context) -> str:
    """Reports each step as progress, then answers."""
    for step in range(1, steps + 1):
        await ctx.report_progress(step, steps, f"step {step}")
        await asyncio.sleep(0.01)
    return f"{steps} steps"


@server.tool()
async def dropped(steps: int, ctx: Context) -> str:
    """Reports a step, closes the stream mid-answer, then reports the rest and answers."""
    await ctx.report_progress(1, steps, "step 1")
    await ctx.close_sse_stream()
    await asyncio.sleep(0.05)
    for step in range(2, steps + 1):
        await ctx.report_progress(step, steps, f"step {step}")
    return f"{steps} steps, resumed"


@server.tool()
async def roots(ctx: Context) -> str:
    """Asks the client for its roots."""
    result = await ctx.session.list_roots()
    return ",".join(str(root.uri) for root in result.roots)


class Gate:
    """Counts what the tests look for, and keeps /mcp?auth=1 behind a bearer token."""

    def __init__(self, app, manager_holder):
        self.app = app
        self.manager_holder = manager_holder

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        path, query = scope["path"], scope.get("query_string", b"").decode()
        headers = {name.decode().lower(): value.decode() for name, value in scope["headers"]}
        if path == "/counts":
            return await JSONResponse(COUNTS)(scope, receive, send)
        if path == "/expire":
            manager = self.manager_holder()
            if manager is not None:
                for transport in list(manager._server_instances.values()):
                    await transport.terminate()
                manager._server_instances.clear()
            return await Response(status_code=204)(scope, receive, send)
        if path.startswith("/mcp"):
            if "auth=1" in query and headers.get("authorization") != "Bearer fresh":
                COUNTS["unauthorized"] += 1
                return await Response(status_code=401, headers={"WWW-Authenticate": "Bearer"})(scope, receive, send)
            if scope["method"] == "DELETE" and "mcp-session-id" in headers:
                COUNTS["deletes"] += 1
            if scope["method"] == "GET":
                COUNTS["gets"] += 1
            if "last-event-id" in headers:
                COUNTS["resumed"] += 1
        return await self.app(scope, receive, send)


def main():
    app = server.streamable_http_app(event_store=MemoryEventStore(), retry_interval=100)

    def manager():
        try:
            return server.session_manager
        except Exception:
            return None

    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(128)
    print(f"PORT {listener.getsockname()[1]}", flush=True)

    def watch_stdin():
        sys.stdin.read()
        os._exit(0)

    threading.Thread(target=watch_stdin, daemon=True).start()
    config = uvicorn.Config(Gate(app, manager), log_level="warning", lifespan="on")
    uvicorn.Server(config).run(sockets=[listener])


if __name__ == "__main__":
    main()
