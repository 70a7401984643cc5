"""Architecture and data families from open_clip names, compared with the paper's Table 1 counts."""

from __future__ import annotations

from collections import Counter
from importlib import resources

import pandas as pd

from huesenv.metrics import architecture_family, data_family, families_of, split_agent_id, split_checkpoint

TABLE1_ARCH = {
    "OpenAI": 94,
    "SigLIP": 30,
    "CoCa / ConvNeXt": 16,
    "MobileCLIP": 10,
    "EVA": 7,
    "Multilingual": 5,
}
TABLE1_DATA = {
    "Owners (WebLI)": 49,
    "LAION (Massive scale)": 39,
    "DataComp / DFN (Curated)": 37,
    "Meta (CommonPool/MetaCLIP)": 34,
    "Pioneers (YFCC/CC)": 3,
}


def _checkpoints() -> list[tuple[str, str]]:
    ref = resources.files("huesenv") / "data" / "reference" / "paper_table5_models.csv"
    with ref.open("r", encoding="utf-8") as fh:
        return [split_checkpoint(m) for m in pd.read_csv(fh)["model"]]


def test_counts_against_table1():
    checkpoints = _checkpoints()
    arch = Counter(architecture_family(m) for m, _ in checkpoints)
    data = Counter(data_family(p) for _, p in checkpoints)
    for name, ours, paper in (("architecture", arch, TABLE1_ARCH), ("data", data, TABLE1_DATA)):
        for family, n in paper.items():
            print(f"{name:12s} {family:28s} ours {ours.get(family, 0):3d}  paper {n:3d}")
    assert sum(arch.values()) == sum(data.values()) == 162
    assert "Other" not in arch and "Other" not in data
    exact_arch = [f for f in TABLE1_ARCH if arch[f] == TABLE1_ARCH[f]]
    assert set(exact_arch) == {"SigLIP", "CoCa / ConvNeXt", "MobileCLIP", "Multilingual"}
    assert abs(arch["EVA"] - 7) + abs(arch["OpenAI"] - 94) == 2
    assert data["DataComp / DFN (Curated)"] == 37 and data["Meta (CommonPool/MetaCLIP)"] == 34
    assert data["Pioneers (YFCC/CC)"] == 3


def test_names_and_agent_ids():
    assert split_checkpoint("ViT-H-14-worldwide-378-metaclip2_worldwide") == (
        "ViT-H-14-worldwide-378",
        "metaclip2_worldwide",
    )
    assert architecture_family("nllb-clip-base-siglip") == "SigLIP"
    assert architecture_family("xlm-roberta-large-ViT-H-14") == "Multilingual"
    assert architecture_family("coca_ViT-L-14") == "CoCa / ConvNeXt"
    assert data_family("laion2b_s34b_b79k") == "LAION (Massive scale)"
    assert data_family("commonpool_m_laion_s128m_b4k") == "Meta (CommonPool/MetaCLIP)"
    assert data_family(None) == "Other"
    assert split_agent_id("clip:ViT-B-32/laion2b_s34b_b79k") == ("ViT-B-32", "laion2b_s34b_b79k")
    assert split_agent_id("vlm:Qwen/Qwen2-VL-2B@main") == ("Qwen/Qwen2-VL-2B", "main")
    assert families_of("clip:MobileCLIP-S2/datacompdr") == ("MobileCLIP", "DataComp / DFN (Curated)")
    assert families_of("vlm:OpenGVLab/InternVL3_5-8B") == ("InternVL", "Other")
    assert families_of("random") == ("Other", "Other")


def test_hub_ids_are_not_split_at_the_org():
    assert split_agent_id("clip:hf-hub:timm/ViT-B-16-SigLIP-webli") == (
        "hf-hub:timm/ViT-B-16-SigLIP-webli",
        None,
    )
    assert families_of("clip:hf-hub:timm/ViT-B-16-SigLIP-webli") == ("SigLIP", "Owners (WebLI)")
    assert architecture_family("clip:hf-hub:timm/ViT-B-16-SigLIP-webli") == "SigLIP"
    assert families_of("clip:hf-hub:laion/CLIP-ViT-H-14-laion2B-s32B-b79K") == (
        "OpenAI",
        "LAION (Massive scale)",
    )
    assert families_of("clip:hf-hub:apple/DFN5B-CLIP-ViT-H-14-384") == ("OpenAI", "DataComp / DFN (Curated)")
    assert families_of("clip:hf-hub:timm/vit_base_patch16_clip_224.openai") == ("OpenAI", "Owners (WebLI)")
    assert families_of("clip:hf-hub:someone/model-v1") == (
        "Other",
        "Other",
    )  # 'v1' is a version here, not NLLB's tag
    assert split_agent_id("clip:hf-hub:timm/ViT-B-16-SigLIP-webli@main") == (
        "hf-hub:timm/ViT-B-16-SigLIP-webli",
        "main",
    )
