"""A headless Chromium driven by Selenium for tests of pages the arena writes: the Debian browser and driver,
never a downloaded one. Where they are missing the tests skip, unless ARENA_REQUIRE_BROWSER=1 (CI) fails them."""

from __future__ import annotations

import base64
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any, Iterator

import pytest

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync")
DESKTOP = (1280, 900)
PHONE = (390, 844)
SCRIPT_TIMEOUT = 300  # seconds a test's script may run: stepping through a whole game on a busy machine
ARTIFACTS = Path(__file__).resolve().parent / "artifacts"


def missing_browser() -> str | None:
    """Why the browser tests cannot run here, or None if they can."""
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install -e '.[test]')"
    for path, package in ((CHROMIUM, "chromium"), (CHROMEDRIVER, "chromium-driver")):
        if not os.access(path, os.X_OK):
            return f"{path} not found (apt-get install -y {package})"
    return None


def require_browser() -> None:
    """Skip the calling test, with the reason, where there is no browser; fail instead under ARENA_REQUIRE_BROWSER=1."""
    reason = missing_browser()
    if reason is None:
        return
    if os.environ.get("ARENA_REQUIRE_BROWSER") == "1":
        pytest.fail(f"browser tests are required here but cannot run: {reason}")
    pytest.skip(reason)


def start_chromium() -> Iterator[Any]:
    """A fresh headless Chromium with its own profile, its console log readable; quit and removed afterwards."""
    require_browser()
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="arena-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in (*FLAGS, f"--user-data-dir={profile}", f"--window-size={DESKTOP[0]},{DESKTOP[1]}"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(executable_path=str(CHROMEDRIVER)), options=options)
    driver.set_script_timeout(SCRIPT_TIMEOUT)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def set_viewport(driver: Any, size: tuple[int, int]) -> None:
    """Make the page's viewport exactly size (width, height); a phone width also emulates a mobile screen."""
    width, height = size
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": width, "height": height, "deviceScaleFactor": 2 if width < 600 else 1,
                            "mobile": width < 600})


def console_errors(driver: Any) -> list[str]:
    """The console's error entries since the last call (JavaScript exceptions, failed requests)."""
    return [entry["message"] for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]


def screenshot(driver: Any, name: str) -> Path:
    """Save a screenshot of the whole page (up to 6,000 px tall) under tests/artifacts/ and return its path."""
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    width, height = driver.execute_script(
        # The window's width, scrollbar included: captured beyond the viewport the page has no scrollbar, and
        # lays out that much wider than its client width.
        "return [window.innerWidth, document.documentElement.scrollHeight]")
    shot = driver.execute_cdp_cmd("Page.captureScreenshot", {
        "captureBeyondViewport": True,
        "clip": {"x": 0, "y": 0, "width": width, "height": min(height, 6000), "scale": 1}})
    path.write_bytes(base64.b64decode(shot["data"]))
    return path
