#!/usr/bin/env python3
"""A scriptable ingestion collector for MetaRouter's delivery tests (standard library only).

It listens on 127.0.0.1 (an ephemeral port unless --port is given), prints "PORT <n>" on its
first line, records every request, and answers each one from a script:

  POST /_control/script   {"responses": [{"status": 500, "headers": {...}, "delay": 0.2,
                            "drop": false, "body": "..."}, ...],  # used in order, one per request
                           "default": {"status": 200},      # after the list runs out
                           "fail_rate": 0.3, "fail_status": 503, "seed": 7}
  GET  /_control/requests {"requests": [{"path", "headers", "body", "status", "dropped"}]}
  POST /_control/clear    forget recorded requests and the script
  POST /_control/entitlements {"users": {"u1": ["pro"]}, "status": null, "purchase_status": null,
                            "drop": false, "delays": {"u1": 0.008}}   # the entitlement API's
                            # table, its faults, and per user the longest delay of an answer

The entitlement API (Docs/Entitlements.md) answers from that table, and records its requests
too: GET /v1/entitlements?userId=... gives {"entitlements": [...]} with an ETag (304 for a
matching If-None-Match) or "status" when set; POST /v1/purchases answers "purchase_status" when
set, and otherwise grants the entitlement named by evidence "grant:<key>" to the request's userId.

Everything else (POST, or GET as a rule server is asked) is an ingestion request, answered from
the script with its "body" text ("{}" by default). It stops on SIGTERM or when stdin closes.
"""
import gzip
import json
import random
import sys
import threading
import time
import urllib.parse
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOCK = threading.Lock()
ENTITLEMENTS = {"users": {}, "status": None, "purchase_status": None, "drop": False, "delays": {}}
STATE = {"requests": [], "in_flight": 0, "responses": [], "default": {"status": 200}, "fail_rate": 0.0,
         "fail_status": 503, "random": random.Random(0)}


def next_response():
    with LOCK:
        if STATE["responses"]:
            return dict(STATE["responses"].pop(0))
        if STATE["fail_rate"] > 0 and STATE["random"].random() < STATE["fail_rate"]:
            return {"status": STATE["fail_status"]}
        return dict(STATE["default"])


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Headers and body leave in two writes; with Nagle on, a kept-alive connection waits for
    # the client's delayed ACK (40 ms) between them, as no production ingestion server does.
    disable_nagle_algorithm = True

    def log_message(self, *args):
        pass

    def read_body(self):
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def reply(self, status, payload=b"", headers=None, padding=0):
        self.send_response(status)
        for name, value in (headers or {}).items():
            self.send_header(name, str(value))
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload) + padding))
        self.end_headers()
        self.wfile.write(payload)
        # "padding": that many newlines after the body, 64 KiB at a time; the bytes the client
        # took before it closed the connection are counted in STATE["padding_sent"].
        chunk = b"\n" * 65536
        sent = 0
        try:
            while sent < padding:
                piece = chunk[: min(len(chunk), padding - sent)]
                self.wfile.write(piece)
                sent += len(piece)
        except OSError:
            self.close_connection = True
        finally:
            if padding:
                with LOCK:
                    STATE["padding_sent"] = STATE.get("padding_sent", 0) + sent

    def entitlements(self, body):
        """The entitlement API; returns False for any other path."""
        path, _, query = self.path.partition("?")
        if path.endswith("/v1/entitlements") and self.command == "GET":
            user = urllib.parse.parse_qs(query).get("userId", [""])[0]
        elif path.endswith("/v1/purchases") and self.command == "POST":
            user = None
        else:
            return False
        try:
            parsed = json.loads(body) if body else None
        except ValueError:
            parsed = None
        with LOCK:
            status = ENTITLEMENTS["status"] if user is not None else ENTITLEMENTS["purchase_status"]
            drop = ENTITLEMENTS["drop"]
            if user is None and status is None and not drop and isinstance(parsed, dict):
                evidence, buyer = parsed.get("evidence") or "", parsed.get("userId") or ""
                if evidence.startswith("grant:"):
                    keys = ENTITLEMENTS["users"].setdefault(buyer, [])
                    if evidence[6:] not in keys:
                        keys.append(evidence[6:])
            keys = sorted(ENTITLEMENTS["users"].get(user, [])) if user is not None else []
            delay = STATE["random"].uniform(0, float(ENTITLEMENTS["delays"].get(user, 0))) if user is not None else 0
            STATE["requests"].append({"path": self.path, "method": self.command,
                                      "headers": {k.lower(): v for k, v in self.headers.items()},
                                      "body": parsed, "status": status or 200, "dropped": drop, "time": time.time()})
        if delay:
            time.sleep(delay)
        if drop:
            self.close_connection = True
            self.connection.close()
        elif status is not None:
            self.reply(int(status), b"{}")
        elif user is None:
            self.reply(200, b"{}")
        else:
            tag = '"%08x"' % (zlib.crc32(json.dumps(keys).encode()))
            if self.headers.get("If-None-Match") == tag:
                self.reply(304, b"", {"ETag": tag})
            else:
                self.reply(200, json.dumps({"entitlements": keys}).encode(), {"ETag": tag})
        return True

    def do_GET(self):
        if self.entitlements(b""):
            return
        if self.path == "/_control/requests":
            with LOCK:
                payload = json.dumps({"requests": STATE["requests"], "padding_sent": STATE.get("padding_sent", 0)}).encode()
            self.reply(200, payload)
        else:
            self.answer(self.read_body())

    def do_POST(self):
        body = self.read_body()
        if self.entitlements(body):
            return
        if self.path == "/_control/entitlements":
            table = json.loads(body or b"{}")
            with LOCK:
                ENTITLEMENTS.update({"users": table.get("users", {}), "status": table.get("status"),
                                     "purchase_status": table.get("purchase_status"), "drop": bool(table.get("drop")),
                                     "delays": table.get("delays") or {}})
            self.reply(200, b"{}")
            return
        if self.path == "/_control/script":
            script = json.loads(body or b"{}")
            with LOCK:
                STATE["responses"] = list(script.get("responses", []))
                STATE["default"] = script.get("default", {"status": 200})
                STATE["fail_rate"] = float(script.get("fail_rate", 0.0))
                STATE["fail_status"] = int(script.get("fail_status", 503))
                STATE["random"] = random.Random(script.get("seed", 0))
            self.reply(200, b"{}")
            return
        if self.path == "/_control/clear":
            with LOCK:
                STATE["requests"] = []
                STATE["responses"] = []
                STATE["default"] = {"status": 200}
                STATE["fail_rate"] = 0.0
            self.reply(200, b"{}")
            return
        self.answer(body)

    def answer(self, body):
        response = next_response()
        wire_length = len(body)
        if (self.headers.get("Content-Encoding") or "").lower() == "gzip":
            try:
                body = gzip.decompress(body)
            except (OSError, EOFError):
                body = b"<not gzip>"
        try:
            parsed = json.loads(body)
        except ValueError:
            parsed = None
        record = {"path": self.path, "method": self.command, "headers": {k.lower(): v for k, v in self.headers.items()},
                  "body": parsed, "raw": None if parsed is not None else body.decode("utf-8", "replace"),
                  "status": response.get("status", 200), "dropped": bool(response.get("drop")),
                  "wire_length": wire_length, "length": len(body),
                  "time": time.time(), "client_port": self.client_address[1]}
        with LOCK:
            # Other event requests being answered when this one arrived: 0 unless they overlap.
            record["overlapping"] = STATE["in_flight"]
            STATE["in_flight"] += 1
            STATE["requests"].append(record)
        try:
            if response.get("delay"):
                time.sleep(float(response["delay"]))
            if response.get("drop"):
                self.close_connection = True
                self.connection.close()
                return
            self.reply(int(response.get("status", 200)), response.get("body", "{}").encode(), response.get("headers"),
                       int(response.get("padding", 0)))
        finally:
            with LOCK:
                STATE["in_flight"] -= 1


def main():
    port = 0
    if "--port" in sys.argv:
        port = int(sys.argv[sys.argv.index("--port") + 1])
    ThreadingHTTPServer.request_queue_size = 128
    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    server.daemon_threads = True
    print(f"PORT {server.server_address[1]}", flush=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    # Stop when the test process goes away (stdin closes) so no collector outlives its test.
    sys.stdin.read()
    server.shutdown()


if __name__ == "__main__":
    main()
