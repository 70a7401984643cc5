"""GPU path check for the CLIP agent: device placement, fp16, batching, timings, CPU agreement.

Run on a machine with CUDA: ``python benchmarks/gpu_check.py [--out results.json]``.
It needs open_clip but no downloads: models are real open_clip architectures with
seeded random weights saved to a local checkpoint, loaded through the agent's own
loading code (``clip:<model>/<checkpoint path>``), once with ``device="auto"`` (→ cuda,
fp16) and once with ``device="cpu"`` (fp32).  Reported:

* where the parameters live and the share of them in half precision (open_clip's
  fp16 mode converts the matmul weights and leaves embeddings/norms in fp32);
* board encoding (480 colour patches) split into preprocessing and forward time;
* the word task (100 words + 16 nonsense inputs, top-5) first run and a cached rerun;
* raw ``encode_image`` throughput by batch size;
* top-1 agreement between the GPU fp16 and CPU fp32 rankings of the same weights.

With ``--vlm`` it also checks the local-VLM agent (``vlm:<path>``) on a random Llava
built on the spot (:mod:`huesenv.agents.tiny_models`): placement and precision,
the word task at several batch sizes (generation constrained to a coordinate so
every answer parses), and the same on the CPU.

With ``--tournament`` it checks that a tournament's ``device`` setting (``huesenv
tournament --device cuda``) reaches the model agent: a few games of the offline
text-embedding agent against replayed humans with ``device=cuda`` and ``device=cpu``
(where the agent's model lives, games/s, whether both devices played the same games).
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")


def checkpoint(model_name: str, folder: Path) -> str:
    import open_clip
    import torch

    torch.manual_seed(0)
    model = open_clip.create_model(model_name, pretrained=None)
    path = folder / f"{model_name}-random.pt"
    torch.save(model.state_dict(), path)
    return str(path)


def run_agent(spec: str, device: str, cache: Path) -> dict:
    import numpy as np
    import torch

    from huesenv.agents import evaluate_words, make_agent

    agent = make_agent(spec, device=device, cache_dir=cache)
    t0 = time.perf_counter()
    model = agent.model
    load_s = time.perf_counter() - t0
    params = list(model.parameters())
    n_params = sum(p.numel() for p in params)
    half_share = sum(p.numel() for p in params if p.dtype in (torch.float16, torch.bfloat16)) / n_params
    if agent.device.startswith("cuda"):  # CUDA context and kernel warm-up, so timings are steady-state
        with torch.inference_mode():
            model.encode_text(agent._tokenizer(["warm up"]).to(agent.device))
        torch.cuda.synchronize()
    t0 = time.perf_counter()
    agent.cell_embeddings()
    board_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    records = evaluate_words(agent, top_k=5)
    words_s = time.perf_counter() - t0
    # cached rerun: a fresh agent on the warm cache folder
    again = make_agent(spec, device=device, cache_dir=cache)
    t0 = time.perf_counter()
    records2 = evaluate_words(again, top_k=5)
    cached_s = time.perf_counter() - t0
    assert [r.cells for r in records] == [r.cells for r in records2]
    return {
        "device": agent.device,
        "precision": agent.precision,
        "param_devices": sorted({str(p.device) for p in params}),
        "half_precision_param_share": half_share,
        "load_s": load_s,
        "board_encode_s": board_s,
        "board_preprocess_s": agent.timings["preprocess_s"],
        "board_forward_s": agent.timings["image_encode_s"],
        "words_first_s": words_s,
        "words_cached_rerun_s": cached_s,
        "top1": [r.cells[0] for r in records],
        "gpu_mem_peak_mb": (torch.cuda.max_memory_allocated() / 2**20)
        if agent.device.startswith("cuda")
        else None,
        "_agent": agent,
        "_np": np,
    }


def throughput(agent, batch_sizes=(16, 64, 128, 480), repeat: int = 5) -> dict:
    import torch

    from huesenv.agents.clip_agent import colour_patch

    size = agent.image_size
    patches = [colour_patch(rgb, size) for rgb in agent.board.rgb]
    pixels = torch.stack([agent._preprocess(im) for im in patches]).to(agent.device, dtype=torch.float16)
    out = {}
    with torch.inference_mode():
        for bs in batch_sizes:
            for _ in range(2):  # warm-up
                agent.model.encode_image(pixels[:bs])
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            for _ in range(repeat):
                for start in range(0, len(pixels), bs):
                    agent.model.encode_image(pixels[start : start + bs])
            torch.cuda.synchronize()
            out[str(bs)] = repeat * len(pixels) / (time.perf_counter() - t0)
    return out


def vlm_check(folder: Path, batch_sizes=(1, 8, 32)) -> dict:
    import torch

    from huesenv.agents import evaluate_words, make_agent
    from huesenv.agents.tiny_models import build_tiny_llava, coordinate_bias

    ids = build_tiny_llava(folder, hidden=256, layers=4, image_size=224)
    out: dict = {}
    for device, sizes in (("auto", batch_sizes), ("cpu", batch_sizes[1:2])):
        for bs in sizes:
            agent = make_agent(
                f"vlm:{folder}",
                device=device,
                max_new_tokens=4,
                retries=0,
                batch_size=bs,
                generate_kwargs=coordinate_bias(ids),
            )
            t0 = time.perf_counter()
            records = evaluate_words(agent, top_k=1)
            elapsed = time.perf_counter() - t0
            params = list(agent.model.parameters())
            out[f"{agent.device}/batch{bs}"] = {
                "precision": agent.precision,
                "param_devices": sorted({str(p.device) for p in params}),
                "half_precision_param_share": sum(
                    p.numel() for p in params if p.dtype in (torch.float16, torch.bfloat16)
                )
                / sum(p.numel() for p in params),
                "words_s": elapsed,
                "valid": sum(r.valid for r in records),
                "n": len(records),
                "top1_values": sorted({r.cells[0] for r in records if r.cells}),
            }
            print(json.dumps({f"vlm {agent.device}/batch{bs}": out[f"{agent.device}/batch{bs}"]}), flush=True)
    out["text_only_probe"] = vlm_text_only_check(folder, ids)
    print(json.dumps({"vlm text_only_probe": out["text_only_probe"]}), flush=True)
    return out


def tournament_check(games: int = 4) -> dict:
    """``device`` from the config to the agent: placement, speed, same games on both devices."""
    from huesenv.experiments import GamePlayer, load_config, plan_games

    out: dict = {}
    played: dict = {}
    for device in ("cuda", "cpu"):
        config = load_config(
            "default",
            [
                f"device={device}",
                f"games={games}",
                "lineups=[[text-embedding, human, human, human]]",
                "agents.text-embedding.kwargs={cache_dir: false}",  # no embedding cache: the model must run
            ],
        )
        player = GamePlayer(config)
        start = time.perf_counter()
        outcomes = [player.play(u) for u in plan_games(config)]
        wall = time.perf_counter() - start
        agent = player._instances[("text-embedding", 0)]
        model = getattr(agent, "_model", None)
        where = str(getattr(model, "device", "not loaded"))
        played[device] = [o.scores for o in outcomes]
        out[device] = {
            "device_kwarg": agent.device_spec,
            "model_device": where,
            "games": len(outcomes),
            "games_per_s": len(outcomes) / wall,
        }
        print(json.dumps({f"tournament_{device}": out[device]}), flush=True)
    out["same_games_on_both_devices"] = played["cuda"] == played["cpu"]
    out["ok"] = out["cuda"]["model_device"].startswith("cuda") and out["cpu"]["model_device"] == "cpu"
    return out


def vlm_text_only_check(folder: Path, ids: dict) -> dict:
    """GCA text prior on the device: a batch mixing image and text-only probe queries (text-only run apart)."""
    import numpy as np

    from huesenv.agents import ProbeQuery, make_agent

    agent = make_agent(f"vlm:{folder}", device="auto", max_new_tokens=4, retries=0, batch_size=8)
    img = np.full((64, 64, 3), 200, np.uint8)
    queries = [
        ProbeQuery(image=None if i % 2 else img, question="What value should x% be?", answer_kind="threshold")
        for i in range(16)
    ]
    t0 = time.perf_counter()
    answers = agent.act_batch(queries)
    return {
        "device": agent.device,
        "n": len(answers),
        "replies": sum(a.raw_text is not None for a in answers),
        "seconds": time.perf_counter() - t0,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--models", nargs="+", default=["ViT-B-32", "ViT-L-14"])
    parser.add_argument(
        "--cpu-models", nargs="*", default=["ViT-B-32"], help="also run these on the CPU (fp32)"
    )
    parser.add_argument(
        "--vlm", action="store_true", help="also check the local-VLM agent on a random tiny Llava"
    )
    parser.add_argument(
        "--tournament", action="store_true", help="also check that a tournament's --device reaches the agent"
    )
    parser.add_argument(
        "--train",
        nargs="*",
        type=int,
        metavar="NUM_ENVS",
        help="also measure `huesenv train guesser --fast` steps/s on cuda and cpu (benchmarks/bench_train.py); "
        "optional batch sizes (default 2048 8192 32768)",
    )
    parser.add_argument("--out", default="gpu_check.json")
    args = parser.parse_args()
    import torch

    results: dict = {
        "torch": torch.__version__,
        "cuda": torch.cuda.is_available(),
        "gpu": torch.cuda.get_device_name(0) if torch.cuda.is_available() else None,
        "models": {},
    }
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        for name in args.models:
            ckpt = checkpoint(name, tmp)
            spec = f"clip:{name}/{ckpt}"
            gpu = run_agent(spec, "auto", tmp / f"cache-gpu-{name}")
            row = {k: v for k, v in gpu.items() if not k.startswith("_") and k != "top1"}
            row["encode_image_per_s_by_batch"] = throughput(gpu["_agent"])
            if name in args.cpu_models:
                cpu = run_agent(spec, "cpu", tmp / f"cache-cpu-{name}")
                row["cpu"] = {k: v for k, v in cpu.items() if not k.startswith("_") and k != "top1"}
                row["top1_agreement_gpu_fp16_vs_cpu_fp32"] = sum(
                    a == b for a, b in zip(gpu["top1"], cpu["top1"])
                ) / len(gpu["top1"])
                row["speedup_board_cpu_over_gpu"] = cpu["board_encode_s"] / gpu["board_encode_s"]
            results["models"][name] = row
            print(json.dumps({name: row}, indent=1), flush=True)
        if args.vlm:
            results["vlm"] = vlm_check(tmp / "tiny-llava")
        if args.tournament:
            results["tournament"] = tournament_check()
    if args.train is not None:
        import importlib.util

        spec = importlib.util.spec_from_file_location(
            "bench_train", Path(__file__).with_name("bench_train.py")
        )
        bench_train = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(bench_train)
        results["train"] = bench_train.run_all(args.train or [2048, 8192, 32768], updates=6)
    Path(args.out).write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
