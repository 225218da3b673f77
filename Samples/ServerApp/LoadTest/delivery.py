#!/usr/bin/env python3
"""Delivery benchmark: 100,000 events over loopback HTTP to the counting collector, through the
library's default transport and through the sample's AsyncHTTPClient transport, in
interleaved rounds. Prints each transport's median events/s (first call to last
acknowledgement), retries, drops, and what the collector saw: events lost, duplicates and
events out of order.

  python3 Samples/ServerApp/LoadTest/delivery.py [--events 100000] [--rounds 3] [--disk]
        [--busy] [--skip-build]

`--busy` keeps two CPU-burning processes running beside the run, as the issue's "machine busy"
case asks.
"""
import argparse
import json
import multiprocessing
import os
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from loadtest import PACKAGE, HERE, stats, wait_for_line  # noqa: E402

TRANSPORTS = ["default", "async-http-client"]


def burn():
    while True:
        pass


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--disk", action="store_true", help="with the disk log on (off by default: delivery alone)")
    parser.add_argument("--busy", action="store_true", help="two CPU-burning processes beside the run")
    parser.add_argument("--skip-build", action="store_true")
    args = parser.parse_args()

    if not args.skip_build:
        subprocess.run(["swift", "build", "-c", "release", "--package-path", PACKAGE, "--product", "DeliveryBenchmark"],
                       check=True)
    binary = subprocess.run(["swift", "build", "-c", "release", "--package-path", PACKAGE, "--show-bin-path"],
                            check=True, capture_output=True, text=True).stdout.strip() + "/DeliveryBenchmark"

    collector = subprocess.Popen([sys.executable, os.path.join(HERE, "collector.py")],
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    port = wait_for_line(collector, "PORT", 10)
    burners = [multiprocessing.Process(target=burn, daemon=True) for _ in range(2 if args.busy else 0)]
    for burner in burners:
        burner.start()
    results = {name: [] for name in TRANSPORTS}
    try:
        for round_number in range(args.rounds):
            for name in TRANSPORTS:
                before = stats(port)
                command = [binary, "--ingestion-host", f"http://127.0.0.1:{port}", "--transport", name,
                           "--events", str(args.events)] + (["--disk"] if args.disk else [])
                report = json.loads(subprocess.run(command, check=True, capture_output=True, text=True).stdout)
                after = stats(port)
                report["arrived"] = after["unique"] - before["unique"]
                report["duplicates"] = after["duplicates"] - before["duplicates"]
                report["out_of_order"] = after["out_of_order"] - before["out_of_order"]
                results[name].append(report)
                print(f"round {round_number + 1} {name}: {report['events_per_s']:,.0f} events/s, "
                      f"{report['retries']} retries, {report['events'] - report['arrived']} lost, "
                      f"{report['duplicates']} duplicates, {report['out_of_order']} out of order", flush=True)
    finally:
        for burner in burners:
            burner.terminate()
        collector.stdin.close()
        collector.wait(timeout=10)

    print(f"\n{args.events:,} events per round, {args.rounds} rounds, disk log {'on' if args.disk else 'off'}"
          f"{', machine busy' if args.busy else ''}")
    for name, reports in results.items():
        rates = [report["events_per_s"] for report in reports]
        print(f"{name:>18}: median {statistics.median(rates):,.0f} events/s (min {min(rates):,.0f}, "
              f"max {max(rates):,.0f}); retries {sum(r['retries'] for r in reports)}, "
              f"lost {sum(r['events'] - r['arrived'] for r in reports)}, "
              f"duplicates {sum(r['duplicates'] for r in reports)}, "
              f"out of order {sum(r['out_of_order'] for r in reports)}")


if __name__ == "__main__":
    main()
