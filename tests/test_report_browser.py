"""The HTML report in headless Chromium at a 1280 px viewport: no horizontal page overflow, a working
table of contents, wide tables scrolling inside their own box.  A screenshot of the whole page goes to
the test's temporary folder (or ``$HUESENV_SCREENSHOTS``).

Needs Debian's ``chromium`` and ``chromium-driver``; skipped with the reason when they are missing,
a failure under ``CI=true``.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

import pytest
import yaml

from huesenv.cli import main
from huesenv.experiments import load_config, run_experiment

pytestmark = [pytest.mark.integration, pytest.mark.browser]

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
WIDTH = 1280
BROWSER_ARGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-dev-shm-usage",
    f"--window-size={WIDTH},900",
)

CONFIG = {
    "name": "browser",
    "seed": 1,
    "num_players": 4,
    "games": 3,
    "agents": {"random": {"spec": "random"}, "human": {"spec": "human-replay"}},
    "lineups": [["random", "human", "human", "human"], ["random", "random", "human", "human"]],
    "wordlevel": {"enabled": True, "agents": ["random", "human"], "top_k": 5},
    "report": {"formats": ["markdown", "html"], "board_images": 1},
}


def _need_browser() -> None:
    missing = [p for p in (CHROMIUM, CHROMEDRIVER) if not (os.path.isfile(p) and os.access(p, os.X_OK))]
    reason = None
    if missing:
        reason = f"headless Chromium not installed ({', '.join(missing)} missing; apt-get install chromium chromium-driver)"
    else:
        try:
            import selenium  # noqa: F401
        except ImportError:
            reason = "selenium is not installed (pip install huesenv[test])"
    if reason:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"CI=true but the browser test cannot run: {reason}")
        pytest.skip(reason)


@contextlib.contextmanager
def chromium(profile: Path):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in BROWSER_ARGS:
        options.add_argument(arg)
    options.add_argument(f"--user-data-dir={profile}")
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(60)
    # the viewport itself, not the window (whose chrome takes some pixels), is 1280 px wide
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": WIDTH, "height": 900, "deviceScaleFactor": 1, "mobile": False},
    )
    try:
        yield driver
    finally:
        driver.quit()


def measure(driver, page: Path, shot: Path | None = None) -> dict:
    driver.get(page.resolve().as_uri())
    dims = driver.execute_script(
        "const d = document.documentElement;"
        "return {scroll: d.scrollWidth, client: d.clientWidth, height: d.scrollHeight,"
        " anchors: [...document.querySelectorAll('nav.toc a')].map(a => a.getAttribute('href')),"
        " ids: [...document.querySelectorAll('[id]')].map(e => e.id),"
        " wide: [...document.querySelectorAll('.table-wrap')].filter(w => w.scrollWidth > w.clientWidth).length,"
        " overflowing: [...document.body.querySelectorAll('*')]"
        "   .filter(e => e.getBoundingClientRect().right > d.clientWidth + 1"
        "     && !e.closest('.table-wrap')).map(e => e.tagName + '.' + e.className).slice(0, 5)};"
    )
    if shot is not None:
        driver.execute_cdp_cmd(
            "Emulation.setDeviceMetricsOverride",
            {
                "width": WIDTH,
                "height": min(int(dims["height"]), 8000),
                "deviceScaleFactor": 1,
                "mobile": False,
            },
        )
        driver.save_screenshot(str(shot))
        driver.execute_cdp_cmd(
            "Emulation.setDeviceMetricsOverride",
            {"width": WIDTH, "height": 900, "deviceScaleFactor": 1, "mobile": False},
        )
    return dims


def test_report_and_merged_leaderboard_fit_1280px(tmp_path):
    _need_browser()
    path = tmp_path / "browser.yaml"
    path.write_text(yaml.safe_dump({**CONFIG, "output": str(tmp_path / "runs")}), encoding="utf-8")
    result = run_experiment(load_config(path), progress=False)
    assert main(["leaderboard", str(result.run_dir), "-o", str(tmp_path / "merged")]) == 0
    shots = Path(os.environ.get("HUESENV_SCREENSHOTS") or tmp_path / "screenshots")
    shots.mkdir(parents=True, exist_ok=True)
    with chromium(tmp_path / "profile") as driver:
        report = measure(driver, result.reports["html"], shots / "report_1280.png")
        merged = measure(driver, tmp_path / "merged" / "leaderboard.html", shots / "leaderboard_1280.png")
        driver.get(Path(result.reports["html"]).resolve().as_uri())
        verdict_bottom = driver.execute_script(
            "return document.querySelector('.verdict').getBoundingClientRect().bottom"
        )
        driver.execute_cdp_cmd(  # a phone: every figure scales to the screen, nothing cut off
            "Emulation.setDeviceMetricsOverride",
            {"width": 390, "height": 844, "deviceScaleFactor": 2, "mobile": True},
        )
        driver.get(Path(result.reports["html"]).resolve().as_uri())
        phone = driver.execute_script(
            "return {page: document.documentElement.scrollWidth, figures: Array.prototype.map.call("
            "document.querySelectorAll('section img'), function (i) { return i.getBoundingClientRect().right; })};"
        )
        driver.save_screenshot(str(shots / "report_390.png"))
    assert verdict_bottom <= 900  # the verdict is on the first screen
    assert phone["page"] <= 390 and phone["figures"] and max(phone["figures"]) <= 390, phone
    for name, dims in (("report", report), ("leaderboard", merged)):
        assert dims["client"] <= WIDTH
        assert dims["scroll"] <= dims["client"], (name, dims["scroll"], dims["client"], dims["overflowing"])
        assert not dims["overflowing"], (name, dims["overflowing"])
        assert dims["anchors"], f"{name}: no table of contents"
        missing = [a for a in dims["anchors"] if a.lstrip("#") not in dims["ids"]]
        assert not missing, f"{name}: contents links to missing sections {missing}"
    assert report["wide"] >= 1  # the per-word tables are wider than the page: they scroll in their box
    assert (shots / "report_1280.png").stat().st_size > 10_000
