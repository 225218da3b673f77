#!/usr/bin/env python3
"""`metarouter inspect` as a person uses it, in headless Chromium (Selenium, chromedriver).

Starts the inspector with a tracking plan and a rule set, opens its page, sends the demo session
through the SDK (`metarouter demo --to`), and checks what the page shows: the rows arrive live,
newest first, in the session's order; the detail shows the event's JSON and its batch; the
Order Completed event carries the plan violation's badge and message; the rule set's change is
shown; a condition in the rule language filters the list. Then a fault button answers the next
batch with 500, `metarouter send` delivers through the SDK, and the batch list shows the 500 and
the SDK's retry of the same batch (same Idempotency-Key) answered 200.

The inspector is local only: raw requests with a foreign Host (DNS rebinding) or a foreign
Origin, or without the page's token, get 403; a page on another origin, open in the same
browser, fails to clear the events or queue a fault. And it is a debugger for any
Segment-compatible SDK: events from Segment's own Python library (`segment-analytics-python`,
from PyPI) arrive with its write key read from Basic auth and no wire problems.

Screenshots, light and dark, go to .build/inspect/ at the repository's root.

Usage: python3 Samples/CLI/BrowserTests/inspect_browser_test.py [--skip-build] [--scratch-path DIR]
(builds Samples/CLI first, unless told its build is there: `.ci/run` built it in its package step,
in the scratch directory it names)
"""
import base64
import http.client
import http.server
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

ROOT = pathlib.Path(__file__).resolve().parents[3]
CLI = ROOT / "Samples" / "CLI"
SHOTS = ROOT / ".build" / "inspect"
SESSION = [("track", "Application Installed"), ("track", "Application Opened"), ("identify", ""), ("group", ""),
           ("screen", "Home"), ("track", "Product Viewed"), ("track", "Product Added"), ("page", "Checkout"),
           ("track", "Order Completed"), ("alias", ""), ("track", "Receipt Shared"), ("track", "Application Backgrounded")]
PLAN = {"events": {"Order Completed": {"properties": {"type": "object", "required": ["order_id", "currency"]}}}}
RULES = 'ruleset "inspect" version 1\nrule "tag tracks" {\n    only track\n    set properties.inspected = true\n}\n'


def metarouter():
    arguments = sys.argv[1:]
    scratch = ["--scratch-path", arguments[arguments.index("--scratch-path") + 1]] if "--scratch-path" in arguments else []
    if "--skip-build" not in arguments:
        subprocess.run(["swift", "build", "--package-path", str(CLI), *scratch], check=True)
    bin_path = subprocess.run(["swift", "build", "--package-path", str(CLI), *scratch, "--show-bin-path"], check=True,
                              capture_output=True, text=True).stdout.strip()
    return str(pathlib.Path(bin_path) / "metarouter")


def wait(driver, what, condition, timeout=90):
    try:
        return WebDriverWait(driver, timeout, poll_frequency=0.1).until(lambda d: condition(d))
    except Exception:
        driver.save_screenshot(str(SHOTS / "failure.png"))
        raise AssertionError(f"timed out waiting for {what} (screenshot: .build/inspect/failure.png)")


def rows(driver):
    return [(row.find_element(By.CSS_SELECTOR, ".type").text, row.find_element(By.CSS_SELECTOR, ".name").text)
            for row in driver.find_elements(By.CSS_SELECTOR, "#rows tr.row")]


def raw(url, method, path, headers=None, body=None, host=None):
    """One request with exactly these headers (Host included); the status and the body."""
    parts = urllib.parse.urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
    connection.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
    connection.putheader("Host", host or parts.netloc)
    for name, value in (headers or {}).items():
        connection.putheader(name, value)
    data = body.encode() if body is not None else b""
    connection.putheader("Content-Length", str(len(data)))
    connection.endheaders(data)
    response = connection.getresponse()
    answer = response.read().decode(errors="replace")
    connection.close()
    return response.status, answer


def check_local_only(url, token):
    port = urllib.parse.urlsplit(url).port
    own = f"http://127.0.0.1:{port}"
    for path in ("/api/snapshot", "/api/stream", "/"):
        status, answer = raw(url, "GET", path, host=f"attacker.example:{port}")
        assert status == 403 and answer.startswith("forbidden: Host"), f"foreign Host on {path}: {status} {answer!r}"
    for path in ("/api/clear", "/api/faults"):
        status, answer = raw(url, "POST", path, {"Origin": "http://attacker.example", "Content-Type": "text/plain"}, '{"fault":"500"}')
        assert status == 403 and "Origin" in answer, f"foreign Origin on {path}: {status} {answer!r}"
        status, answer = raw(url, "POST", path, {"Origin": own, "Content-Type": "text/plain"}, '{"fault":"500"}')
        assert status == 403 and "token" in answer, f"no token on {path}: {status} {answer!r}"
    status, answer = raw(url, "POST", "/v1/batch", {"Origin": "http://attacker.example", "Content-Type": "text/plain"}, '{"batch":[]}')
    assert status == 403, f"a web page's events were ingested: {status}"
    status, _ = raw(url, "GET", "/api/snapshot", host=f"localhost:{port}")
    assert status == 200, f"localhost refused: {status}"
    status, answer = raw(url, "POST", "/api/faults", {"Origin": own, "X-MetaRouter-Token": token, "Content-Type": "application/json"},
                         '{"fault":"500","count":1}')
    assert status == 200 and "500" in answer, f"the page's own request was refused: {status} {answer!r}"
    status, answer = raw(url, "POST", "/api/filter", {"Origin": own, "X-MetaRouter-Token": token}, '{"condition":"type = \\"track\\""}')
    assert status == 200 and "matches" in answer, f"the page's own filter was refused: {status} {answer!r}"
    status, snapshot = raw(url, "GET", "/api/snapshot")
    faults = json.loads(snapshot)["faults"]
    assert faults and faults[0]["fault"] == "500", faults
    # The fault queued here answers nothing: clear it by sending one batch through it.
    raw(url, "POST", "/v1/batch", {"Content-Type": "application/json"}, '{"batch":[]}')


def cross_origin_page(inspector_url):
    """A page on another origin (another port of 127.0.0.1) that tries, from the same browser,
    to clear the inspector and to queue a fault with the only requests a page may send across
    origins without a preflight."""
    page = f"""<!doctype html><title>elsewhere</title><script>
    const target = {json.dumps(inspector_url)};
    Promise.allSettled([
      fetch(target + "/api/clear", {{method: "POST", mode: "no-cors", headers: {{"Content-Type": "text/plain"}}, body: "{{}}"}}),
      fetch(target + "/api/faults", {{method: "POST", mode: "no-cors", headers: {{"Content-Type": "text/plain"}}, body: '{{"fault":"500"}}'}}),
      fetch(target + "/api/snapshot").then((r) => r.text()),
    ]).then((results) => {{ document.title = "sent:" + results.map((r) => r.status).join(","); }});
    </script>""".encode()

    class Page(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(page)))
            self.end_headers()
            self.wfile.write(page)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Page)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


PLAN_HASH = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"


def segment_python_library(url):
    """Segment's official Python library, pointed at the inspector, in sync mode."""
    import segment.analytics as segment
    segment.write_key = "segment-python-key-0001"
    segment.host = url
    segment.sync_mode = True
    # As typed events send it: the SHA-256 of the plan the app was built against.
    segment.track("python-user-1", "Python Tracked", {"plan": "pro"}, context={"trackingPlan": {"sha256": PLAN_HASH}})
    segment.identify("python-user-1", {"email": "someone@example.com"})
    segment.flush()


def main():
    binary = metarouter()
    SHOTS.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="metarouter-inspect-") as folder:
        folder = pathlib.Path(folder)
        (folder / "plan.json").write_text(json.dumps(PLAN))
        (folder / "rules.txt").write_text(RULES)
        (folder / "events.jsonl").write_text("".join(
            json.dumps({"type": "track", "event": "Retried", "anonymousId": "visitor-1", "properties": {"n": n}}) + "\n" for n in range(3)))
        # The SDK's processes keep their files under the test's own folder, not the user's.
        environment = dict(os.environ, XDG_DATA_HOME=str(folder / "data"))
        inspector = subprocess.Popen([binary, "inspect", "--port", "0", "--plan", str(folder / "plan.json"),
                                      "--rules", str(folder / "rules.txt")], stdout=subprocess.PIPE, text=True)
        driver = None
        try:
            first = inspector.stdout.readline()
            assert first.startswith("Inspecting on "), f"unexpected first line: {first!r}"
            url = first.split()[2]
            options = webdriver.ChromeOptions()
            for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1440,1000"):
                options.add_argument(argument)
            driver = webdriver.Chrome(service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"), options=options)
            driver.get(url)
            wait(driver, "the page to load its snapshot", lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready") == "true")
            wait(driver, "the live stream", lambda d: "on" in d.find_element(By.ID, "live").get_attribute("class"))

            # The session through the SDK: the rows appear live, newest first, in call order.
            subprocess.run([binary, "demo", "--to", url], check=True, timeout=180, capture_output=True, env=environment)
            wait(driver, "12 rows", lambda d: len(d.find_elements(By.CSS_SELECTOR, "#rows tr.row")) == len(SESSION))
            shown = list(reversed(rows(driver)))
            assert shown == SESSION, f"rows in the page: {shown}"

            # The plan violation: a badge on the row, the path, rule and message in the detail.
            order = driver.find_element(By.XPATH, "//tr[contains(@class,'row')][td[@class='name' and text()='Order Completed']]")
            assert order.find_elements(By.CSS_SELECTOR, ".badge.violation"), "no violation badge on Order Completed"
            assert len(driver.find_elements(By.CSS_SELECTOR, ".badge.violation")) == 1, "a violation badge on another row"
            order.click()
            detail = wait(driver, "the detail", lambda d: d.find_element(By.ID, "detail-json"))
            event = json.loads(detail.get_attribute("data-json"))
            assert event["event"] == "Order Completed" and event["properties"]["order_id"] == "A-1001", event
            assert "order_id" in detail.text, "the JSON tree does not show the properties"
            problem = driver.find_element(By.CSS_SELECTOR, "#problems .violation").text
            assert "properties.currency" in problem and "required" in problem, problem
            assert "rules: changed" in order.text and "properties.inspected" in driver.find_element(By.ID, "detail").text
            assert "*" in driver.find_element(By.ID, "detail").text, "the write key is not shown masked"
            driver.save_screenshot(str(SHOTS / "inspect-light.png"))

            # A condition in the rule language filters the list.
            driver.find_element(By.ID, "condition").send_keys('event = "Order Completed"')
            driver.find_element(By.ID, "apply-condition").click()
            wait(driver, "the condition to filter", lambda d: len(d.find_elements(By.CSS_SELECTOR, "#rows tr.row:not(.hidden)")) == 1)
            driver.find_element(By.ID, "condition").clear()
            driver.find_element(By.ID, "apply-condition").click()
            wait(driver, "the filter to clear", lambda d: len(d.find_elements(By.CSS_SELECTOR, "#rows tr.row:not(.hidden)")) == len(SESSION))

            # A fault button: the next batch is answered 500, and the SDK's retry is seen.
            driver.find_element(By.CSS_SELECTOR, "button[data-fault='500']").click()
            wait(driver, "the fault to be queued", lambda d: "500" in d.find_element(By.ID, "faults-queued").text)
            subprocess.run([binary, "send", str(folder / "events.jsonl"), "--host", url, "--write-key", "inspect-key-0001"],
                           check=True, timeout=180, capture_output=True, env=environment)

            def retried(d):
                batches = [(b.get_attribute("data-status"), b.get_attribute("data-key"), b.get_attribute("data-attempt"))
                           for b in d.find_elements(By.CSS_SELECTOR, "#batches tr.batch")]
                failed = [key for status, key, _ in batches if status == "500"]
                return failed and any(status == "200" and key == failed[0] and attempt == "2" for status, key, attempt in batches)
            wait(driver, "the 500 and the SDK's retry of the same batch", retried)
            wait(driver, "the retried events", lambda d: len(d.find_elements(By.CSS_SELECTOR, "#rows tr.row")) == len(SESSION) + 3)
            assert [name for _, name in rows(driver)[:3]] == ["Retried"] * 3
            driver.find_element(By.ID, "theme").click()
            driver.save_screenshot(str(SHOTS / "inspect-dark.png"))

            # Local only: raw requests, then a page on another origin in the same browser.
            token = driver.find_element(By.CSS_SELECTOR, 'meta[name="metarouter-token"]').get_attribute("content")
            assert len(token) == 32, token
            check_local_only(url, token)
            before = len(json.loads(raw(url, "GET", "/api/snapshot")[1])["events"])
            assert before == len(SESSION) + 3, before
            elsewhere = cross_origin_page(url)
            try:
                inspector_tab = driver.current_window_handle
                driver.switch_to.new_window("tab")
                driver.get(f"http://127.0.0.1:{elsewhere.server_address[1]}/")
                wait(driver, "the other origin's requests", lambda d: d.title.startswith("sent:"))
                driver.close()
                driver.switch_to.window(inspector_tab)
            finally:
                elsewhere.shutdown()
            snapshot = json.loads(raw(url, "GET", "/api/snapshot")[1])
            assert len(snapshot["events"]) == before and not snapshot["faults"], "a page on another origin changed the inspector"
            assert len(driver.find_elements(By.CSS_SELECTOR, "#rows tr.row")) == before, "the page lost its rows"

            # Segment's Python library: its events, its write key from Basic auth, no wire problems.
            segment_python_library(url)
            wait(driver, "the Python library's events", lambda d: len(d.find_elements(By.CSS_SELECTOR, "#rows tr.row")) == before + 2)
            snapshot = json.loads(raw(url, "GET", "/api/snapshot")[1])
            python = [record for record in snapshot["events"] if record["event"].get("userId") == "python-user-1"]
            assert [record["event"]["type"] for record in python] == ["track", "identify"], python
            problems = [record["analysis"]["wireProblems"] for record in python]
            assert problems == [[], []], f"the Segment Spec does not require: {problems}"
            batch = snapshot["batches"][-1]
            assert batch["writeKey"].endswith("0001") and batch["writeKey"].startswith("*") and batch["problems"] == [], batch
            newest = driver.find_element(By.CSS_SELECTOR, "#rows tr.row")
            assert not newest.find_elements(By.CSS_SELECTOR, ".badge.wire"), "a wire badge on the Python library's event"
            # The plan version a typed call carries shows on its row.
            planned = [row for row in driver.find_elements(By.CSS_SELECTOR, "#rows tr.row") if "Python Tracked" in row.text]
            assert planned and planned[0].find_element(By.CSS_SELECTOR, ".badge.plan-version").text == "plan " + PLAN_HASH[:8], "no plan version badge"
            print("inspect: rows live and in order, JSON detail, plan violation, rule diff, condition filter, 500 then the SDK's retry; "
                  "foreign Host, Origin and token refused (raw and from another origin's page); Segment's Python library's "
                  "events without wire problems; the plan version badge; screenshots in .build/inspect/")
        finally:
            if driver:
                driver.quit()
            inspector.terminate()
            inspector.wait(timeout=10)


if __name__ == "__main__":
    try:
        main()
    except AssertionError as error:
        print(f"inspect: FAILED: {error}", file=sys.stderr)
        sys.exit(1)
