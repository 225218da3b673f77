#!/usr/bin/env python3
"""A counting ingestion collector for the server load test (standard library only).

Listens on 127.0.0.1 (ephemeral port), prints "PORT <n>" first, and accepts
`POST /v1/batch`: each event's messageId is remembered, so the run can tell delivered,
unique and duplicate events apart without keeping bodies. Events carrying an integer
`properties.seq` are checked for order per write key (`out_of_order` counts a first arrival
whose sequence number is below one seen before). Between `--fail-from` and
`--fail-until` seconds after start it answers 503 (an outage). `GET /_stats` returns the
counts as JSON, with the largest gap between two accepted batches.
"""
import argparse
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOCK = threading.Lock()
SEEN = set()
STATS = {"requests": 0, "accepted_batches": 0, "events": 0, "duplicates": 0, "refused": 0, "max_gap_s": 0.0,
         "out_of_order": 0}
LAST_SEQ = {}
STARTED = time.monotonic()
LAST_ACCEPT = [None]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    fail_from = 0.0
    fail_until = 0.0

    def log_message(self, *args):
        pass

    def reply(self, status, payload=b"{}"):
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def do_GET(self):
        if self.path != "/_stats":
            return self.reply(404)
        with LOCK:
            payload = dict(STATS, unique=len(SEEN))
        self.reply(200, json.dumps(payload).encode())

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        elapsed = time.monotonic() - STARTED
        with LOCK:
            STATS["requests"] += 1
        if self.fail_from <= elapsed < self.fail_until:
            with LOCK:
                STATS["refused"] += 1
            return self.reply(503)
        try:
            batch = json.loads(body)["batch"]
            ids = [event["messageId"] for event in batch]
            sequences = [sequence_of(event) for event in batch]
        except (ValueError, KeyError, TypeError):
            return self.reply(400)
        now = time.monotonic()
        with LOCK:
            STATS["accepted_batches"] += 1
            STATS["events"] += len(ids)
            for message_id, (key, sequence) in zip(ids, sequences):
                if message_id in SEEN:
                    STATS["duplicates"] += 1
                    continue
                SEEN.add(message_id)
                if sequence is not None:
                    if sequence < LAST_SEQ.get(key, -1):
                        STATS["out_of_order"] += 1
                    LAST_SEQ[key] = max(sequence, LAST_SEQ.get(key, -1))
            if LAST_ACCEPT[0] is not None:
                STATS["max_gap_s"] = max(STATS["max_gap_s"], now - LAST_ACCEPT[0])
            LAST_ACCEPT[0] = now
        self.reply(200)


def sequence_of(event):
    """(write key, properties.seq) when the event carries an integer sequence number."""
    properties = event.get("properties")
    sequence = properties.get("seq") if isinstance(properties, dict) else None
    if isinstance(sequence, int) and not isinstance(sequence, bool):
        return event.get("writeKey"), sequence
    return None, None


class QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        # A client closing its kept connection mid-read is routine under load, not news.
        if not isinstance(sys.exc_info()[1], (ConnectionResetError, BrokenPipeError)):
            super().handle_error(request, client_address)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--fail-from", type=float, default=0.0)
    parser.add_argument("--fail-until", type=float, default=0.0)
    args = parser.parse_args()
    Handler.fail_from = args.fail_from
    Handler.fail_until = args.fail_until
    server = QuietServer(("127.0.0.1", 0), Handler)
    print(f"PORT {server.server_address[1]}", flush=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        sys.stdin.read()
    except KeyboardInterrupt:
        pass
    server.shutdown()


if __name__ == "__main__":
    main()
