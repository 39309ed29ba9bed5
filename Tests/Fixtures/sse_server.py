#!/usr/bin/env python3
"""Server-sent events test server: sse-starlette on starlette, served by hypercorn over TLS.

    sse_server.py --cert server.pem --key server.key [--http1]

Needs hypercorn (0.18), starlette and sse-starlette (pip install hypercorn==0.18.0 starlette
sse-starlette). Listens on 127.0.0.1 only, on an ephemeral port, and prints "PORT <n>" on its first
stdout line once it accepts connections. It exits when its stdin closes, so it never outlives the
process that started it. ALPN offers h2 and http/1.1, or http/1.1 only with --http1.

Unlike h2_server.py's /drip, the streams here are an ordinary sse-starlette EventSourceResponse,
which learns that its client left only the ASGI way (an http.disconnect from hypercorn: an
RST_STREAM or a closed connection), as a real server's would.

Endpoints:
  /events?id=<name>&interval=<seconds>
            an endless event stream (text/event-stream): "data: <i>" every interval seconds (0.05
            by default), from 0, until the client goes; noted under id in the records /status
            reports. Lines end in CRLF (sse-starlette's default), so an event is
            "data: <i>\r\n\r\n"; a ": ping - <date>" comment comes every 15 seconds.
  /resumable?id=<name>&per=<n>&total=<t>
            events "id: <i>" / "data: <i>" from Last-Event-ID + 1 (or 1), n per connection (3), each
            connection's response ending after them; 204 once t (10) were sent
  /resumable-log?id=<name>
            {"connections": [{"lastEventID", "httpVersion"}, ...]}, one per /resumable request
  /status?id=<name>
            {"started", "disconnected", "disconnectedAt", "sent", "httpVersion"} of that stream:
            true once it began; whether the server saw its client leave; when, as time.time() (the
            wall clock, seconds since the epoch) at that moment, or null; how many events it sent;
            and scope["http_version"] ("2" or "1.1"). {"started": false} for an id never streamed.
            Query it on a connection of its own: a request on the stream's own HTTP/2 connection
            could itself make the client send what it owes that connection.
"""

import argparse
import asyncio
import sys
import time

from hypercorn.asyncio.run import worker_serve
from hypercorn.config import Config
from hypercorn.utils import wrap_app
from sse_starlette import EventSourceResponse
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

# The streams by id, as /status reports them.
STREAMS = {}
# Set once stdin has closed: every stream then ends (a last chunk, as if it were finite), so that
# hypercorn's shutdown finds no response to cancel (which it reports with a traceback).
STOPPING = None
# How many streams are running.
RUNNING = 0


def note_disconnect(record):
    """Notes the first moment the server knew the client had gone."""
    if not record["disconnected"]:
        record["disconnected"] = True
        record["disconnectedAt"] = time.time()


async def events(request: Request):
    name = request.query_params.get("id", "")
    interval = float(request.query_params.get("interval", "0.05"))
    record = {"started": True, "disconnected": False, "disconnectedAt": None, "sent": 0,
              "httpVersion": request.scope["http_version"]}
    STREAMS[name] = record

    async def stream():
        global RUNNING
        RUNNING += 1
        index = 0
        try:
            while not STOPPING.is_set():
                yield {"data": str(index)}
                # Resumed: sse-starlette has handed the event to the server.
                record["sent"] += 1
                index += 1
                try:
                    await asyncio.wait_for(STOPPING.wait(), interval)
                except asyncio.TimeoutError:
                    pass
        except asyncio.CancelledError:
            # sse-starlette cancels the generator when it gets http.disconnect (the handler below
            # has noted it by then), and hypercorn when its connection is gone.
            note_disconnect(record)
            raise
        finally:
            RUNNING -= 1

    async def client_closed(message):
        note_disconnect(record)

    return EventSourceResponse(stream(), client_close_handler_callable=client_closed)


async def status(request: Request):
    return JSONResponse(STREAMS.get(request.query_params.get("id", ""), {"started": False}))


# Resumable streams by id: the Last-Event-ID of each connection, in order.
RESUMABLE = {}


async def resumable(request: Request):
    """Events "id: <i>, data: <i>" from Last-Event-ID + 1 (or 1), `per` of them per connection,
    then the response ends; 204 once `total` were sent, as the standard's way to stop a client."""
    name = request.query_params.get("id", "")
    per = int(request.query_params.get("per", "3"))
    total = int(request.query_params.get("total", "10"))
    last = request.headers.get("last-event-id")
    RESUMABLE.setdefault(name, []).append({"lastEventID": last, "httpVersion": request.scope["http_version"]})
    first = int(last) + 1 if last and last.isdigit() else 1
    if first > total:
        return Response(status_code=204)

    async def stream():
        for i in range(first, min(first + per, total + 1)):
            yield {"id": str(i), "data": str(i)}
            await asyncio.sleep(0.01)

    return EventSourceResponse(stream())


async def resumable_log(request: Request):
    return JSONResponse({"connections": RESUMABLE.get(request.query_params.get("id", ""), [])})


app = Starlette(routes=[Route("/events", events), Route("/status", status), Route("/resumable", resumable),
                        Route("/resumable-log", resumable_log)])


async def stdin_closed():
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
    STOPPING.set()
    for _ in range(50):
        if RUNNING == 0:
            break
        await asyncio.sleep(0.02)
    # A moment for the last chunks to go out before hypercorn closes the connections.
    await asyncio.sleep(0.05)


async def serve(config):
    global STOPPING
    STOPPING = asyncio.Event()
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
    parser.add_argument("--http1", action="store_true", help="offer http/1.1 only in ALPN")
    arguments = parser.parse_args()

    config = Config()
    config.bind = ["127.0.0.1:0"]
    config.certfile = arguments.cert
    config.keyfile = arguments.key
    config.alpn_protocols = ["http/1.1"] if arguments.http1 else ["h2", "http/1.1"]
    # What a connection may still take once the streams have ended at shutdown.
    config.graceful_timeout = 1.0
    config.accesslog = None
    config.errorlog = None
    asyncio.run(serve(config))


if __name__ == "__main__":
    main()
