"""The GCA survey's stimuli from the probes package's generator (:mod:`huesenv.probes.gca`).

Humans see exactly the images models are evaluated on: the same seeded
stimulus set (:func:`huesenv.probes.gca.stimuli.gca_stimuli`) and the same
distractor per stimulus (:func:`huesenv.probes.gca.questions.colour_options`).

More (method, why, measurements): ``docs/design.md``, section ``huesenv.collect.gca_probes``.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Sequence

import numpy as np

from huesenv.collect.tasks.gca import GCAServedStimulus
from huesenv.probes.gca.questions import colour_options
from huesenv.probes.gca.stimuli import gca_stimuli

PAPER_MIX: dict[str, int] = {"prior": 39, "counterfactual": 12, "shape": 39}


def stratified_counts(n: int, mix: dict[str, int] = PAPER_MIX) -> dict[str, int]:
    """Split ``n`` trials over conditions in proportion to ``mix`` (largest remainder, ties in ``mix`` order)."""
    total = sum(mix.values())
    exact = {k: n * v / total for k, v in mix.items()}
    counts = {k: int(np.floor(x)) for k, x in exact.items()}
    left = n - sum(counts.values())
    for k in sorted(mix, key=lambda k: (-(exact[k] - counts[k]), list(mix).index(k)))[:left]:
        counts[k] += 1
    return counts


def _png(stim) -> Callable[[], bytes]:
    def render() -> bytes:
        from PIL import Image

        buf = io.BytesIO()
        Image.fromarray(np.asarray(stim.image(), dtype=np.uint8)).save(buf, format="PNG", compress_level=3)
        return buf.getvalue()

    return render


def make_probes_source(seed: int = 0, mix: dict[str, int] = PAPER_MIX, **stimulus_kwargs):
    """A ``source(rng, n_trials, n_attention)`` drawing from the seeded probes stimulus set (``seed`` is the generator's seed)."""
    pool = gca_stimuli(seed=seed, **stimulus_kwargs)
    by_condition: dict[str, list] = {}
    for s in pool:
        by_condition.setdefault(s.condition, []).append(s)
    mix = {k: v for k, v in mix.items() if k in by_condition}
    if not mix:
        raise ValueError("GCA stimulus set is empty for the requested conditions")

    converted: dict[str, GCAServedStimulus] = {}  # drawing stays cheap inside the onboarding transaction

    def convert(stim) -> GCAServedStimulus:
        done = converted.get(stim.stimulus_id)
        if done is not None:
            return done
        _, distractor = colour_options(stim, seed)
        return converted.setdefault(
            stim.stimulus_id,
            GCAServedStimulus(
                stimulus_id=stim.stimulus_id,
                object=stim.subject,
                condition=stim.condition,
                colour=stim.colour,
                tau=float(stim.tau),
                distractor=distractor,
                png=_png(stim),
            ),
        )

    by_id = {s.stimulus_id: s for s in pool}

    def render_png(stimulus_id: str) -> Callable[[], bytes] | None:
        stim = by_id.get(stimulus_id)
        return None if stim is None else _png(stim)

    def source(rng: np.random.Generator, n_trials: int, n_attention: int) -> Sequence[GCAServedStimulus]:
        chosen: list = []
        for cond, k in stratified_counts(n_trials, mix).items():
            items = by_condition[cond]
            if k > len(items):
                raise ValueError(f"GCA: {k} {cond} trials requested, the stimulus set has {len(items)}")
            chosen += [items[i] for i in rng.choice(len(items), size=k, replace=False)]
        chosen = [chosen[i] for i in rng.permutation(len(chosen))]
        used = {s.stimulus_id for s in chosen}
        rest = [s for s in pool if s.stimulus_id not in used]
        chosen += [rest[i] for i in rng.choice(len(rest), size=n_attention, replace=False)]
        return [convert(s) for s in chosen]

    source.render_png = render_png  # type: ignore[attr-defined]
    source.stimulus_ids = tuple(by_id)  # type: ignore[attr-defined]
    return source
