#!/usr/bin/env python3
"""Load test of the sample server: wrk → ServerApp (one tenant, one `track` per request) →
the counting collector (the package's LoadCollector), all on this machine. Prints requests,
events delivered, loss, duplicates, server CPU per request, RSS, the largest gap between
batches and the SIGTERM drain.

  python3 Samples/ServerApp/LoadTest/loadtest.py [--duration 60] [--connections 32]
        [--outage 20] [--restart] [--no-analytics] [--pairs N] [--skip-build]

Needs wrk (Debian: apt-get install wrk); installs it when missing and apt-get is there.
"""
import argparse
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE = os.path.dirname(HERE)
TENANT = "load-tenant"
WRK_SCRIPT = """
wrk.method = "POST"
wrk.headers["X-User-Id"] = "user-42"
wrk.body = ""
"""


def ensure_wrk():
    if shutil.which("wrk"):
        return
    if shutil.which("apt-get"):
        subprocess.run(["apt-get", "install", "-y", "-qq", "wrk"], check=False, stdout=subprocess.DEVNULL)
    if not shutil.which("wrk"):
        sys.exit("wrk is needed: apt-get install wrk")


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as handle:
        fields = handle.read().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks


def machine_ticks():
    """(busy, stolen) CPU ticks of the whole machine since boot: user, nice, system, irq and
    softirq time of every process (wrk, the collector and the kernel's writeback included), and
    the time the hypervisor gave to other guests."""
    with open("/proc/stat") as handle:
        fields = [int(field) for field in handle.readline().split()[1:]]
    return fields[0] + fields[1] + fields[2] + fields[5] + fields[6], fields[7]


def memory_mb(pid, field):
    with open(f"/proc/{pid}/status") as handle:
        for line in handle:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    return 0.0


def stats(port):
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stats", timeout=10) as response:
        return json.loads(response.read())


def wait_for_line(process, prefix, timeout):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            break
        if line.startswith(prefix):
            return line.split()[1]
    sys.exit(f"no '{prefix}' line from {process.args[0]}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--duration", type=int, default=60)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--outage", type=float, default=0.0, help="the collector answers 503 for the first N seconds")
    parser.add_argument("--no-analytics", action="store_true", help="the same handler without track (the baseline)")
    parser.add_argument("--restart", action="store_true",
                        help="after SIGTERM, start the server again on the same storage, without requests, and count "
                             "what its logs deliver")
    parser.add_argument("--pairs", type=int, default=0,
                        help="alternate N runs without and N runs with tracking and print each pair's throughput ratio")
    parser.add_argument("--skip-build", action="store_true")
    args = parser.parse_args()
    ensure_wrk()
    if not args.skip_build:
        for product in ("ServerApp", "LoadCollector"):
            subprocess.run(["swift", "build", "-c", "release", "--package-path", PACKAGE, "--product", product], check=True)
    binary = subprocess.run(["swift", "build", "-c", "release", "--package-path", PACKAGE, "--show-bin-path"],
                            check=True, capture_output=True, text=True).stdout.strip() + "/ServerApp"
    if args.pairs:
        print(json.dumps(compare(args, binary), indent=2))
    else:
        print(json.dumps(run(args, binary), indent=2))


def compare(args, binary):
    """Runs without and with tracking in turn, `args.pairs` times: on a shared machine the speed
    of the CPU drifts by a quarter within minutes, so only runs side by side are compared, and
    every other pair runs its tracked half first (A B B A …), so that a steady drift favours
    neither. Prints each pair's ratio, their median, and the pooled ratio (all tracked requests
    over all baseline requests)."""
    pairs = []
    for index in range(args.pairs):
        results = {}
        for tracking in ((False, True) if index % 2 == 0 else (True, False)):
            args.no_analytics = not tracking
            results[tracking] = run(args, binary)
        baseline, tracked = results[False], results[True]
        pairs.append({
            "no_track_req_per_s": baseline["requests_per_s"], "track_req_per_s": tracked["requests_per_s"],
            "ratio": round(tracked["requests_per_s"] / max(baseline["requests_per_s"], 1), 3),
            "lost": tracked["lost"], "duplicates": tracked["duplicates"],
            "machine_cpu_us_per_request": [baseline["machine_cpu_us_per_request"],
                                           tracked["machine_cpu_us_per_request"]],
            "collector_cpu_cores": tracked["collector_cpu_cores"],
            "events_per_batch": round(tracked["events_delivered"] / max(tracked["batches"], 1), 1)})
    pooled = sum(pair["track_req_per_s"] for pair in pairs) / max(sum(pair["no_track_req_per_s"] for pair in pairs), 1)
    return {"pairs": pairs, "median_ratio": round(statistics.median(pair["ratio"] for pair in pairs), 3),
            "pooled_ratio": round(pooled, 3)}


def run(args, binary):
    """One run: starts the collector and the server, drives wrk against it, stops the server
    with SIGTERM and returns the figures."""
    storage = tempfile.mkdtemp(prefix="metarouter-load-")
    collector = subprocess.Popen([os.path.join(os.path.dirname(binary), "LoadCollector"), "--fail-until", str(args.outage)],
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    server = None
    try:
        collector_port = wait_for_line(collector, "PORT", 10)
        command = [binary, "--ingestion-host", f"http://127.0.0.1:{collector_port}", "--port", "0",
                   "--storage", storage, "--tenants", TENANT]
        if args.no_analytics:
            command.append("--no-analytics")
        server = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        server_port = wait_for_line(server, "listening", 60)
        rss_before = memory_mb(server.pid, "VmRSS")
        cpu_before = cpu_seconds(server.pid)
        collector_cpu_before = cpu_seconds(collector.pid)
        busy_before, stolen_before = machine_ticks()
        with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as script:
            script.write(WRK_SCRIPT)
        started = time.monotonic()
        wrk = subprocess.run(["wrk", "-t", str(args.threads), "-c", str(args.connections), "-d", f"{args.duration}s",
                              "-s", script.name, f"http://127.0.0.1:{server_port}/tenants/{TENANT}/checkout"],
                             capture_output=True, text=True, check=True)
        elapsed = time.monotonic() - started
        os.unlink(script.name)
        cpu_used = cpu_seconds(server.pid) - cpu_before
        collector_cpu = cpu_seconds(collector.pid) - collector_cpu_before
        busy_after, stolen_after = machine_ticks()
        ticks = os.sysconf("SC_CLK_TCK")
        rss_after = memory_mb(server.pid, "VmRSS")
        rss_peak = memory_mb(server.pid, "VmHWM")
        total = int(re.search(r"(\d+) requests in", wrk.stdout).group(1))
        failed = re.search(r"Non-2xx or 3xx responses: (\d+)", wrk.stdout)
        ok = total - (int(failed.group(1)) if failed else 0)
        term_started = time.monotonic()
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=120)
        drain = time.monotonic() - term_started
        log_bytes = len(server.stderr.read())
        counts = stats(collector_port)
        after_restart = None
        if args.restart:
            server = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            wait_for_line(server, "listening", 60)
            before, unchanged, seen = counts["unique"], 0, counts["unique"]
            while unchanged < 5:
                time.sleep(1)
                now_seen = stats(collector_port)["unique"]
                unchanged = unchanged + 1 if now_seen == seen else 0
                seen = now_seen
            server.send_signal(signal.SIGTERM)
            server.wait(timeout=120)
            after_restart = seen - before
            counts = stats(collector_port)
        return {
            "analytics": not args.no_analytics, "duration_s": round(elapsed, 1), "connections": args.connections,
            "requests_2xx": ok, "requests_per_s": round(ok / elapsed), "events_delivered": counts["unique"],
            "lost": max(0, ok - counts["unique"]), "beyond_wrk_count": max(0, counts["unique"] - ok),
            "duplicates": counts["duplicates"], "batches": counts["accepted_batches"], "refused_503": counts["refused"],
            "max_gap_between_batches_s": round(counts["max_gap_s"], 3),
            "server_cpu_us_per_request": round(cpu_used / max(ok, 1) * 1e6, 1),
            "collector_cpu_cores": round(collector_cpu / elapsed, 2),
            "machine_cpu_us_per_request": round((busy_after - busy_before) / ticks / max(ok, 1) * 1e6, 1),
            "stolen_cpu_cores": round((stolen_after - stolen_before) / ticks / elapsed, 2),
            "rss_mb_before": round(rss_before), "rss_mb_after": round(rss_after), "rss_mb_peak": round(rss_peak),
            "sigterm_drain_s": round(drain, 2), "exit_code": server.returncode, "log_bytes": log_bytes,
            "delivered_after_restart": after_restart,
            "left_on_disk_files": sum(len(files) for _, _, files in os.walk(storage)),
        }
    finally:
        if server and server.poll() is None:
            server.kill()
        collector.stdin.close()
        collector.wait(timeout=10)
        shutil.rmtree(storage, ignore_errors=True)


if __name__ == "__main__":
    main()
