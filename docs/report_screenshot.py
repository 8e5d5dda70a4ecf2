"""Regenerate docs/report-demo.html and its screenshot: `python docs/report_screenshot.py` (needs chromium)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from selenium import webdriver
from selenium.webdriver.chrome.service import Service

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def main() -> None:
    docs = Path(__file__).resolve().parent
    html = docs / "report-demo.html"
    subprocess.run([sys.executable, "-m", "drasim.cli.main", "simulate", "--report", str(html)],
                   check=True, stdout=subprocess.DEVNULL)
    profile = tempfile.mkdtemp(prefix="drasim-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for flag in [*FLAGS, f"--user-data-dir={profile}", "--window-size=1300,1000"]:
        options.add_argument(flag)
    driver = webdriver.Chrome(options=options, service=Service(shutil.which("chromedriver") or "chromedriver"))
    try:
        driver.get(html.as_uri())
        height = driver.execute_script("return document.documentElement.scrollHeight")
        driver.set_window_size(1300, min(int(height) + 120, 4000))
        driver.save_screenshot(str(docs / "report-demo.png"))
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


if __name__ == "__main__":
    main()
