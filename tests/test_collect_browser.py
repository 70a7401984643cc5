"""End to end in headless Chromium: onboarding, three words (click and typed), export, human-baseline loader.

Needs Debian's ``chromium`` and ``chromium-driver`` (``.ci/run`` installs them).
Without them the test is skipped with the reason, except in CI (``CI=true``),
where a missing browser is a failure.  Screenshots of every page go to the
test's temporary folder, or to ``$HUESENV_SCREENSHOTS`` when set.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("flask")

pytestmark = pytest.mark.integration  # a headless browser against a real server

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
BROWSER_ARGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-dev-shm-usage",
    "--window-size=1400,1100",
)


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
def serving(config):
    """The app on a real server thread on loopback (port chosen by the OS)."""
    from werkzeug.serving import make_server

    from huesenv.collect.app import create_app

    srv = make_server("127.0.0.1", 0, create_app(config), threaded=True)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{srv.server_port}"
    finally:
        srv.shutdown()
        thread.join(10)


@contextlib.contextmanager
def chromium(tmp_path):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in BROWSER_ARGS:
        options.add_argument(arg)
    options.add_argument(f"--user-data-dir={tmp_path / 'chromium-profile'}")
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(60)
    try:
        yield driver
    finally:
        driver.quit()


def screenshot_dir(tmp_path) -> Path:
    shots = Path(os.environ.get("HUESENV_SCREENSHOTS") or tmp_path / "screenshots")
    shots.mkdir(parents=True, exist_ok=True)
    return shots


def onboard(driver, wait, shot=None) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import Select

    wait.until(ec.presence_of_element_located((By.ID, "onboarding")))
    if shot:
        shot("01_onboarding")
    driver.find_element(By.CSS_SELECTOR, 'input[name="language"][value="spanish"]').click()
    Select(driver.find_element(By.NAME, "gender")).select_by_value("female")
    Select(driver.find_element(By.NAME, "age_range")).select_by_value("20-29")
    driver.find_element(By.CSS_SELECTOR, 'input[name="color_blind"][value="no"]').click()
    for box in ("consent", "adult", "display"):
        driver.find_element(By.CSS_SELECTOR, f'input[name="{box}"]').click()
    driver.find_element(By.ID, "continue").click()
    wait.until(ec.presence_of_element_located((By.ID, "begin")))
    if shot:
        shot("02_instructions")
    click_and_wait(driver, wait, driver.find_element(By.ID, "begin"))


def click_and_wait(driver, wait, element) -> None:
    """Click a submit button and wait until its page has been replaced (no racing the old page).

    While the old page is being torn down, Chromium may answer a query on the element with "Node with
    given id does not belong to the document" (a plain WebDriverException, not a stale-element error):
    that too means the page was replaced."""
    from selenium.common.exceptions import StaleElementReferenceException, WebDriverException

    element.click()

    def replaced(_driver) -> bool:
        try:
            element.is_enabled()
        except StaleElementReferenceException:
            return True
        except WebDriverException as err:
            if "does not belong to the document" in str(err):
                return True
            raise
        return False

    wait.until(replaced)


@pytest.mark.browser
@pytest.mark.integration
@pytest.mark.timeout(300)
def test_browser_word_task_end_to_end(tmp_path):
    _need_browser()
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import WebDriverWait

    from huesenv.collect.app import CollectConfig
    from huesenv.collect.export import export
    from huesenv.collect.testing import HttpParticipant
    from huesenv.humans import load_humans
    from huesenv.vocabulary import words

    db = tmp_path / "collect.sqlite3"
    shots = screenshot_dir(tmp_path)
    # Three of the paper's words, so that earlier scripted participants give the feedback page something to show.
    config = CollectConfig(db_path=db, vocabulary=words()[:3], words_per_participant=3)
    earlier = ["F14", "F14", "G15", "E13"]
    with serving(config) as base, chromium(tmp_path) as driver:
        for coord in earlier:  # earlier participants, over HTTP
            p = HttpParticipant(base)
            p.answer_words(p.onboard(), lambda w, c=coord: c)
        wait = WebDriverWait(driver, 30)

        def shot(name: str) -> None:
            driver.save_screenshot(str(shots / f"words_{name}.png"))

        driver.get(base + "/")
        onboard(driver, wait, shot)
        answers = {}
        for k, coord in enumerate(["F14", "B3", "M27"]):
            cue = wait.until(ec.presence_of_element_located((By.ID, "cue")))
            assert f"Word {k + 1} of 3" in driver.find_element(By.ID, "progress").text
            word = cue.text
            field = driver.find_element(By.ID, "coordinate")
            if k < 2:  # click a cell of the board
                driver.find_element(By.CSS_SELECTOR, f'button.cell[data-coord="{coord}"]').click()
                assert field.get_attribute("value") == coord
                assert "selected" in driver.find_element(
                    By.CSS_SELECTOR, f'button.cell[data-coord="{coord}"]'
                ).get_attribute("class")
            else:  # type the coordinate
                field.send_keys(coord.lower())
            shot(f"03_word_{k + 1}")
            click_and_wait(driver, wait, driver.find_element(By.ID, "submit"))
            own = wait.until(ec.presence_of_element_located((By.ID, "own")))
            assert own.text == coord
            assert "4 earlier participants" in driver.find_element(By.ID, "feedback-summary").text
            assert len(driver.find_elements(By.CSS_SELECTOR, ".cell .marker")) == len(set(earlier))
            shot(f"04_feedback_{k + 1}")
            answers[word] = coord
            click_and_wait(driver, wait, driver.find_element(By.ID, "next"))
        wait.until(ec.presence_of_element_located((By.ID, "thanks")))
        shot("05_done")
        # the back button cannot change an answer: resubmitting the old form is refused
        driver.back()
        driver.back()
        if driver.find_elements(By.ID, "coordinate"):
            driver.find_element(By.ID, "coordinate").clear()
            driver.find_element(By.ID, "coordinate").send_keys("A1")
            driver.find_element(By.ID, "submit").click()
            wait.until(ec.presence_of_element_located((By.ID, "continue-link")))
            assert "answers cannot be changed" in driver.page_source
            shot("06_resubmit")

    out = tmp_path / "answers.csv"
    export(db, out)
    humans = load_humans(out, language="spanish")
    assert humans.n_participants == 1
    assert {row.word: row.coord for row in humans.frame.itertuples()} == answers


@pytest.mark.browser
@pytest.mark.integration
@pytest.mark.timeout(300)
def test_browser_gca_and_tessellation_pages(tmp_path):
    _need_browser()
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import WebDriverWait

    import huesenv.probes.gca.stimuli  # noqa: F401  (a broken import must fail, not skip)
    from huesenv.board import load_board
    from huesenv.collect.app import CollectConfig
    from huesenv.collect.export import gca_frame, tessellation_frame
    from huesenv.collect.testing import HttpParticipant

    shots = screenshot_dir(tmp_path)
    gca_db, tess_db = tmp_path / "gca.sqlite3", tmp_path / "tess.sqlite3"
    with chromium(tmp_path) as driver:
        wait = WebDriverWait(driver, 30)
        config = CollectConfig(
            db_path=gca_db, task="gca", gca_trials=2, gca_attention_positions=(3,), gca_introspection="first"
        )
        with serving(config) as base:
            driver.get(base + "/")
            onboard(driver, wait)
            slider = wait.until(ec.presence_of_element_located((By.ID, "threshold")))
            driver.execute_script(
                "arguments[0].value = 40; arguments[0].dispatchEvent(new Event('input'));", slider
            )
            assert driver.find_element(By.ID, "threshold-out").text == "40"
            driver.save_screenshot(str(shots / "gca_01_introspection.png"))
            click_and_wait(driver, wait, driver.find_element(By.ID, "submit"))
            for k in range(3):
                wait.until(ec.presence_of_element_located((By.CSS_SELECTOR, "img.stimulus")))
                loaded = driver.execute_script(
                    "var i = document.querySelector('img.stimulus'); return i.complete && i.naturalWidth;"
                )
                assert loaded == 512
                question = driver.find_element(By.CSS_SELECTOR, ".question").text
                target = "white"
                if question.startswith("Attention check"):
                    target = question.split("\u201c")[1].rstrip("\u201d.")
                driver.find_element(By.CSS_SELECTOR, f'input[name="choice"][value="{target}"]').click()
                # the 1-10 scale's radios are hidden inside their buttons (one row at any width): click the button
                driver.find_element(By.XPATH, '//input[@name="confidence"][@value="8"]/..').click()
                driver.save_screenshot(str(shots / f"gca_02_item_{k + 1}.png"))
                click_and_wait(driver, wait, driver.find_element(By.ID, "submit"))
            wait.until(ec.presence_of_element_located((By.ID, "thanks")))
        frame = gca_frame(gca_db)
        assert list(frame["kind"]) == ["introspection", "trial", "attention", "trial"]
        assert frame["threshold"].iloc[0] == 40 and frame["attentionPassed"].iloc[2]
        assert list(frame.loc[frame.kind == "trial", "choice"]) == ["white", "white"]

        with serving(CollectConfig(db_path=tess_db, task="tessellation")) as base:
            package = list(load_board().categories)
            for _ in range(2):  # two earlier participants paint the package's own category map
                p = HttpParticipant(base)
                page = p.onboard()
                assert (
                    p.post("/tessellation", {"csrf_token": page.token, "categories": ",".join(package)}).path
                    == "/done"
                )
            driver.get(base + "/")
            onboard(driver, wait)
            wait.until(ec.presence_of_element_located((By.ID, "palette")))
            driver.find_element(By.CSS_SELECTOR, '.paint[data-category="Green"]').click()
            # drag over the whole board: mousedown on the first cell, mouseover on every other
            driver.execute_script(
                "var cells = document.querySelectorAll('#board button.cell');"
                "cells[0].dispatchEvent(new MouseEvent('mousedown', {bubbles: true}));"
                "for (var i = 1; i < cells.length; i++) {"
                "  cells[i].dispatchEvent(new MouseEvent('mouseover', {bubbles: true})); }"
                "document.dispatchEvent(new MouseEvent('mouseup', {bubbles: true}));"
            )
            driver.find_element(By.CSS_SELECTOR, '.paint[data-category="Red"]').click()
            for coord in ("A1", "A2", "B1"):
                driver.find_element(By.CSS_SELECTOR, f'button.cell[data-coord="{coord}"]').click()
            assert driver.find_element(By.ID, "remaining").text == "all cells painted"
            driver.save_screenshot(str(shots / "tess_01_painted.png"))
            driver.find_element(By.ID, "regions-only").click()
            driver.save_screenshot(str(shots / "tess_02_regions_only.png"))
            click_and_wait(driver, wait, driver.find_element(By.ID, "submit"))
            wait.until(ec.presence_of_element_located((By.ID, "thanks")))
            driver.get(base + "/tessellation/consensus")
            # page_source can read '' while the page still loads on a busy machine: wait for the text
            wait.until(lambda d: "Consensus of 3 participants" in d.page_source)
            driver.save_screenshot(str(shots / "tess_03_consensus.png"))
        raw = tessellation_frame(tess_db, raw=True)
        mine = raw[raw["userId"] == raw["userId"].iloc[-1]].set_index("coord")["category"]
        assert mine.loc[["A1", "A2", "B1"]].tolist() == ["Red"] * 3 and (mine == "Green").sum() == 477
        table = tessellation_frame(tess_db)
        assert table["category"].tolist() == package  # 2 of 3 votes everywhere
        green = table["category"] == "Green"
        assert (table.loc[green, "agreement"] == 1.0).all()
        assert np.allclose(table.loc[~green, "agreement"], 2 / 3)


def _fits(driver) -> dict:
    """Where the board's last cell lies relative to the viewport."""
    return driver.execute_script(
        "var cells = document.querySelectorAll('#board .cell, .board .cell');"
        "var last = cells[cells.length - 1].getBoundingClientRect();"
        "var first = cells[0].getBoundingClientRect();"
        "return {right: last.right, bottom: last.bottom + window.scrollY, left: first.left,"
        " width: window.innerWidth, height: window.innerHeight, cell: last.width,"
        " rotate: getComputedStyle(document.querySelector('.rotate')).display};"
    )


def _viewport(driver, width: int, height: int) -> None:
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": height, "deviceScaleFactor": 2, "mobile": True},
    )


@pytest.mark.browser
@pytest.mark.integration
@pytest.mark.timeout(300)
def test_browser_phone_spanish_painter_and_introspection(tmp_path):
    """Phone landscape fits the whole board (portrait asks to rotate); the Spanish interface; the painter's
    fill, eraser, undo and gap-free drags; the GCA introspection slider without a preset."""
    _need_browser()
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import WebDriverWait

    from huesenv.collect.app import CollectConfig
    from huesenv.collect.export import gca_frame, tessellation_frame

    shots = screenshot_dir(tmp_path)
    with chromium(tmp_path) as driver:
        wait = WebDriverWait(driver, 30)
        # -- words on a phone held sideways (844 x 390 CSS pixels), interface in Spanish
        with serving(CollectConfig(db_path=tmp_path / "w.sqlite3", words_per_participant=2)) as base:
            _viewport(driver, 844, 390)
            driver.get(base + "/start?lang=es")
            assert "Le damos la bienvenida" in driver.page_source
            driver.save_screenshot(str(shots / "phone_01_onboarding_es.png"))
            onboard(driver, wait)
            wait.until(ec.presence_of_element_located((By.ID, "cue")))
            assert "Palabra 1 de 2" in driver.find_element(By.ID, "progress").text
            box = _fits(driver)
            assert box["right"] <= box["width"] and box["bottom"] <= box["height"] + 1, box
            assert box["cell"] >= 20 and box["rotate"] == "none", box
            assert box["right"] - box["left"] >= 0.9 * box["width"], box  # the full width, not a square board
            driver.save_screenshot(str(shots / "phone_02_word_landscape.png"))
            _viewport(driver, 390, 844)
            driver.refresh()
            wait.until(ec.presence_of_element_located((By.ID, "cue")))
            assert _fits(driver)["rotate"] == "block"
            driver.save_screenshot(str(shots / "phone_03_word_portrait.png"))
            driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})

        # -- the painter: a fast drag (two samples) paints the whole row between them; fill; eraser; undo
        with serving(CollectConfig(db_path=tmp_path / "t.sqlite3", task="tessellation")) as base:
            driver.get(base + "/start?lang=en")
            onboard(driver, wait)
            wait.until(ec.presence_of_element_located((By.ID, "palette")))
            _viewport(driver, 844, 390)  # the painter on a phone held sideways
            box = _fits(driver)
            assert (
                box["right"] <= box["width"] and box["bottom"] <= box["height"] + 1 and box["cell"] >= 10
            ), box
            driver.save_screenshot(str(shots / "phone_04_tessellation_landscape.png"))
            driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
            painted = "return Array.prototype.map.call(document.querySelectorAll('#board button.cell'), function (c) { return c.classList.contains('painted'); });"
            driver.find_element(By.CSS_SELECTOR, '.paint[data-category="Blue"]').click()
            driver.execute_script(
                "var a = document.querySelector('[data-coord=A1]'), b = document.querySelector('[data-coord=A30]');"
                "a.dispatchEvent(new MouseEvent('mousedown', {bubbles: true}));"
                "b.dispatchEvent(new MouseEvent('mouseover', {bubbles: true}));"
                "document.dispatchEvent(new MouseEvent('mouseup', {bubbles: true}));"
            )
            row = driver.execute_script(painted)
            assert all(row[:30]) and not any(row[30:]), "a fast drag skipped cells"
            driver.execute_script(  # a diagonal drag: one cell per row, no gaps
                "var a = document.querySelector('[data-coord=B1]'), b = document.querySelector('[data-coord=O14]');"
                "a.dispatchEvent(new MouseEvent('mousedown', {bubbles: true}));"
                "b.dispatchEvent(new MouseEvent('mouseover', {bubbles: true}));"
                "document.dispatchEvent(new MouseEvent('mouseup', {bubbles: true}));"
            )
            cells = driver.execute_script(painted)
            assert all(cells[r * 30 + (r - 1)] for r in range(1, 15)) and sum(cells) == 44
            driver.find_element(By.ID, "undo").click()
            assert sum(driver.execute_script(painted)) == 30
            driver.execute_script(  # a finger: pointer events with coordinates, two samples far apart
                "function at(c) { var r = document.querySelector('[data-coord=' + c + ']').getBoundingClientRect();"
                "  return {clientX: r.left + r.width / 2, clientY: r.top + r.height / 2, pointerType: 'touch',"
                "          bubbles: true, pointerId: 7}; }"
                "var board = document.getElementById('board');"
                "board.dispatchEvent(new PointerEvent('pointerdown', at('C1')));"
                "board.dispatchEvent(new PointerEvent('pointermove', at('C30')));"
                "document.dispatchEvent(new PointerEvent('pointerup', at('C30')));"
            )
            cells = driver.execute_script(painted)
            assert all(cells[60:90]) and sum(cells) == 60, "a touch drag skipped cells"
            driver.find_element(By.ID, "undo").click()
            time.sleep(1)  # the painter ignores the compatibility mouse events that follow a touch
            assert sum(driver.execute_script(painted)) == 30
            driver.find_element(By.CSS_SELECTOR, '.paint[data-category="Green"]').click()
            driver.find_element(By.ID, "tool-fill").click()
            driver.find_element(By.CSS_SELECTOR, 'button.cell[data-coord="H15"]').click()
            assert sum(driver.execute_script(painted)) == 480
            assert driver.find_element(By.ID, "remaining").text == "all cells painted"
            driver.find_element(By.ID, "tool-brush").click()
            driver.find_element(By.ID, "eraser").click()
            driver.find_element(By.CSS_SELECTOR, 'button.cell[data-coord="P30"]').click()
            assert sum(driver.execute_script(painted)) == 479
            driver.save_screenshot(str(shots / "tess_04_tools.png"))
            driver.find_element(By.ID, "undo").click()
            driver.find_element(By.ID, "regions-only").click()
            driver.save_screenshot(str(shots / "tess_05_filled.png"))
            click_and_wait(driver, wait, driver.find_element(By.ID, "submit"))
            wait.until(ec.presence_of_element_located((By.ID, "thanks")))
        raw = tessellation_frame(tmp_path / "t.sqlite3", raw=True).set_index("coord")["category"]
        assert (raw[[f"A{c}" for c in range(1, 31)]] == "Blue").all() and (
            raw.drop([f"A{c}" for c in range(1, 31)]) == "Green"
        ).all()

        # -- GCA introspection: no preset value, the slider shows nothing until moved
        config = CollectConfig(
            db_path=tmp_path / "g.sqlite3",
            task="gca",
            gca_trials=1,
            gca_attention_positions=(),
            gca_introspection="first",
        )
        with serving(config) as base:
            driver.get(base + "/start?lang=es")
            onboard(driver, wait)
            slider = wait.until(ec.presence_of_element_located((By.ID, "threshold")))
            assert driver.find_element(By.ID, "threshold-value").get_attribute("value") == ""
            assert "unset" in slider.get_attribute("class")
            driver.save_screenshot(str(shots / "gca_03_introspection_es_unset.png"))
            driver.find_element(By.ID, "submit").click()  # refused by the browser: nothing chosen yet
            assert driver.find_elements(By.ID, "threshold")
            driver.find_element(By.ID, "threshold-value").send_keys("65")
            assert driver.find_element(By.ID, "threshold-out").text == "65"
            assert "unset" not in slider.get_attribute("class")
            click_and_wait(driver, wait, driver.find_element(By.ID, "submit"))
            wait.until(ec.presence_of_element_located((By.CSS_SELECTOR, "img.stimulus")))
            driver.save_screenshot(str(shots / "gca_04_trial_es.png"))
        assert gca_frame(tmp_path / "g.sqlite3", include_unfinished=True)["threshold"].iloc[0] == 65


def test_missing_browser_is_a_skip_locally_and_a_failure_in_ci(monkeypatch):
    import sys

    module = sys.modules[__name__]
    monkeypatch.setattr(module, "CHROMIUM", "/nonexistent/chromium")
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="CI=true"):
        _need_browser()
    monkeypatch.setenv("CI", "false")
    with pytest.raises(pytest.skip.Exception, match="headless Chromium not installed"):
        _need_browser()
