"""Reply parsing per answer kind, and metrics reading the same records from any container."""

from huesenv.agents.protocol import Answer
from huesenv.probes.trials import ProbeTrial, parse_reply


def _trial(kind, options=None, subject="apple"):
    return ProbeTrial("gca", "t", "q", options, None, subject, kind, {}, lambda: None)


def test_kinds():
    t = parse_reply(_trial("threshold+colour"), Answer(text="red", raw_text="threshold=40%, color=white"))
    assert t.answer == "threshold=40;color=white" and t.values == {"value": 40.0, "colour": "white"}
    t = parse_reply(_trial("threshold+colour"), "The apple is red. threshold=30%")
    assert t.values == {"value": 30.0, "colour": "red"}
    assert not parse_reply(_trial("threshold+colour"), "threshold=30%").valid
    c = parse_reply(_trial("colours", subject="text"), Answer(text="blue", raw_text="blue, black and yellow"))
    assert c.answer == "black,blue,yellow"
    o = parse_reply(_trial("option", ("white", "red", "blue")), Answer(option=2, raw_text="?"))
    assert o.answer == "blue" and o.values == {"option": 2}
    o = parse_reply(_trial("option", ("white", "red", "blue"), subject="orange"), "The orange looks red")
    assert o.answer == "red"
    assert parse_reply(_trial("option", ("white", "red", "blue")), 1).answer == "red"
    bad = parse_reply(_trial("colour"), Answer(valid=False, raw_text="no idea"))
    assert not bad.valid and bad.answer is None and bad.raw_text == "no idea"


def test_metrics_accept_records_frames_and_jsonl(tmp_path):
    from huesenv.agents import RandomAgent
    from huesenv.logs import LogWriter, read_records, records_to_frame
    from huesenv.probes import run_probe
    from huesenv.probes.gca.metrics import colour_shares

    recs = run_probe(
        RandomAgent(seed=3), "gca", objects=["heart"], conditions=["prior"], question_types=["colour"]
    )
    with LogWriter(tmp_path / "x.jsonl") as w:
        w.append(recs)
    a = colour_shares(recs)
    b = colour_shares(records_to_frame(recs))
    c = colour_shares(read_records(tmp_path / "x.jsonl").records)
    assert a.equals(b) and a.equals(c)
