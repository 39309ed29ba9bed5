#!/usr/bin/env python3
"""HTTP/2 over TLS test server (hypercorn, ALPN h2 and http/1.1) for the transport's HTTP/2 tests.

    h2_server.py --cert server.pem --key server.key [--keep-alive <seconds>]

Listens on 127.0.0.1 only, on an ephemeral port, and prints "PORT <n>" on its first stdout line
once it accepts connections. It exits when its stdin closes, so it never outlives the process
that started it. A connection with no request in flight for --keep-alive seconds (1 by default)
is closed by the server, without a GOAWAY first: the next request finds its pooled connection
gone.

Every response carries "x-connection: <n>", the number of its connection (from 1, never reused).

Endpoints:
  /hello    "hello over HTTP/<version>", text/plain
  /echo     {"method", "path", "query", "httpVersion", "contentType", "body"} with the raw query
            (or "") and the body parsed as JSON (or null when empty), application/json
  /connections
            {"open": [the numbers of the connections whose socket is open, sorted]}, this one's
            included
  /drip?id=<name>&count=<n>&interval=<seconds>&silence=<seconds>
            server-sent events: "data: <i>" every interval seconds, count of them (200, 0.05 by
            default), then silence seconds (0) with nothing sent, then the end; it stops as soon
            as the client resets the stream or closes the connection
  /drip-status?id=<name>
            {"started", "ended", "disconnected", "sent", "elapsed", "httpVersion"} of that drip:
            whether it began, whether it is over, whether the client left before its end, how
            many events it sent, for how many seconds it ran, and over which HTTP version
"""

import argparse
import asyncio
import itertools
import json
import sys
import time
import urllib.parse

import hypercorn.asyncio.run
from hypercorn.asyncio.run import worker_serve
from hypercorn.asyncio.tcp_server import TCPServer
from hypercorn.config import Config
from hypercorn.utils import wrap_app

# The connections hypercorn serves: number -> (client port, writer). Numbers count from 1 and are
# never reused, unlike ports. Hypercorn may go on serving a connection (its idle timer, say) after
# the socket is gone; /connections reports the ones whose socket is still open.
CONNECTIONS = {}
NUMBERS = itertools.count(1)


class TrackedTCPServer(TCPServer):
    """Hypercorn's connection, noted in CONNECTIONS while it is served."""

    async def run(self):
        number = next(NUMBERS)
        peer = self.writer.get_extra_info("peername")
        CONNECTIONS[number] = (peer[1] if peer else None, self.writer)
        try:
            await super().run()
        finally:
            del CONNECTIONS[number]


# The drips by id, as /drip-status reports them.
DRIPS = {}


async def drip(scope, receive, send, query):
    """Sends events until done or until the client goes (http.disconnect), noting which in DRIPS."""
    name = query.get("id", "")
    count = int(query.get("count", "200"))
    interval = float(query.get("interval", "0.05"))
    silence = float(query.get("silence", "0"))
    status = {"started": True, "ended": False, "disconnected": False, "sent": 0, "elapsed": 0.0,
              "httpVersion": scope["http_version"]}
    DRIPS[name] = status
    began = time.monotonic()

    async def until_disconnect():
        while (await receive())["type"] != "http.disconnect":
            pass

    gone = asyncio.ensure_future(until_disconnect())
    await send({"type": "http.response.start", "status": 200, "headers": [
        (b"content-type", b"text/event-stream"),
        (b"x-connection", str(connection_of(scope["client"])).encode()),
    ]})
    waits = [interval] * count + ([silence] if silence > 0 else [])
    for index, wait in enumerate(waits):
        if gone.done():
            break
        if index < count:
            await send({"type": "http.response.body", "body": f"data: {index}\n\n".encode(), "more_body": True})
            status["sent"] += 1
        await asyncio.wait([gone], timeout=wait)
    status["disconnected"] = gone.done()
    if not gone.done():
        gone.cancel()
        await send({"type": "http.response.body", "body": b""})
    status["ended"] = True
    status["elapsed"] = time.monotonic() - began


def open_connections():
    return sorted(number for number, (_, writer) in CONNECTIONS.items() if not writer.transport.is_closing())


def connection_of(client):
    """The number of the open connection from this (host, port)."""
    return next((number for number, (port, writer) in CONNECTIONS.items()
                 if port == client[1] and not writer.transport.is_closing()), 0)


# worker_serve makes each connection's TCPServer by this name (hypercorn 0.18); a hypercorn that
# does not would leave /connections empty, so this server refuses to start under it.
if getattr(hypercorn.asyncio.run, "TCPServer", None) is not TCPServer:
    sys.exit("h2_server.py: this hypercorn does not make its connections with "
             "hypercorn.asyncio.run.TCPServer, so /connections cannot track them")
hypercorn.asyncio.run.TCPServer = TrackedTCPServer


async def app(scope, receive, send):
    if scope["type"] == "lifespan":
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await send({"type": "lifespan.shutdown.complete"})
                return
    query = dict(urllib.parse.parse_qsl(scope["query_string"].decode()))
    if scope["path"] == "/drip":
        await drip(scope, receive, send, query)
        return
    raw = b""
    while True:
        message = await receive()
        raw += message.get("body", b"")
        if not message.get("more_body"):
            break
    if scope["path"] == "/hello":
        status, content_type = 200, b"text/plain"
        body = f"hello over HTTP/{scope['http_version']}".encode()
    elif scope["path"] == "/echo":
        headers = {name.decode().lower(): value.decode() for name, value in scope["headers"]}
        status, content_type = 200, b"application/json"
        body = json.dumps({
            "method": scope["method"],
            "path": scope["path"],
            "query": scope["query_string"].decode(),
            "httpVersion": scope["http_version"],
            "contentType": headers.get("content-type"),
            "body": json.loads(raw) if raw else None,
        }, sort_keys=True).encode()
    elif scope["path"] == "/drip-status":
        status, content_type = 200, b"application/json"
        body = json.dumps(DRIPS.get(query.get("id", ""), {"started": False})).encode()
    elif scope["path"] == "/connections":
        status, content_type = 200, b"application/json"
        body = json.dumps({"open": open_connections()}).encode()
    else:
        status, content_type, body = 404, b"text/plain", b"not found"
    await send({
        "type": "http.response.start",
        "status": status,
        "headers": [
            (b"content-type", content_type),
            (b"content-length", str(len(body)).encode()),
            (b"x-connection", str(connection_of(scope["client"])).encode()),
        ],
    })
    await send({"type": "http.response.body", "body": body})


async def stdin_closed():
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)


async def serve(config):
    sockets = config.create_sockets()
    # Listening now, so that a client that connects before hypercorn accepts waits in the backlog
    # instead of being refused (hypercorn listens again on the same socket, which changes nothing).
    sockets.secure_sockets[0].listen(config.backlog)
    print(f"PORT {sockets.secure_sockets[0].getsockname()[1]}", flush=True)
    await worker_serve(wrap_app(app, config.wsgi_max_body_size, "asgi"), config,
                       sockets=sockets, shutdown_trigger=stdin_closed)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cert", required=True)
    parser.add_argument("--key", required=True)
    parser.add_argument("--keep-alive", type=float, default=1.0)
    arguments = parser.parse_args()

    config = Config()
    config.bind = ["127.0.0.1:0"]
    config.certfile = arguments.cert
    config.keyfile = arguments.key
    config.keep_alive_timeout = arguments.keep_alive
    config.accesslog = None
    config.errorlog = None
    asyncio.run(serve(config))


if __name__ == "__main__":
    main()
