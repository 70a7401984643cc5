"""Probe stimulus throughput: GCA images and text-interference images per second.

Run: ``OMP_NUM_THREADS=1 .venv/bin/python benchmarks/bench_probes.py [--n 300]``

Measured in the same run:

1. **GCA, reference** — every image built from scratch: SVG rasterised, mask
   filled, eligible pixels, patch order and coloured set recomputed (what a
   stateless implementation does per image).
2. **GCA, ours** — :meth:`GCAStimulus.image` over the same stimuli in set order:
   first pass (each base rasterised once, then cached) and a second pass with
   the per-base caches warm (what every later trial of a run costs).
   Goal: warm ≥ 10× the reference.
3. **Batch run** — :func:`run_probe` with the random agent over the colour
   questions of the same stimuli (trial building, query images, parsing, records):
   goal ≤ 2× the time of ours (2).
4. **Interference** — stimuli rendered per second (no baseline: reported).
"""

from __future__ import annotations

import argparse
import time


def _reference_image(stim):
    """Everything from scratch, no cache (the baseline)."""
    from huesenv.probes.gca.objects import MANIPULATION_RGB, object_by_name, render_shape
    from huesenv.probes.gca.outlines import draw_polylines, foreground_mask, svg_polylines
    from huesenv.probes.gca.stimuli import coloured_mask, eligible_pixels, patch_order, recolour

    if stim.kind == "shape":
        shape, _, v = stim.base.rpartition("-")
        render_shape.cache_clear()
        grey, mask = render_shape(shape, int(v))
    else:
        from importlib import resources

        icon = object_by_name(stim.base).icon
        text = (resources.files("huesenv") / "data" / "gca" / "outlines" / f"{icon}.svg").read_text()
        polys, vb = svg_polylines(text)
        grey = draw_polylines(polys, vb)
        mask = foreground_mask(grey)
    elig = eligible_pixels(grey, mask)
    return recolour(
        grey,
        coloured_mask(elig, patch_order(elig, stim.base, stim.seed), stim.tau),
        MANIPULATION_RGB[stim.colour],
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--n", type=int, default=260, help="GCA stimuli to render (default 260 = 20 bases × 13 τ)"
    )
    args = ap.parse_args()

    from huesenv.agents import RandomAgent
    from huesenv.probes import run_probe
    from huesenv.probes.gca.questions import gca_trials
    from huesenv.probes.gca.stimuli import gca_stimuli
    from huesenv.probes.interference.stimuli import interference_stimuli

    stims = gca_stimuli(conditions=["prior"])[: args.n]
    ref_n = max(1, args.n // 10)
    t0 = time.perf_counter()
    for s in stims[:: max(1, len(stims) // ref_n)][:ref_n]:
        _reference_image(s)
    ref = (time.perf_counter() - t0) / ref_n

    from huesenv.probes.gca.stimuli import _image_cached

    t0 = time.perf_counter()
    for s in stims:
        s.image()
    ours = (time.perf_counter() - t0) / len(stims)
    _image_cached.cache_clear()
    t0 = time.perf_counter()
    for s in stims:
        s.image()
    warm = (time.perf_counter() - t0) / len(stims)

    trials = gca_trials(stims, question_types=["colour"])
    t0 = time.perf_counter()
    run_probe(RandomAgent(seed=0), trials, run_id="bench")
    batch = (time.perf_counter() - t0) / len(trials)

    ist = interference_stimuli(per_type=10)
    t0 = time.perf_counter()
    for s in ist:
        s.image()
    inter = (time.perf_counter() - t0) / len(ist)

    print(f"GCA reference (no cache): {ref * 1e3:8.2f} ms/image  ({ref_n} images)")
    print(
        f"GCA ours, first pass:     {ours * 1e3:8.2f} ms/image  ({len(stims)} images)  "
        f"speed-up {ref / ours:5.1f}x"
    )
    print(f"GCA ours, warm caches:    {warm * 1e3:8.2f} ms/image  speed-up {ref / warm:5.1f}x  (goal >= 10x)")
    print(
        f"run_probe random agent:   {batch * 1e3:8.2f} ms/trial  ratio to first pass {batch / ours:4.2f}  "
        "(goal <= 2)"
    )
    print(f"interference stimuli:     {inter * 1e3:8.2f} ms/image  ({len(ist)} images)")


if __name__ == "__main__":
    main()
