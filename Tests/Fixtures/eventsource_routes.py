"""Event streams that end, break and change between connections, for the EventSource tests.

Imported by loopback_server.py, which routes two paths here:

  /eventsource/<name>?plan=<step>;<step>;...
        Connection k (from 0) of stream <name> follows step k (the last step again once the
        plan runs out). A step is comma-separated key=value settings:
          before=drop     the connection closed without an answer
          status=<code>   the status (200); not 200: a text body "status <code>", no stream
          type=<type>     the Content-Type (text/event-stream)
          retry=<text>    a "retry: <text>" line first (any text: invalid ones included)
          events=<n>      n events (1): "id: <i>\\ndata: event <i>\\n\\n", i from Last-Event-ID + 1
                          (or from 1 when the request has none); "noid=1" leaves out the id lines
          end=<how>       close (the body's last chunk), drop (the connection closed after the
                          events), drop-mid (half an event, then closed), hold (nothing more,
                          until the client goes, at most 30 s)
          crlf=1          lines end in CRLF instead of LF
  /eventsource-log/<name>
        {"connections": [{"lastEventID": <header or null>, "at": <monotonic>, "ended": <monotonic
        or null>, "authorization": <header or null>, "method": ..., "body": ...}, ...]}
"""

import json
import select
import socket
import threading
import time
import urllib.parse

LOCK = threading.Lock()
# name -> [connection records], in arrival order.
STREAMS = {}


def parse_plan(text):
    steps = []
    for step in (text or "").split(";"):
        settings = {}
        for item in step.split(","):
            if "=" in item:
                key, value = item.split("=", 1)
                settings[key.strip()] = value
        steps.append(settings)
    return steps or [{}]


def handle(handler, name, query, body):
    """Answers /eventsource/<name> on a loopback_server Handler."""
    last = handler.headers.get("Last-Event-ID")
    record = {"lastEventID": last, "at": time.monotonic(), "ended": None,
              "authorization": handler.headers.get("Authorization"), "method": handler.command,
              "body": body.decode("utf-8", "replace") if body else ""}
    with LOCK:
        connections = STREAMS.setdefault(name, [])
        index = len(connections)
        connections.append(record)
    steps = parse_plan(query.get("plan", [""])[0])
    step = steps[min(index, len(steps) - 1)]
    try:
        serve(handler, step, last, record)
    finally:
        with LOCK:
            if record["ended"] is None:
                record["ended"] = time.monotonic()


def ending(record):
    """Notes the moment the response ends, before the client can see it end."""
    with LOCK:
        record["ended"] = time.monotonic()


def serve(handler, step, last, record):
    if step.get("before") == "drop":
        ending(record)
        drop(handler)
        return
    status = int(step.get("status", "200"))
    if status != 200:
        ending(record)
        handler.send(status, f"status {status}".encode(), "text/plain; charset=utf-8")
        return
    content_type = step.get("type", "text/event-stream")
    if not handler.start_chunked(200, content_type, [("Cache-Control", "no-store")]):
        return
    newline = "\r\n" if step.get("crlf") == "1" else "\n"
    if "retry" in step:
        handler.send_chunk(f"retry: {step['retry']}{newline}{newline}".encode())
    first = int(last) + 1 if last and last.isdigit() else 1
    count = int(step.get("events", "1"))
    for i in range(first, first + count):
        lines = [] if step.get("noid") == "1" else [f"id: {i}"]
        lines.append(f"data: event {i}")
        handler.send_chunk((newline.join(lines) + newline + newline).encode())
    end = step.get("end", "close")
    if end == "close":
        ending(record)
        handler.end_chunks()
    elif end == "drop":
        ending(record)
        drop(handler)
    elif end == "drop-mid":
        handler.send_chunk(f"id: {first + count}{newline}data: half an ev".encode())
        ending(record)
        drop(handler)
    elif end == "hold":
        hold(handler)
        ending(record)
        drop(handler)


def drop(handler):
    """Closes the connection mid-body: no last chunk, so the client sees a broken transfer."""
    handler.close_connection = True
    try:
        handler.wfile.flush()
        handler.connection.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass


def hold(handler):
    """Waits, sending nothing, until the client closes the connection (or 30 s pass)."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        readable, _, _ = select.select([handler.connection], [], [], 0.05)
        if readable:
            try:
                if not handler.connection.recv(1, socket.MSG_PEEK):
                    return
            except OSError:
                return


def log(name):
    with LOCK:
        return {"connections": [dict(record) for record in STREAMS.get(name, [])]}
