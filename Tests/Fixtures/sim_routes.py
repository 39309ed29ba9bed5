"""A server whose latency and failures a test scripts, for the resilience simulations.

Imported by loopback_server.py, which routes two paths here:

  /sim/<key>?latency=<lo>-<hi>&stall=<p>&stall_for=<s>&fail=<p>&seed=<n>
        Each request for <key> draws from one random stream (seeded by <seed>, so the
        draws of a run are repeatable): with probability fail (0) it answers 503 at once; else
        with probability stall (0) it waits stall_for seconds (2) before answering, noticing a
        client that goes away meanwhile (it is then counted as abandoned and gets no answer);
        else it waits a time drawn uniformly from lo to hi milliseconds (10-20). The answer is
        200 with the text "sim <key> <n>", n the request's number for <key> from 1.
  /sim-count/<key>
        {"requests": <requests seen>, "stalled": <stalls begun>, "abandoned": <stalled requests
        whose client went away before the stall ended>, "failed": <503s sent>}
"""

import json
import random
import select
import socket
import threading
import time

LOCK = threading.Lock()
# key -> {"random": Random, "requests": n, "stalled": n, "abandoned": n, "failed": n}
KEYS = {}


def state(key, seed):
    record = KEYS.get(key)
    if record is None:
        record = {"random": random.Random(str(seed)), "requests": 0, "stalled": 0, "abandoned": 0, "failed": 0}
        KEYS[key] = record
    return record


def number(query, name, default):
    try:
        return float(query.get(name, [default])[0])
    except ValueError:
        return float(default)


def client_gone(sock):
    """Whether the client closed its end: the socket reads as ended."""
    try:
        readable, _, _ = select.select([sock], [], [], 0)
        if not readable:
            return False
        return sock.recv(1, socket.MSG_PEEK) == b""
    except OSError:
        return True


def handle(handler, key, query):
    low, _, high = query.get("latency", ["10-20"])[0].partition("-")
    low, high = float(low or 10), float(high or low or 20)
    stall, stall_for = number(query, "stall", 0), min(number(query, "stall_for", 2), 30)
    fail, seed = number(query, "fail", 0), query.get("seed", ["1"])[0]
    with LOCK:
        record = state(key, seed)
        record["requests"] += 1
        n = record["requests"]
        draw_fail, draw_stall, wait = record["random"].random(), record["random"].random(), record["random"].uniform(low, high)
        if draw_fail < fail:
            record["failed"] += 1
        elif draw_stall < stall:
            record["stalled"] += 1
    if draw_fail < fail:
        return handler.send(503, f"sim {key} {n}".encode(), "text/plain")
    if draw_stall < stall:
        end = time.monotonic() + stall_for
        while time.monotonic() < end:
            if client_gone(handler.connection):
                with LOCK:
                    record["abandoned"] += 1
                handler.close_connection = True
                return
            time.sleep(0.005)
    else:
        time.sleep(wait / 1000)
    handler.send(200, f"sim {key} {n}".encode(), "text/plain")


def counts(key):
    with LOCK:
        record = KEYS.get(key, {})
        return {name: record.get(name, 0) for name in ("requests", "stalled", "abandoned", "failed")}


def reply_counts(handler, key):
    handler.send(200, json.dumps(counts(key), sort_keys=True).encode(), "application/json")
