#!/usr/bin/env python3
"""WebSocket peer for the WebSocket tests, on Python's `websockets` (PyPI; RFC 6455 and 7692).

    websocket_server.py [--cert server.pem --key server.key]

Listens on 127.0.0.1 only, on an ephemeral port, prints "PORT <n>" once it accepts connections,
and exits when its stdin closes. permessage-deflate is agreed when the client offers it. With
--cert/--key it serves wss.

Routes (a query of ?id=X names the connection for /report):
  /echo                 every message back, same type
  /info                 first message: JSON {path, headers, extensions, subprotocol}; then echo
  /fragmented?size=N&frags=K&type=text|binary
                        one N-byte message sent as K frames with a ping between each two, then echo
  /big?size=N&count=C   C binary messages of N bytes each (counted as "sent" once each send is
                        taken by the socket), then a close with 1000
  /close?code=C&reason=R&after=A
                        echo A messages, then close with C and R
  /abort?after=A        echo A messages, then drop the TCP connection without a close frame
  /deaf                 read and never answer a close (the client's close must time out)
  /silent               accept, never send, never read: a slow peer for back-pressure
  /nopong?id=X          echo, but answer no ping (a peer whose keep-alive pong never comes);
                        /report gives {pings} too
  /count                reads messages and counts them, without answering; /report gives the count
  /report?id=X          one text message: JSON of what connection X recorded
  /auth                 401 unless "Authorization: Bearer fresh"
  /flaky?id=X           503 (Retry-After: 0) the first time for each id, then echo
  /redirect             302 to /echo
  /cookie               the 101 sets "ws-session=abc"; the first message says the Cookie field sent
  /counts               HTTP: JSON {unauthorized, flaky, redirects}
Subprotocols: the first of the client's offers in {chat, superchat} is chosen; "rogue" in the
offer makes the server answer "unoffered", which the client must refuse.
"""
import argparse
import asyncio
import http
import json
import os
import ssl
import sys
import threading
from urllib.parse import parse_qs, urlsplit

from websockets.asyncio.server import serve
from websockets.datastructures import Headers
from websockets.exceptions import ConnectionClosed
from websockets.frames import Opcode
from websockets.http11 import Response

RECORDS = {}
COUNTS = {"unauthorized": 0, "flaky": 0, "redirects": 0}
FLAKY_SEEN = set()


def query(path):
    parts = urlsplit(path)
    return parts.path, {key: values[0] for key, values in parse_qs(parts.query).items()}


def plain(status, body=b"", headers=()):
    fields = Headers([("Content-Length", str(len(body))), ("Content-Type", "text/plain"), *headers])
    return Response(status.value, status.phrase, fields, body)


def process_request(connection, request):
    route, params = query(request.path)
    if route == "/counts":
        return plain(http.HTTPStatus.OK, json.dumps(COUNTS).encode(), [("Content-Type", "application/json")])
    if route == "/auth" and request.headers.get("Authorization") != "Bearer fresh":
        COUNTS["unauthorized"] += 1
        return plain(http.HTTPStatus.UNAUTHORIZED, b"token expired", [("WWW-Authenticate", "Bearer")])
    if route == "/flaky":
        key = params.get("id", "")
        if key not in FLAKY_SEEN:
            FLAKY_SEEN.add(key)
            COUNTS["flaky"] += 1
            return plain(http.HTTPStatus.SERVICE_UNAVAILABLE, b"starting", [("Retry-After", "0")])
    if route == "/redirect":
        COUNTS["redirects"] += 1
        return plain(http.HTTPStatus.FOUND, b"", [("Location", "/echo")])
    return None


def process_response(connection, request, response):
    route, _ = query(request.path)
    if route == "/cookie":
        response.headers["Set-Cookie"] = "ws-session=abc; Path=/"
    return response


def select_subprotocol(connection, offered):
    if "rogue" in offered:
        return "unoffered"
    for name in offered:
        if name in ("chat", "superchat"):
            return name
    return None


async def echo(ws, limit=None, record=None):
    seen = 0
    async for message in ws:
        if record is not None:
            record["messages"] += 1
        await ws.send(message)
        seen += 1
        if limit is not None and seen >= limit:
            return


async def handler(ws):
    route, params = query(ws.request.path)
    record = {"messages": 0, "close_code": None, "close_reason": None}
    if "id" in params and route != "/report":
        RECORDS[params["id"]] = record
    try:
        if route == "/info":
            info = {
                "path": ws.request.path,
                "headers": {name.lower(): value for name, value in ws.request.headers.raw_items()},
                "extensions": [type(extension).__name__ for extension in ws.protocol.extensions],
                "subprotocol": ws.subprotocol,
            }
            await ws.send(json.dumps(info, sort_keys=True))
            await echo(ws, record=record)
        elif route == "/cookie":
            await ws.send("cookie=" + ws.request.headers.get("Cookie", ""))
            await echo(ws, record=record)
        elif route == "/fragmented":
            size, frags = int(params.get("size", "1000")), int(params.get("frags", "4"))
            text = params.get("type", "text") == "text"
            data = ("é" * (size // 2)).encode() if text else bytes(i % 251 for i in range(size))
            step = max(1, len(data) // frags)
            pieces = [data[i * step:(i + 1) * step] for i in range(frags - 1)] + [data[(frags - 1) * step:]]
            for index, piece in enumerate(pieces):
                last = index == len(pieces) - 1
                if index == 0:
                    (ws.protocol.send_text if text else ws.protocol.send_binary)(piece, fin=last)
                else:
                    ws.protocol.send_continuation(piece, fin=last)
                if not last:
                    ws.protocol.send_ping(b"between")
                ws.send_data()
                await asyncio.sleep(0)
            await echo(ws, record=record)
        elif route == "/big":
            size, count = int(params.get("size", "65536")), int(params.get("count", "1"))
            block = bytes(i % 251 for i in range(size))
            record["sent"] = 0
            for _ in range(count):
                await ws.send(block)
                record["sent"] += 1
            await ws.close(1000, "done")
        elif route == "/close":
            await echo(ws, limit=int(params.get("after", "0")), record=record) if int(params.get("after", "0")) else None
            await ws.close(int(params.get("code", "1000")), params.get("reason", ""))
        elif route == "/abort":
            after = int(params.get("after", "0"))
            if after:
                await echo(ws, limit=after, record=record)
            ws.transport.abort()
        elif route == "/deaf":
            # Stops reading: the client's close is never read, so never answered.
            ws.transport.pause_reading()
            await asyncio.sleep(3600)
        elif route == "/silent":
            # Stops reading: the client's sends fill the socket buffers and then wait.
            ws.transport.pause_reading()
            await asyncio.sleep(3600)
        elif route == "/nopong":
            record["pings"] = 0
            send_frame = ws.protocol.send_frame

            def without_pongs(frame):
                # The protocol answers each ping from inside; drop those answers, count the pings.
                if frame.opcode is Opcode.PONG:
                    record["pings"] += 1
                    return
                send_frame(frame)

            ws.protocol.send_frame = without_pongs
            await echo(ws, record=record)
        elif route == "/count":
            async for _ in ws:
                record["messages"] += 1
        elif route == "/report":
            await ws.send(json.dumps(RECORDS.get(params.get("id", ""), {}), sort_keys=True))
            await ws.wait_closed()
        else:
            await echo(ws, record=record)
    except ConnectionClosed:
        pass
    finally:
        record["close_code"] = ws.close_code
        record["close_reason"] = ws.close_reason


async def main(arguments):
    context = None
    if arguments.cert:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(arguments.cert, arguments.key)
    async with serve(
        handler, "127.0.0.1", 0, ssl=context, process_request=process_request, process_response=process_response,
        select_subprotocol=select_subprotocol, max_size=64 * 2**20, ping_interval=None, close_timeout=2,
    ) as server:
        port = server.sockets[0].getsockname()[1]
        print(f"PORT {port}", flush=True)

        def watch_stdin():
            # At once, without waiting for open connections (a deaf one never closes).
            sys.stdin.read()
            os._exit(0)

        threading.Thread(target=watch_stdin, daemon=True).start()
        await asyncio.Future()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--cert")
    parser.add_argument("--key")
    asyncio.run(main(parser.parse_args()))
