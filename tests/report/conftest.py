"""A headless Chromium for the report tests; they skip when the browser or its driver cannot start."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from typing import Any

import pytest

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--window-size=1300,1700"]


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        pytest.skip("selenium is not installed")
    binary = shutil.which("chromium") or shutil.which("chromium-browser")
    driver_path = shutil.which("chromedriver")
    if not binary or not driver_path:
        pytest.skip("chromium or chromedriver is not installed")
    profile = tempfile.mkdtemp(prefix="drasim-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for flag in [*FLAGS, f"--user-data-dir={profile}"]:
        options.add_argument(flag)
    try:
        driver = webdriver.Chrome(options=options, service=Service(driver_path))
    except Exception as err:  # any start-up failure (no display libraries, sandbox, ...) is a skip
        shutil.rmtree(profile, ignore_errors=True)
        pytest.skip(f"chromium did not start: {err}")
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)
