#!/usr/bin/env python3
"""`metarouter inspect` as a person uses it, in headless Chromium (Selenium, chromedriver).

Starts the inspector with a tracking plan and a rule set, opens its page, sends the demo session
through the SDK (`metarouter demo --to`), and checks what the page shows: the rows arrive live,
newest first, in the session's order; the detail shows the event's JSON and its batch; the
Order Completed event carries the plan violation's badge and message; the rule set's change is
shown; a condition in the rule language filters the list. Then a fault button answers the next
batch with 500, `metarouter send` delivers through the SDK, and the batch list shows the 500 and
the SDK's retry of the same batch (same Idempotency-Key) answered 200. Screenshots, light and
dark, go to .build/inspect/ at the repository's root.

Usage: python3 Samples/CLI/BrowserTests/inspect_browser_test.py   (builds Samples/CLI first)
"""
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time

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
    # With the tests, as `swift test` builds them: in CI, after it, nothing is built again.
    subprocess.run(["swift", "build", "--package-path", str(CLI), "--build-tests"], check=True)
    bin_path = subprocess.run(["swift", "build", "--package-path", str(CLI), "--show-bin-path"], check=True,
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
            print("inspect: rows live and in order, JSON detail, plan violation, rule diff, condition filter, 500 then the SDK's retry; "
                  "screenshots in .build/inspect/")
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
