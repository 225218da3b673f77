#!/usr/bin/env python3
"""Compares what the sample's vendor formats send with what each vendor's own Python client
sends for the same calls (track, identify, screen, page, group, alias).

    python3 Samples/Destinations/Conformance/compare.py [--tool PATH]

Needs `amplitude-analytics`, `mixpanel` and `posthog` from PyPI. Each client runs against a
capture server on 127.0.0.1 (any other address is refused in this process, so nothing leaves
the machine); our side is `destinations-tool conformance <host>` (built with `swift build`
unless --tool names the binary), which prints each format's request for the calls of
`Sources/DestinationsTool/ConformanceCalls.swift`. The same call is made on both sides with the
same inputs. For each call: the same method and path, the same media type and authorization
scheme, and the same body structure — object keys, nesting and JSON types (numbers are one
type; ids and times may differ in value). A difference fails with its key path, unless it is
listed in ACCEPTED below with the reason; accepted differences are printed too.
"""
import argparse
import base64
import datetime
import fnmatch
import json
import logging
import os
import socket
import subprocess
import sys
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE = os.path.dirname(HERE)

# Nothing in this process may reach beyond the loopback address.
_connect = socket.socket.connect


def _loopback_only(self, address):
    if isinstance(address, tuple) and address[0] not in ("127.0.0.1", "localhost", "::1"):
        raise OSError(f"compare.py talks to 127.0.0.1 only, not {address[0]}")
    return _connect(self, address)


socket.socket.connect = _loopback_only

# Differences we accept, per comparison: (key-path pattern, which side has it, reason).
# "ours" = only our format sends it; "theirs" = only the vendor's client does; "call" = a call
# one side does not send at all.
DEVICE_CONTEXT = "device context the app's SDK knows (from the event's context) and a server-side Python client does not collect"
ACCEPTED = {
    "amplitude": [
        ("alias", "call", "Amplitude's HTTP V2 API has no alias (its User Mapping API is another endpoint); the Python client has none either"),
    ],
    "mixpanel_track": [
        ("*headers.content-type", "both", "Mixpanel documents JSON bodies for /track and /import; the Python library still posts the older form encoding (data=<json>)"),
        ("group", "call", "Mixpanel group profiles live at /groups (another endpoint; the Python client's group_set); our events carry the group key instead"),
        ("*.properties.$os", "ours", DEVICE_CONTEXT), ("*.properties.$os_version", "ours", DEVICE_CONTEXT),
        ("*.properties.$model", "ours", DEVICE_CONTEXT), ("*.properties.$manufacturer", "ours", DEVICE_CONTEXT),
        ("*.properties.$app_version_string", "ours", DEVICE_CONTEXT),
        ("alias:path", "both", "in /import mode every event goes to /import, which Mixpanel documents for $create_alias too; the Python client sends it to /track"),
        ("alias:headers.authorization", "ours", "the /import mode's basic auth (the project token), on every request"),
        ("alias:*.properties.$insert_id", "ours", "the Python client's alias sends no $insert_id; ours keeps one so a retried alias is not counted twice"),
        ("alias:*.properties.time", "ours", "the Python client's alias sends no time; ours keeps when the call happened"),
        ("alias:*.properties.mp_lib", "ours", "the Python client's alias names no library"),
        ("alias:*.properties.$lib_version", "ours", "the Python client's alias names no library"),
        ("alias:*.properties.$device_id", "ours", "simplified ID merge properties, on every event"),
        ("alias:*.properties.$user_id", "ours", "simplified ID merge properties, on every event"),
    ],
    "posthog": [
        ("*.properties.$python_runtime", "theirs", "the Python runtime's own"), ("*.properties.$python_version", "theirs", "the Python runtime's own"),
        ("*.properties.$os_distro", "theirs", "the Python runtime's own"), ("*.properties.$is_server", "theirs", "marks a server-side library"),
        ("*.properties.$geoip_disable", "theirs", "a client option (disable_geoip), off in ours: the device's IP is the one to locate"),
        ("*.properties.$device_model", "ours", DEVICE_CONTEXT), ("*.properties.$app_version", "ours", DEVICE_CONTEXT),
        ("group:*.properties.$os", "ours", DEVICE_CONTEXT), ("group:*.properties.$os_version", "ours", DEVICE_CONTEXT),
        ("alias:*.properties.$os", "ours", DEVICE_CONTEXT), ("alias:*.properties.$os_version", "ours", DEVICE_CONTEXT),
        ("*.properties.$device_id", "ours", "PostHog's device id property, from the anonymous id; the Python client has no device"),
        ("*.properties.$session_id", "ours", "PostHog's session property, from the SDK's session; the Python client has no session"),
    ],
}
ACCEPTED["mixpanel"] = ACCEPTED["mixpanel_track"]

# ---------------------------------------------------------------------------------------------
# The capture server.
LOCK = threading.Lock()
CAPTURED = []


class Capture(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        with LOCK:
            CAPTURED.append({"method": self.command, "path": self.path,
                             "headers": {k.lower(): v for k, v in self.headers.items()}, "body": body})
        # An answer each client takes as success: Amplitude's, Mixpanel's (verbose), PostHog's.
        payload = b'{"code": 200, "status": 1, "events_ingested": 1, "num_records_imported": 1}'
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    do_GET = do_POST


def take():
    with LOCK:
        taken = list(CAPTURED)
        CAPTURED.clear()
    return taken


# ---------------------------------------------------------------------------------------------
# The calls, through each vendor's client (the inputs of ConformanceCalls.swift).
ANON, USER, MESSAGE_UUID = "6a1f0c1e-2b3d-4e5f-8a9b-0c1d2e3f4a5b", "user-42", "0e2e8a7c-3a0e-4c1b-9a55-1b2c3d4e5f60"
TIME_MS = 1700000000123
TRACK = {"total": 42, "currency": "EUR", "items": [1, 2], "gift": False, "price": 19.99}
TRAITS = {"email": "ada@example.com", "plan": "pro", "age": 36}
SCREEN = {"name": "Checkout", "step": 2}
PAGE = {"name": "Pricing", "url": "https://example.com/pricing", "path": "/pricing", "title": "Pricing"}
GROUP = {"name": "Acme", "employees": 120}


def amplitude_calls(host):
    from amplitude import Amplitude, BaseEvent, Config, EventOptions, Identify

    def options(**extra):
        fields = dict(user_id=USER, device_id=ANON, time=TIME_MS, insert_id="1700000000123-" + MESSAGE_UUID, session_id=1700000000000,
                      platform="iOS", os_name="iOS", os_version="17.4", device_model="iPhone15,2", device_manufacturer="Apple",
                      app_version="3.2.1", language="en-US")
        fields.update(extra)
        return fields

    def run(call):
        client = Amplitude("KEY", Config(server_url=f"{host}/2/httpapi", flush_queue_size=100, flush_interval_millis=100000))
        call(client)
        client.shutdown()
        return take()

    identify = Identify()
    for key, value in TRAITS.items():
        identify.set(key, value)
    group_traits = Identify()
    for key, value in GROUP.items():
        group_traits.set(key, value)
    return {
        "track": run(lambda c: c.track(BaseEvent(event_type="Order Completed", event_properties=TRACK, **options()))),
        "identify": run(lambda c: c.identify(identify, EventOptions(**options()))),
        "screen": run(lambda c: c.track(BaseEvent(event_type="[Amplitude] Screen Viewed",
                                                  event_properties={**SCREEN, "[Amplitude] Screen Name": "Checkout"}, **options()))),
        "page": run(lambda c: c.track(BaseEvent(event_type="[Amplitude] Page Viewed", event_properties={
            **PAGE, "[Amplitude] Page Title": "Pricing", "[Amplitude] Page URL": PAGE["url"], "[Amplitude] Page Path": PAGE["path"]}, **options()))),
        "group": run(lambda c: (c.set_group("group", "acme", EventOptions(**options())),
                                c.group_identify("group", "acme", group_traits, EventOptions(**options(insert_id="g"))))),
        "alias": [],
    }


def mixpanel_calls(host, endpoint):
    import mixpanel

    consumer_class = mixpanel.Consumer

    class Loopback(consumer_class):
        def __init__(self, *args, **kwargs):
            # Whatever the caller passed, every endpoint is the capture server.
            super().__init__(events_url=f"{host}/track", people_url=f"{host}/engage", groups_url=f"{host}/groups",
                             import_url=f"{host}/import", request_timeout=10, credentials=kwargs.get("credentials"))

    mixpanel.Consumer = Loopback  # alias() and BufferedConsumer make a Consumer() of their own
    # Batches, as ours: the buffered consumer posts a JSON array per endpoint on flush.
    consumer = mixpanel.BufferedConsumer(max_size=50)
    client = mixpanel.Mixpanel("TOKEN", consumer=consumer)
    ids = {"$device_id": ANON, "$user_id": USER}

    def send(name, properties, distinct_id=USER):
        if endpoint == "import":
            client.import_data(None, distinct_id, name, TIME_MS, {**properties, **ids}, api_secret="TOKEN")
        else:
            client.track(distinct_id, name, {**properties, **ids})
        consumer.flush()
        return take()

    return {
        "track": send("Order Completed", TRACK),
        "identify": send("$identify", {"$identified_id": USER, "$anon_id": ANON}),
        "screen": send("Viewed Checkout Screen", SCREEN),
        "page": send("$mp_web_page_view", {**PAGE, "current_page_title": "Pricing", "current_url_path": "/pricing"}),
        "group": (client.group_set("company", "acme", GROUP), consumer.flush(), take())[2],
        "alias": (client.alias(USER, ANON), take())[1],
    }


def posthog_calls(host):
    from posthog import Posthog

    client = Posthog("phc_KEY", host=host, sync_mode=True, gzip=False)
    when = datetime.datetime.fromtimestamp(TIME_MS / 1000, tz=datetime.timezone.utc)
    ids = {"$device_id": ANON, "$session_id": "1700000000000"}

    def capture(name, properties):
        client.capture(name, distinct_id=USER, properties={**properties, **ids}, timestamp=when, uuid=MESSAGE_UUID)
        return take()

    group = (client.group_identify("company", "acme", GROUP, timestamp=when, uuid=MESSAGE_UUID, distinct_id=USER), take())[1]
    alias = (client.alias(previous_id=ANON, distinct_id=USER, timestamp=when, uuid=MESSAGE_UUID), take())[1]
    # $device_id and $session_id ride on every event of ours; the two calls above take no properties.
    for request in group + alias:
        body = json.loads(request["body"])
        for event in body["batch"]:
            event["properties"].update(ids)
        request["body"] = json.dumps(body).encode()
    return {
        "track": capture("Order Completed", TRACK),
        "identify": capture("$identify", {"$set": TRAITS, "$anon_distinct_id": ANON}),
        "screen": capture("$screen", {**SCREEN, "$screen_name": "Checkout"}),
        "page": capture("$pageview", {**PAGE, "$current_url": PAGE["url"], "$pathname": PAGE["path"]}),
        "group": group,
        "alias": alias,
    }


# ---------------------------------------------------------------------------------------------
# Normal forms and the structural comparison.
def theirs_normal(requests):
    """One request (the vendor's client sends one per call here) as method, path, headers, body."""
    if not requests:
        return None
    if len(requests) > 1:
        raise SystemExit(f"expected one request, the client sent {len(requests)}: {[r['path'] for r in requests]}")
    request = requests[0]
    body = request["body"]
    content_type = request["headers"].get("content-type", "")
    if content_type.startswith("application/x-www-form-urlencoded"):
        body = json.loads(urllib.parse.parse_qs(body.decode())["data"][0])
    else:
        body = json.loads(body)
    return {"method": request["method"], "path": urllib.parse.urlsplit(request["path"]).path,
            "headers": important_headers(request["headers"]), "body": body}


def ours_normal(request):
    if "error" in request:
        return None
    return {"method": request["method"], "path": urllib.parse.urlsplit(request["url"]).path,
            "headers": important_headers({k.lower(): v for k, v in request["headers"].items()}), "body": request["body"]}


def important_headers(headers):
    """The headers that matter to the vendor: the media type, the auth scheme and user, gzip."""
    out = {"content-type": headers.get("content-type", "").split(";")[0].strip().lower()}
    auth = headers.get("authorization")
    if auth:
        scheme, _, value = auth.partition(" ")
        user = base64.b64decode(value).decode().split(":")[0] if scheme.lower() == "basic" else "…"
        out["authorization"] = f"{scheme} {user}"
    if headers.get("content-encoding"):
        out["content-encoding"] = headers["content-encoding"]
    return out


def kind(value):
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    return {dict: "object", list: "array", str: "string", type(None): "null"}[type(value)]


def differences(ours, theirs, path):
    """(path, side, message) for every structural difference."""
    if kind(ours) != kind(theirs):
        return [(path, "both", f"ours is {kind(ours)}, theirs is {kind(theirs)}")]
    found = []
    if isinstance(ours, dict):
        for key in sorted(set(ours) | set(theirs)):
            child = f"{path}.{key}"
            if key not in theirs:
                found.append((child, "ours", "only in ours"))
            elif key not in ours:
                found.append((child, "theirs", "only in theirs"))
            else:
                found += differences(ours[key], theirs[key], child)
    elif isinstance(ours, list):
        if len(ours) != len(theirs):
            found.append((path, "both", f"{len(ours)} elements in ours, {len(theirs)} in theirs"))
        for index, (a, b) in enumerate(zip(ours, theirs)):
            found += differences(a, b, f"{path}[{index}]")
    return found


def accepted(vendor, call, path, side):
    """The reason a difference is accepted, or None. A pattern without "call:" applies to every call."""
    for pattern, accepted_side, reason in ACCEPTED.get(vendor, []):
        if accepted_side == "call" or side == "call":
            if accepted_side == side == "call" and pattern == call:
                return reason
            continue
        full = pattern if ":" in pattern else "*:" + pattern
        if accepted_side in (side, "both") and fnmatch.fnmatchcase(f"{call}:{path}", full):
            return reason
    return None


def compare(vendor, ours, theirs):
    failures, notes = [], []
    for call in ["track", "identify", "screen", "page", "group", "alias"]:
        mine, their = ours_normal(ours[call]), theirs_normal(theirs[call])
        if mine is None or their is None:
            if mine is None and their is None:
                notes.append(f"{vendor}.{call}: neither side sends it")
                continue
            reason = accepted(vendor, call, call, "call")
            (notes if reason else failures).append(
                f"{vendor}.{call}: only {'theirs' if mine is None else 'ours'} sends it" + (f" — accepted: {reason}" if reason else ""))
            continue
        for field in ["method", "path"]:
            if mine[field] != their[field]:
                reason = accepted(vendor, call, field, "both")
                line = f"{vendor}.{call}.{field}: ours {mine[field]!r}, theirs {their[field]!r}"
                (notes if reason else failures).append(line + (f" — accepted: {reason}" if reason else ""))
        if vendor.startswith("mixpanel") and isinstance(their["body"], dict) and isinstance(mine["body"], list):
            their["body"] = [their["body"]]
            notes.append(f"{vendor}.{call}: the Python client posted one event, not an array — compared as a one-event array "
                         "(Mixpanel takes either)")
        # Headers by value (the media type, the auth scheme and user), bodies by structure.
        header_differences = differences(mine["headers"], their["headers"], "headers") + [
            (f"headers.{name}", "both", f"ours {value!r}, theirs {their['headers'][name]!r}")
            for name, value in mine["headers"].items() if name in their["headers"] and their["headers"][name] != value]
        for path, side, message in header_differences + differences(mine["body"], their["body"], "body"):
            reason = accepted(vendor, call, path, side)
            line = f"{vendor}.{call}: {path}: {message}"
            (notes if reason else failures).append(line + (f" — accepted: {reason}" if reason else ""))
    return failures, notes


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tool", help="the built destinations-tool (default: swift build it)")
    parser.add_argument("--verbose", action="store_true", help="print every accepted difference, not a summary")
    args = parser.parse_args()
    logging.disable(logging.WARNING)  # the clients' deprecation notes
    server = ThreadingHTTPServer(("127.0.0.1", 0), Capture)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    host = f"http://127.0.0.1:{server.server_address[1]}"

    tool = args.tool
    if not tool:
        subprocess.run(["swift", "build", "--package-path", PACKAGE, "--product", "destinations-tool"], check=True)
        bin_path = subprocess.run(["swift", "build", "--package-path", PACKAGE, "--show-bin-path"], check=True,
                                  capture_output=True, text=True).stdout.strip()
        tool = os.path.join(bin_path, "destinations-tool")
    ours = json.loads(subprocess.run([tool, "conformance", host], check=True, capture_output=True, text=True).stdout)

    theirs = {"amplitude": amplitude_calls(host), "mixpanel": mixpanel_calls(host, "import"),
              "mixpanel_track": mixpanel_calls(host, "track"), "posthog": posthog_calls(host)}
    failures, notes = [], []
    for vendor in ["amplitude", "mixpanel", "mixpanel_track", "posthog"]:
        found, accepted_notes = compare(vendor, ours[vendor], theirs[vendor])
        failures += found
        notes += accepted_notes
    # A difference that is not there must fail with its key path: drop one key of ours and look.
    probe = json.loads(json.dumps(ours["posthog"]))
    del probe["track"]["body"]["batch"][0]["uuid"]
    if not any("posthog.track: body.batch[0].uuid: only in theirs" in line for line in compare("posthog", probe, theirs["posthog"])[0]):
        failures.append("self-test: a missing uuid was not reported")
    if args.verbose:
        for line in notes:
            print("  " + line)
    else:
        summary = {}
        for line in notes:
            head, _, reason = line.partition(" — accepted: ")
            vendor_call, _, rest = head.partition(": ")
            vendor, _, call = vendor_call.partition(".")
            key = (vendor, rest.replace("body[0]", "body[i]").replace("batch[0]", "batch[i]").replace("events[0]", "events[i]")
                   if rest else call, reason)
            summary.setdefault(key, []).append(call)
        for (vendor, what, reason), calls in summary.items():
            print(f"  {vendor} ({', '.join(calls)}): {what}" + (f" — accepted: {reason}" if reason else ""))
    for line in failures:
        print("DIFFERENT " + line)
    print(f"{len(failures)} difference(s), {len(notes)} accepted, across amplitude, mixpanel (/import and /track) and posthog")
    server.shutdown()
    return 1 if failures else 0


if __name__ == "__main__":
    status = main()
    sys.stdout.flush()
    # Every request was made and compared; the Amplitude client's workers would still wait out
    # their flush interval before the interpreter could exit (100 s here), so leave without them.
    os._exit(status)
