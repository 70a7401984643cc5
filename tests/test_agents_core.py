"""Registry (built-ins and entry-point plugins), word task records, disk cache safety, CLI."""

from __future__ import annotations

import json
import sys
import textwrap

import numpy as np
import pytest

from huesenv.agents import (
    Agent,
    Answer,
    BaseAgent,
    CueQuery,
    GuessQuery,
    RandomAgent,
    available_agents,
    evaluate_words,
    make_agent,
    register_agent,
    split_spec,
)
from huesenv.agents.cache import TextEmbeddingCache, cache_path, load_arrays, save_arrays
from huesenv.agents.ranking import top_k_cells
from huesenv.board import parse_coord
from huesenv.cli import main
from huesenv.vocabulary import evaluation_inputs


@pytest.fixture
def plugin(tmp_path, monkeypatch):
    """A tiny agent package registered in the ``huesenv.agents`` entry-point group via a dist-info on sys.path."""
    pkg = tmp_path / "huesenv_toy_plugin"
    pkg.mkdir()
    (pkg / "__init__.py").write_text(
        textwrap.dedent("""
        import numpy as np
        from huesenv.agents import Answer, BaseAgent

        class CornerAgent(BaseAgent):
            name = "corner"
            def __init__(self, corner="0"):
                self.corner = int(corner)
            def guess(self, query):
                return Answer(cells=np.array([self.corner]), scores=np.array([1.0]))

        def make(arg=None, **kwargs):
            return CornerAgent(arg or "0", **kwargs)

        def make_random(arg=None, **kwargs):
            raise AssertionError("a plugin must not replace a built-in kind")
    """)
    )
    dist = tmp_path / "huesenv_toy_plugin-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: huesenv-toy-plugin\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text(
        "[huesenv.agents]\ncorner = huesenv_toy_plugin:make\nrandom = huesenv_toy_plugin:make_random\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    yield
    sys.modules.pop("huesenv_toy_plugin", None)


def test_builtin_specs():
    assert {"random", "human-replay", "text-embedding", "clip", "vlm", "api-vlm"} <= set(available_agents())
    assert split_spec("clip:hf-hub:org/x") == ("clip", "hf-hub:org/x")
    assert isinstance(make_agent("random:7"), RandomAgent)
    for bad in ("", "nope", "random:", "nope:arg"):
        with pytest.raises(ValueError):
            make_agent(bad)


def test_entry_point_plugin(plugin, capsys):
    with pytest.warns(UserWarning, match="built in"):
        assert "corner" in available_agents()
    with pytest.warns(UserWarning):
        agent = make_agent("corner:479")
    assert isinstance(agent, Agent) and agent.act(GuessQuery(cues=("SKY",))).cell == 479
    assert isinstance(make_agent("random"), RandomAgent)  # built-in kept, plugin never loaded
    with pytest.warns(UserWarning):
        assert main(["agents", "list"]) == 0
    assert "corner" in capsys.readouterr().out


def test_register_agent_in_process():
    class Fixed(BaseAgent):
        name = "fixed"

        def guess(self, query):
            return Answer(cells=np.array([3, 4]), scores=np.array([2.0, 1.0]))

    register_agent("fixed-test", lambda arg=None, **kw: Fixed())
    assert make_agent("fixed-test").act(GuessQuery(cues=("A",))).cell == 3
    with pytest.raises(ValueError):
        register_agent("random", lambda **kw: Fixed())


def test_evaluate_words_records_and_determinism():
    recs = evaluate_words(make_agent("random"), top_k=5, run_id="t", seed=3, batch_size=50)
    again = evaluate_words(make_agent("random"), top_k=5, run_id="t", seed=3)
    inputs = evaluation_inputs()
    assert len(recs) == 116 == len(inputs)
    assert [r.word for r in recs] == [w.text for w in inputs] and recs[-1].category == "Nonsense"
    assert all(r.kind == "word_query" and len(r.cells) == 5 and len(set(r.cells)) == 5 for r in recs)
    assert [r.cells for r in recs] == [r.cells for r in again]
    assert all(r.timings["batch_s"] >= r.timings["per_query_s"] > 0 for r in recs)
    for r in recs:
        for c in r.cells:
            parse_coord(c)
    with pytest.raises(ValueError):
        evaluate_words(make_agent("random"), top_k=0)


def test_top_k_respects_mask_and_ties():
    scores = np.zeros(480)
    scores[[10, 20, 30]] = [3.0, 2.0, 2.0]
    legal = np.ones(480, bool)
    legal[10] = False
    cells, top = top_k_cells(scores, legal, 3)
    assert cells.tolist() == [20, 30, 0] and top.tolist() == [2.0, 2.0, 0.0]


@pytest.mark.parametrize(
    "name", ["../../etc/passwd", "hf-hub:org/../../x", "/abs/path", "a\x00b", "..", "ü" * 300]
)
def test_cache_keys_stay_inside_folder(tmp_path, name):
    path = cache_path(tmp_path, "../kind/..", name, "tag/../../")
    assert path.parent.parent == tmp_path and path.resolve().is_relative_to(tmp_path.resolve())
    save_arrays(path, {"a": np.arange(3)})
    assert load_arrays(path)["a"].tolist() == [0, 1, 2]
    assert cache_path(tmp_path, "k", name, "x") != cache_path(tmp_path, "k", name, "y")


def test_cache_files_are_not_pickles(tmp_path):
    path = tmp_path / "bad.npz"
    np.savez(path, obj=np.array([{"x": 1}], dtype=object))
    assert load_arrays(path) is None  # object arrays need pickle: refused
    (tmp_path / "torn.npz").write_bytes(b"PK\x03\x04garbage")
    assert load_arrays(tmp_path / "torn.npz") is None
    c = TextEmbeddingCache(tmp_path / "t.npz")
    c.put(["a", "b"], np.eye(2))
    c.flush()
    assert TextEmbeddingCache(tmp_path / "t.npz").stack(["b"]).tolist() == [[0.0, 1.0]]


def test_random_cue_and_cli(tmp_path, capsys):
    ans = make_agent("random").act(CueQuery(card=(1, 2, 3, 4), forbidden=frozenset({"APPLE"})))
    assert ans.target in (1, 2, 3, 4) and ans.cue and ans.cue != "APPLE"
    assert main(["agents", "guess", "random", "sky", "--top-k", "3"]) == 0
    assert len(capsys.readouterr().out.strip().splitlines()) == 3
    out = tmp_path / "w.jsonl"
    assert main(["agents", "words", "random", "--out", str(out), "--opt", "seed=5"]) == 0
    lines = out.read_text().splitlines()
    assert len(lines) == 116 and json.loads(lines[0])["kind"] == "word_query"
    assert main(["agents", "words", "random", "--opt", "noequals"]) == 2


def test_devices():
    from huesenv.agents.devices import resolve_device, resolve_precision

    assert resolve_device("cpu") == "cpu"
    assert resolve_precision("cpu") == "fp32" and resolve_precision("cuda:0") == "fp16"
    assert resolve_precision("cpu", "bf16") == "bf16"
    for bad in ("gpu", "cuda:x", "tpu"):
        with pytest.raises(ValueError):
            resolve_device(bad)
    with pytest.raises(ValueError):
        resolve_precision("cpu", "int8")
    torch = pytest.importorskip("torch")
    assert resolve_device("auto") == ("cuda" if torch.cuda.is_available() else "cpu")
    if not torch.cuda.is_available():
        with pytest.raises(ValueError, match="CUDA"):
            resolve_device("cuda:0")


@pytest.mark.integration
def test_package_import_stays_light():
    import subprocess

    code = (
        "import sys, huesenv.agents as a; a.make_agent('random'); "
        "print(sorted(m for m in ('torch', 'open_clip', 'transformers', 'httpx', 'sentence_transformers') "
        "if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_pragmatic_cue_contrasts_with_the_other_card_colours():
    from huesenv.agents.scoring import ScoringAgent

    target, other = 100, 300

    class Table(ScoringAgent):
        name = "table"

        def cell_scores(self, texts):
            rows = []
            for t in texts:
                s = np.zeros(480)
                if t == "BROAD":  # best on the target, but as strong on the other card cell
                    s[target], s[other] = 5.0, 5.0
                elif t == "SHARP":  # a bit weaker on the target, nothing elsewhere
                    s[target] = 4.0
                rows.append(s)
            return np.stack(rows)

    vocab = ("BROAD", "SHARP", "NONE")
    plain = Table(cue_strategy="similarity", vocabulary=vocab).act(
        CueQuery(card=(target, other), target=target)
    )
    prag = Table(cue_strategy="pragmatic", vocabulary=vocab).act(
        CueQuery(card=(target, other), target=target)
    )
    assert plain.cue == "BROAD" and prag.cue == "SHARP"
    two = Table(vocabulary=vocab).act(
        CueQuery(card=(target, other), target=target, cue_index=2, forbidden=frozenset(vocab))
    )
    assert two.cue is None and two.valid  # passing is allowed on cue 2


@pytest.mark.parametrize("spec", ["random", "text-embedding"])
def test_an_agent_with_no_allowed_word_passes_cue_2_and_is_invalid_at_cue_1(spec):
    from huesenv.agents import make_agent
    from huesenv.game.protocol import CueQuery

    agent = make_agent(spec)
    agent.reset(seed=0)
    for cue_index, valid in ((1, False), (2, True)):
        query = CueQuery(
            card=(5, 9), target=9, cue_index=cue_index, vocabulary=("red",), forbidden=frozenset({"red"})
        )
        answer = agent.act(query)
        assert (answer.cue, answer.valid, answer.target) == (None, valid, 9)
    assert CueQuery(card=(5, 9)).no_cue("why").target == 5  # a target pick defaults to the first card cell
