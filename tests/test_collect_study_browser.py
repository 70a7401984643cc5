"""A complete small study in headless Chromium, and the display checks people meet in it.

* :func:`test_browser_complete_small_study`: scripted participants in a real
  browser through all three tasks on real servers (words, GCA with the probes'
  own stimuli, the painter), one of them losing their session on the way; then
  the experimenter's side: the exports, the humans loader, the GCA metrics by
  ``huesenv probe gca --replies`` and the consensus compared with the
  macro-colour map.
* :func:`test_browser_two_links_in_one_browser_are_two_participants`: a
  shared computer; each answer stays under its own platform id, the age
  exported as the option shown.
* :func:`test_browser_forced_colours_phone_upright_and_lost_session`: the
  board keeps its colours in forced-colours mode (and the facts say so), a phone
  held upright cannot answer until turned, the GCA scale stays on one row, and a
  platform id seen in another session gets a page saying what to do.

Screenshots go to the test's temporary folder or ``$HUESENV_SCREENSHOTS``.
Chromium and chromedriver come from Debian (``.ci/run`` installs them).
"""

from __future__ import annotations

import sqlite3

import pytest

pytest.importorskip("flask")

from test_collect_browser import _need_browser, _viewport, chromium, click_and_wait, screenshot_dir, serving  # noqa: E402

pytestmark = [pytest.mark.integration, pytest.mark.browser]


def _onboard(driver, wait, base: str, landing: str = "/", age: str = "30-39") -> None:
    """Fill the onboarding form as a person does, screen check included (the four faint squares seen)."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import Select

    from huesenv.collect.display import TARGET_TILES

    driver.get(base + landing)
    wait.until(ec.presence_of_element_located((By.ID, "onboarding")))
    driver.find_element(By.CSS_SELECTOR, 'input[name="language"][value="english"]').click()
    Select(driver.find_element(By.NAME, "gender")).select_by_value("other")
    Select(driver.find_element(By.NAME, "age_range")).select_by_value(age)
    driver.find_element(By.CSS_SELECTOR, 'input[name="color_blind"][value="no"]').click()
    for tile in sorted(TARGET_TILES):
        driver.find_element(By.CSS_SELECTOR, f'input[name="screen_check"][value="{tile}"]').click()
    for box in ("consent", "adult", "display"):
        driver.find_element(By.CSS_SELECTOR, f'input[name="{box}"]').click()
    click_and_wait(driver, wait, driver.find_element(By.ID, "continue"))
    click_and_wait(driver, wait, wait.until(ec.presence_of_element_located((By.ID, "begin"))))


def _new_person(driver) -> None:
    """The next participant: a browser without this site's cookies."""
    driver.delete_all_cookies()


def _current_gca_item(db, position: int):
    with sqlite3.connect(db) as conn:
        return conn.execute(
            "SELECT i.kind, i.expected, s.colour, s.tau FROM gca_items i"
            " LEFT JOIN gca_stimuli s ON s.stimulus_id = i.stimulus_id"
            " WHERE i.participant_id = (SELECT id FROM participants ORDER BY serial DESC LIMIT 1)"
            " AND i.position = ?",
            (position,),
        ).fetchone()


def _words(driver, wait, coords: list[str]) -> list[tuple[str, str]]:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec

    answers = []
    for coord in coords:
        word = wait.until(ec.presence_of_element_located((By.ID, "cue"))).text
        driver.find_element(By.CSS_SELECTOR, f'button.cell[data-coord="{coord}"]').click()
        click_and_wait(driver, wait, driver.find_element(By.ID, "submit"))
        answers.append((word, coord))
    return answers


def _gca(driver, wait, db, rule: int) -> int:
    """Answer the survey by a rule: "colour" once ``rule`` % is coloured; state that rule."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec

    n = 0
    while True:
        wait.until(ec.presence_of_element_located((By.CSS_SELECTOR, "#gca-form, #thanks")))
        if driver.find_elements(By.ID, "thanks"):
            return n
        position = int(driver.find_element(By.NAME, "position").get_attribute("value"))
        kind, expected, colour, tau = _current_gca_item(db, position)
        if kind == "introspection":
            driver.find_element(By.ID, "threshold-value").send_keys(str(rule))
        else:
            choice = expected if kind == "attention" else (colour if tau >= rule else "white")
            driver.find_element(By.CSS_SELECTOR, f'input[name="choice"][value="{choice}"]').click()
            driver.find_element(By.XPATH, '//input[@name="confidence"][@value="7"]/..').click()
        click_and_wait(driver, wait, driver.find_element(By.ID, "submit"))
        n += 1


@pytest.mark.timeout(900)
def test_browser_complete_small_study(tmp_path, capsys):
    _need_browser()
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import WebDriverWait

    from huesenv.board import load_board
    from huesenv.categories import MACRO_COLOURS
    from huesenv.cli import main
    from huesenv.collect.app import CollectConfig
    from huesenv.collect.consensus import compare_maps, load_category_map
    from huesenv.collect.export import export
    from huesenv.humans import load_humans
    from huesenv.logs.io import read_records
    from huesenv.probes.gca.metrics import faithfulness, stated_thresholds
    from huesenv.vocabulary import words

    shots = screenshot_dir(tmp_path)
    dbs = {task: tmp_path / f"{task}.sqlite3" for task in ("words", "gca", "tessellation")}
    with chromium(tmp_path) as driver:
        wait = WebDriverWait(driver, 60)
        # -- the word task: two people; the second loses their session after one word and comes back
        config = CollectConfig(
            db_path=dbs["words"], vocabulary=words()[:6], words_per_participant=3, show_feedback=False
        )
        answers = []
        with serving(config) as base:
            _onboard(driver, wait, base)
            answers += _words(driver, wait, ["F14", "B3", "M27"])
            wait.until(ec.presence_of_element_located((By.ID, "thanks")))
            _new_person(driver)
            link = "/?PROLIFIC_PID=60aa0bb1cc2dd3ee4ff56677&STUDY_ID=st1&SESSION_ID=se1"
            _onboard(driver, wait, base, link)
            answers += _words(driver, wait, ["A1"])
            _new_person(driver)  # the browser crashed: the same platform link again
            driver.get(base + link)
            assert "Word 2 of 3" in wait.until(ec.presence_of_element_located((By.ID, "progress"))).text
            answers += _words(driver, wait, ["P30", "I18"])
            wait.until(ec.presence_of_element_located((By.ID, "thanks")))
            driver.save_screenshot(str(shots / "study_01_words_done.png"))
        # -- GCA with the probes' own stimuli: two people with different rules
        config = CollectConfig(
            db_path=dbs["gca"],
            task="gca",
            gca_trials=8,
            gca_attention_positions=(4,),
            gca_introspection="alternate",
        )
        with serving(config) as base:
            for rule in (25, 70):
                _new_person(driver)
                _onboard(driver, wait, base)
                assert _gca(driver, wait, dbs["gca"], rule) == 10
            driver.save_screenshot(str(shots / "study_02_gca_done.png"))
        # -- the painter: two people paint the package's map with a few changes, using the fill tool
        board = list(load_board().categories)
        with serving(CollectConfig(db_path=dbs["tessellation"], task="tessellation")) as base:
            for person in range(2):
                _new_person(driver)
                _onboard(driver, wait, base)
                wait.until(ec.presence_of_element_located((By.ID, "palette")))
                for colour in MACRO_COLOURS:  # paint each category's cells as the package's map has them
                    driver.find_element(By.CSS_SELECTOR, f'.paint[data-category="{colour}"]').click()
                    driver.execute_script(
                        "var want = arguments[0], cells = document.querySelectorAll('#board button.cell');"
                        "for (var i = 0; i < cells.length; i++) { if (want[i]) {"
                        "  cells[i].dispatchEvent(new MouseEvent('mousedown', {bubbles: true}));"
                        "  document.dispatchEvent(new MouseEvent('mouseup', {bubbles: true})); } }",
                        [c == colour for c in board],
                    )
                if person == 1:  # the second painter sees A1 as Red
                    driver.find_element(By.CSS_SELECTOR, '.paint[data-category="Red"]').click()
                    driver.find_element(By.CSS_SELECTOR, 'button.cell[data-coord="A1"]').click()
                assert driver.find_element(By.ID, "remaining").text == "all cells painted"
                click_and_wait(driver, wait, driver.find_element(By.ID, "submit"))
                wait.until(ec.presence_of_element_located((By.ID, "thanks")))
            driver.save_screenshot(str(shots / "study_03_tessellation_done.png"))

    # -- the experimenter's side --------------------------------------------------------------------------
    out = tmp_path / "out"
    out.mkdir()
    assert export(dbs["words"], out / "words.csv") == 6
    humans = load_humans(out / "words.csv")
    assert humans.n_participants == 2 and humans.skipped.empty
    assert sorted(zip(humans.frame["word"], humans.frame["coord"])) == sorted(answers)
    assert export(dbs["gca"], out / "gca.csv", task="gca") == 20
    assert main(["probe", "gca", "--replies", str(out / "gca.csv"), "--out", str(out / "scored")]) == 0
    records = read_records(out / "scored" / "gca.jsonl").records
    stated = stated_thresholds(records).groupby("agent_id")["mean"].mean()
    assert sorted(stated.round()) == [25.0, 70.0]
    assert (faithfulness(records)["faithfulness"] == 1.0).all()
    assert export(dbs["tessellation"], out / "consensus.csv", task="tessellation") == 480
    result = compare_maps(load_category_map(out / "consensus.csv"))
    tie = min(["Red", board[0]], key=MACRO_COLOURS.index)  # A1 is a 1-1 tie: MACRO_COLOURS order decides
    assert result.agreement == pytest.approx(1.0 if tie == board[0] else 479 / 480)
    confident = result.by_confidence.set_index("min_agreement")
    assert confident.loc[0.75, "n_cells"] == (480 if board[0] == "Red" else 479)
    capsys.readouterr()
    assert main(["collect", "compare-categories", "--consensus", str(out / "consensus.csv")]) == 0
    assert "cells agree" in capsys.readouterr().out


@pytest.mark.timeout(600)
def test_browser_forced_colours_phone_upright_and_lost_session(tmp_path):
    _need_browser()
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import WebDriverWait

    from huesenv.collect.app import CollectConfig
    from huesenv.collect.export import participants_frame, word_answers_frame
    from huesenv.vocabulary import words

    shots = screenshot_dir(tmp_path)
    db = tmp_path / "words.sqlite3"
    config = CollectConfig(db_path=db, vocabulary=words()[:6], words_per_participant=2, show_feedback=False)
    with chromium(tmp_path) as driver, serving(config) as base:
        wait = WebDriverWait(driver, 60)
        # -- forced colours (a Windows contrast theme): the board keeps its colours
        driver.execute_cdp_cmd(
            "Emulation.setEmulatedMedia", {"features": [{"name": "forced-colors", "value": "active"}]}
        )
        _onboard(driver, wait, base)
        wait.until(ec.presence_of_element_located((By.ID, "cue")))
        colours = driver.execute_script(
            "var cells = document.querySelectorAll('#board button.cell'), out = [];"
            "for (var i = 0; i < cells.length; i += 37) { out.push([getComputedStyle(cells[i]).backgroundColor,"
            "  cells[i].style.background]); }"
            "var probe = document.createElement('div'); probe.style.background = 'rgb(200, 10, 10)';"
            "document.body.appendChild(probe);"
            "return {cells: out, forced: matchMedia('(forced-colors: active)').matches,"
            "        control: getComputedStyle(probe).backgroundColor};"
        )
        assert colours["forced"], "the forced-colours emulation did not apply"
        assert colours["control"] != "rgb(200, 10, 10)", "an element without the rule is forced"
        assert all(computed == inline for computed, inline in colours["cells"]), colours["cells"][:3]
        assert not driver.find_element(
            By.ID, "forced-colours-warning"
        ).is_displayed()  # colours kept, no block
        driver.save_screenshot(str(shots / "display_01_forced_colours.png"))
        _words(driver, wait, ["C3", "D4"])
        driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})
        assert participants_frame(db)["forcedColors"].tolist() == [1]  # the facts say so, for exclusion

        # -- a phone held upright: no board, no answer until it is turned
        _new_person(driver)
        _viewport(driver, 390, 844)
        _onboard(driver, wait, base)
        wait.until(ec.presence_of_element_located((By.ID, "cue")))
        state = driver.execute_script(
            "return {rotate: getComputedStyle(document.querySelector('.rotate')).display,"
            " board: getComputedStyle(document.querySelector('.board-wrap')).display,"
            " form: getComputedStyle(document.getElementById('answer')).display};"
        )
        assert state == {"rotate": "block", "board": "none", "form": "none"}, state
        driver.save_screenshot(str(shots / "display_02_phone_upright.png"))
        _viewport(driver, 844, 390)
        _words(driver, wait, ["E5", "F6"])
        frame = word_answers_frame(db)
        assert frame["orientation"].tolist()[-2:] == ["landscape", "landscape"]
        assert participants_frame(db)["orientationAtStart"].tolist()[-1] == "portrait"
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})

        # -- a lost session: the same platform id in another session is told what to do, before any form
        _new_person(driver)
        _onboard(driver, wait, base, "/?PROLIFIC_PID=70aa0bb1cc2dd3ee4ff56677&STUDY_ID=st1&SESSION_ID=a")
        _new_person(driver)
        driver.get(base + "/?PROLIFIC_PID=70aa0bb1cc2dd3ee4ff56677&STUDY_ID=st1&SESSION_ID=b")
        wait.until(ec.presence_of_element_located((By.CSS_SELECTOR, ".card h1")))
        assert "another session" in driver.page_source and not driver.find_elements(By.ID, "onboarding")
        driver.save_screenshot(str(shots / "display_03_lost_session.png"))

    # -- the GCA confidence scale stays on one row, on a desktop and on a phone
    gca = CollectConfig(
        db_path=tmp_path / "g.sqlite3",
        task="gca",
        gca_trials=1,
        gca_attention_positions=(),
        gca_introspection="last",
    )
    with chromium(tmp_path) as driver, serving(gca) as base:
        wait = WebDriverWait(driver, 60)
        for width, height, name in ((1400, 1000, "desktop"), (390, 844, "phone")):
            _new_person(driver)
            if name == "phone":
                _viewport(driver, width, height)
            _onboard(driver, wait, base)
            wait.until(ec.presence_of_element_located((By.CSS_SELECTOR, ".confidence")))
            tops = driver.execute_script(
                "return Array.prototype.map.call(document.querySelectorAll('.confidence .option'),"
                " function (l) { return Math.round(l.getBoundingClientRect().top); });"
            )
            assert len(tops) == 10 and len(set(tops)) == 1, (name, tops)
            driver.save_screenshot(str(shots / f"display_04_gca_scale_{name}.png"))


@pytest.mark.timeout(300)
def test_browser_two_links_in_one_browser_are_two_participants(tmp_path):
    _need_browser()
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import WebDriverWait

    from huesenv.collect.app import CollectConfig
    from huesenv.collect.export import participants_frame, word_answers_frame
    from huesenv.vocabulary import words

    db = tmp_path / "words.sqlite3"
    config = CollectConfig(db_path=db, vocabulary=words()[:6], words_per_participant=2, show_feedback=False)
    link = "/?PROLIFIC_PID={0}&STUDY_ID=st1&SESSION_ID=se-{0}".format
    with chromium(tmp_path) as driver, serving(config) as base:
        wait = WebDriverWait(driver, 60)
        _onboard(driver, wait, base, link("p002"), age="18-19")
        _words(driver, wait, ["B2"])
        _onboard(driver, wait, base, link("p003"), age="40-49")  # the same browser, cookies kept
        _words(driver, wait, ["C3"])
        driver.get(base + link("p002"))  # p002 comes back with their own link
        _words(driver, wait, ["D4"])
        wait.until(ec.presence_of_element_located((By.ID, "thanks")))  # p002 has answered both words
    people = participants_frame(db).set_index("userId")
    answers = word_answers_frame(db, include_unfinished=True)
    owner = answers["userId"].map(people["platformPid"])
    assert sorted(zip(owner, answers["coordinate"])) == [("p002", "B2"), ("p002", "D4"), ("p003", "C3")]
    assert dict(zip(people["platformPid"], people["ageRange"])) == {"p002": "18-19", "p003": "40-49"}
