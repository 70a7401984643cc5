"""Replayed humans on a small export written here (through the real loader) and on the packaged cohort."""

from __future__ import annotations

import numpy as np
import pytest

from huesenv.agents import CueQuery, GuessQuery, evaluate_words, make_agent
from huesenv.board import frame, parse_coord
from huesenv.humans import load_humans

ANSWERS = {"APPLE": ["C5"] * 3 + ["C6", "D5"], "SKY": ["L25", "L26", "K25", "A1"], "GRASS": ["O10", "O11"]}


@pytest.fixture(scope="module")
def humans(tmp_path_factory):
    path = tmp_path_factory.mktemp("humans") / "export.csv"
    lines = ["userId,timestamp,clueCategory,clueId,word,coordinate,language,gender,ageRange,colorBlind"]
    for word, coords in ANSWERS.items():
        for i, c in enumerate(coords):
            lines.append(f"u{i},2025-01-01T00:00:00,,,{word},{c},en,f,18-24,false")
    path.write_text("\n".join(lines) + "\n")
    return load_humans(path)


def test_samples_without_replacement_within_a_game(humans):
    agent = make_agent("human-replay", humans=humans, seed=1)
    placed = [agent.act(GuessQuery(cues=("APPLE",), game=0)).cell for _ in range(5)]
    assert sorted(placed) == sorted(parse_coord(c) for c in ANSWERS["APPLE"])  # each answer used once
    sixth = agent.act(GuessQuery(cues=("APPLE",), game=0))
    assert sixth.info["fallback"] == "exhausted"
    fresh = agent.act(GuessQuery(cues=("APPLE",), game=1))  # a new game restores the pool
    assert "fallback" not in fresh.info and fresh.cell in {parse_coord(c) for c in ANSWERS["APPLE"]}


def test_skips_illegal_cells_and_unknown_cues(humans):
    agent = make_agent("human-replay", humans=humans, seed=0)
    legal = np.ones(480, bool)
    legal[[parse_coord("C5"), parse_coord("C6")]] = False
    for _ in range(10):
        assert agent.act(GuessQuery(cues=("APPLE",), legal=legal)).cell == parse_coord("D5")
    unknown = agent.act(GuessQuery(cues=("ZIZAX",), legal=legal, top_k=4))
    assert (
        unknown.info["fallback"] == "unknown_cue" and legal[unknown.cells].all() and len(unknown.cells) == 4
    )
    second = agent.act(GuessQuery(cues=("SKY", "ZIZAX")))  # latest cue unknown: earlier cue used
    assert second.info["word"] == "SKY"


def test_cue_giver_maximises_frame_share(humans):
    agent = make_agent("human-replay", humans=humans)
    ans = agent.act(CueQuery(card=(parse_coord("C5"), parse_coord("L26")), target=parse_coord("C5")))
    assert ans.cue == "APPLE" and ans.scores[0] == pytest.approx(1.0)
    ans = agent.act(CueQuery(card=(parse_coord("C5"), parse_coord("K26")), target=parse_coord("K26")))
    assert ans.cue == "SKY" and ans.scores[0] == pytest.approx(3 / 4)
    assert parse_coord("L25") in frame(parse_coord("K26"))
    picked = agent.act(
        CueQuery(card=(parse_coord("O10"), parse_coord("A30")), target=None, forbidden=frozenset({"apple"}))
    )
    assert picked.target == parse_coord("O10") and picked.cue == "GRASS"
    none_left = agent.act(CueQuery(card=(1,), target=1, cue_index=2, vocabulary=("ZIZAX",)))
    assert none_left.cue is None and none_left.valid


def test_word_task_is_sampled_and_seeded(humans):
    agent = make_agent("human-replay", humans=humans)
    a = evaluate_words(agent, seed=4)
    b = evaluate_words(agent, seed=4)
    assert [r.cells for r in a] == [r.cells for r in b]
    apple = next(r for r in a if r.word == "APPLE")
    assert (
        apple.extra["sampled"] is True and apple.scores is None and a[0].agent_id == "human-replay:export.csv"
    )
    assert set(apple.cells) == {"C5", "C6", "D5"}
    assert next(r for r in a if r.word == "BANANA").extra["fallback"] == "unknown_cue"


def test_cue_giver_uses_the_rules_frame(humans):
    from huesenv.agents.human_replay import HumanReplayAgent
    from huesenv.board import N_CELLS, chebyshev_distance
    from huesenv.game.rules import HuesCuesRules

    default = HumanReplayAgent(humans)
    words, share = default.frame_shares()
    cells = np.arange(N_CELLS)  # the hand-written 3×3 frame it used to compute: unchanged for default rules
    old = np.stack([np.bincount(default._pool[w], minlength=N_CELLS) / len(default._pool[w]) for w in words])
    np.testing.assert_allclose(share, old @ (chebyshev_distance(cells[:, None], cells[None, :]) <= 1))

    class TargetOnly(HuesCuesRules):  # a rule override: only the target cell is "in the frame"
        @property
        def in_frame_matrix(self) -> np.ndarray:
            return np.eye(N_CELLS, dtype=bool)

    card = (parse_coord("C6"), parse_coord("L26"))
    ans = default.act(CueQuery(card=card))
    assert (ans.cue, ans.target, ans.scores[0]) == ("APPLE", parse_coord("C6"), pytest.approx(1.0))
    narrow = make_agent("human-replay", humans=humans, rules=TargetOnly())
    ans = narrow.act(CueQuery(card=card))
    assert (ans.cue, ans.target, ans.scores[0]) == ("SKY", parse_coord("L26"), pytest.approx(1 / 4))


def _reference_cue(agent, query):
    """The cue giver's choice computed the direct way: every text normalised on every query."""
    from huesenv.vocabulary import normalise_word

    words, share = agent.frame_shares()
    row = {w: i for i, w in enumerate(words)}

    def known(text):
        try:
            key = normalise_word(text)
        except ValueError:
            return None
        return key if key in row else None

    forbidden = query.forbidden_words
    allowed = [w for w in (query.vocabulary or words) if known(w) is not None and known(w) not in forbidden]
    if not allowed:
        return None
    value = share[[row[known(w)] for w in allowed]][:, query.targets]
    w, t = divmod(int(np.argmax(value)), value.shape[1])
    return allowed[w], query.targets[t], value[w, t]


def test_cue_texts_are_matched_as_words_and_cached(monkeypatch):
    """Spellings, aliases, white space and non-texts as the cached per-text rows see them, against the direct way."""
    from huesenv.agents import human_replay
    from huesenv.vocabulary import word_texts

    monkeypatch.setattr(human_replay, "_MAX_CACHED_TEXTS", 50)  # the bound is hit and the cache refilled
    agent = make_agent("human-replay", seed=0)
    rng = np.random.default_rng(3)
    spellings = [w for t in word_texts() for w in (t, t.lower(), f"  {t.title()} ")]
    spellings += ["shrek", "Happiness", "zizax", "   ", "", 7, None]
    for _ in range(300):
        pool = tuple(rng.choice(np.array(spellings, dtype=object), size=int(rng.integers(1, 40))))
        forbidden = frozenset(rng.choice(np.array(spellings, dtype=object), size=int(rng.integers(0, 60))))
        card = tuple(int(c) for c in rng.choice(480, size=4, replace=False))
        target = None if rng.random() < 0.5 else card[0]
        query = CueQuery(card=card, target=target, cue_index=2, vocabulary=pool, forbidden=forbidden)
        for _ in range(2):  # the second answer comes from the cache
            ans = agent.act(query)
            expected = _reference_cue(agent, query)
            if expected is None:
                assert ans.cue is None and ans.valid
            else:
                assert (ans.cue, ans.target, ans.scores[0]) == expected
        assert len(agent._text_rows) <= 50


def test_cue_among_offered_words_blocks_their_rows_as_the_query_does():
    """``give_cue_among`` with an offered mask over a pool holding several spellings of one word: a word not
    offered blocks its other spellings too, as the query (offered texts, the rest forbidden) has it."""
    from itertools import compress

    from huesenv.vocabulary import word_texts

    agent = make_agent("human-replay", seed=0)
    rng = np.random.default_rng(5)
    spellings = [w for t in word_texts()[:30] for w in (t, t.lower(), f" {t.title()}")] + ["zizax", "   "]
    checked = 0
    for _ in range(300):
        pool = tuple(rng.choice(np.array(spellings, dtype=object), size=int(rng.integers(2, 50))))
        offered = rng.random(len(pool)) < rng.choice([0.3, 0.9])
        forbidden = frozenset(rng.choice(np.array(spellings, dtype=object), size=int(rng.integers(0, 8))))
        card = tuple(int(c) for c in rng.choice(480, size=4, replace=False))
        target = None if rng.random() < 0.5 else card[0]
        query = CueQuery(
            card=card,
            target=target,
            cue_index=2,
            vocabulary=tuple(compress(pool, offered.tolist())) or None,
            forbidden=forbidden | frozenset(compress(pool, (~offered).tolist())),
        )
        if query.vocabulary is None:
            continue
        ans = agent.give_cue_among(query.targets, 2, pool, forbidden, offered)
        expected = _reference_cue(agent, query)
        if expected is None:
            assert ans.cue is None and ans.valid
        else:
            cue, t, share = expected
            assert (ans.target, ans.scores[0]) == (t, share)
            assert agent._known(ans.cue) == agent._known(cue)  # the same word (the first offered spelling)
            checked += 1
    assert checked > 100


def _reference_guess(agent, legal, word, used, k):
    """The replayed guess the direct way: walk the permutation, skip used answers, illegal and repeated cells."""
    pool = agent._pool[word]
    cells, first = [], None
    for i in agent.rng.permutation(len(pool)):
        c = int(pool[i])
        if int(i) not in used and legal[c] and c not in cells:
            cells.append(c)
            first = int(i) if first is None else first
            if len(cells) == k:
                break
    return cells, first


@pytest.mark.parametrize("top_k", [1, 3, 6])
def test_guess_cells_takes_the_answers_of_the_permutation_walk(top_k):
    """The array scan of a replayed guess against the loop over the same permutation: the same cells, the same
    answers used up within a game, the generator left in the same state (so the next draws agree too)."""
    from copy import deepcopy

    agent = make_agent("human-replay", seed=2)
    words = list(agent._pool)[:12]
    rng = np.random.default_rng(top_k)
    used: dict[str, set[int]] = {}
    compared = exhausted = 0
    for turn in range(600):
        game = turn // 40
        if turn % 40 == 0:
            used = {}
        word = words[int(rng.integers(len(words)))]
        legal = rng.random(480) < rng.choice([0.2, 0.97])
        twin = deepcopy(agent.rng)
        ans = agent.guess_cells(legal, ("zizax", word.lower()), game=game, top_k=top_k)
        reference = deepcopy(agent)
        reference.rng = twin
        cells, first = _reference_guess(reference, legal, word, used.setdefault(word, set()), top_k)
        if not cells:
            assert ans.info["fallback"] == "exhausted"
            exhausted += 1
            continue
        assert ans.cells.tolist() == cells and ans.info == {"sampled": True, "word": word}
        used[word].add(first)
        assert twin.integers(2**62) == deepcopy(agent.rng).integers(2**62)
        compared += 1
    assert compared > 400 and exhausted > 0
    agent._pool["EMPTY POOL"] = np.zeros(0, np.int64)  # a word without answers: exhausted, as the walk has it
    for k in (1, 3):
        assert agent.guess_cells(np.ones(480, bool), ("empty pool",), top_k=k).info["fallback"] == "exhausted"


def test_forbidden_texts_may_come_as_a_one_pass_iterator():
    """A generator of forbidden texts blocks as the list does, though the rows of texts not seen yet are
    looked up in a second pass (a fresh agent: none cached)."""
    from huesenv.agents.human_replay import HumanReplayAgent

    targets = [parse_coord("C5"), parse_coord("L26")]
    best = HumanReplayAgent(seed=0).give_cue_among(targets, 1, None, []).cue
    fresh = HumanReplayAgent(seed=0)
    from_generator = fresh.give_cue_among(targets, 1, None, (w for w in [best.lower(), "zizax"]))
    assert from_generator.cue not in (None, best)
    assert from_generator.cue == HumanReplayAgent(seed=0).give_cue_among(targets, 1, None, [best]).cue


def test_guess_cell_is_the_first_cell_of_guess_cells_draw_for_draw() -> None:
    """``guess_cell`` (the envs' narrow guess) takes the same draws as ``guess_cells`` and gives its first
    cell, through answered words, unknown cues (the uniform fallback) and answers used up in a game."""
    from huesenv.agents import HumanReplayAgent

    one, many = HumanReplayAgent(seed=7), HumanReplayAgent(seed=7)
    legal = np.ones(480, dtype=bool)
    seen = set()
    for turn in range(400):
        cues = [["SKY"], ["GRASS", "SKY"], ["NOT A WORD ANYONE ANSWERED"], ["OCEAN"]][turn % 4]
        game = turn // 40
        if turn % 40 == 0:
            legal[:] = True
        cell = one.guess_cell(legal, cues, game=game)
        answer = many.guess_cells(legal, cues, game=game)
        assert isinstance(cell, int) and cell == int(answer.cells[0])
        seen.add(answer.info.get("fallback"))
        legal[cell] = False  # placed: the next guesses see it taken
    assert {None, "unknown_cue"} <= seen
    assert one.guess_cell(np.zeros(480, dtype=bool), ["SKY"]) is None


def test_give_cue_among_refuses_targets_off_the_board():
    """-1 used to read the last cell's words; 480 raised an IndexError; a whole float is its cell."""
    from huesenv.agents.human_replay import HumanReplayAgent

    agent = HumanReplayAgent(seed=0)
    for bad in (-1, 480, 3.5, "12", True):
        with pytest.raises(ValueError, match=f"give_cue_among: target {bad!r} is not a cell index"):
            agent.give_cue_among([5, bad], 1, None, [])
        with pytest.raises(ValueError, match="give_cue_among: target"):
            agent.give_cue_among(iter([5, bad]), 1, None, [])  # type: ignore[arg-type]  # any iterable
    assert (
        agent.give_cue_among([12.0], 1, None, []).target
        == agent.give_cue_among([12], 1, None, []).target
        == 12
    )
