"""Architecture and training-data families of open_clip checkpoints, as the paper groups its 162 models.

The paper (Table 1) groups checkpoints by architecture — OpenAI-style CLIP 94,
SigLIP 30, CoCa / ConvNeXt 16, MobileCLIP 10, EVA 7, Multilingual 5 — and by
pre-training data — Owners (WebLI) 49, LAION 39, DataComp / DFN 37, Meta
(CommonPool / MetaCLIP) 34, Pioneers (YFCC / CC) 3 — but publishes no
per-model mapping.  We derive both from the open_clip names with the ordered
rules below (first match wins; matching is case-insensitive).

**Architecture** (:data:`ARCHITECTURE_RULES`, on the model name): any SigLIP
tower (incl. ``nllb-clip-*-siglip``) → SigLIP; remaining NLLB / RoBERTa /
XLM-RoBERTa text towers → Multilingual; ``coca_*`` and ``convnext*`` → CoCa /
ConvNeXt; ``MobileCLIP*`` → MobileCLIP; ``EVA*`` → EVA; every other open_clip
model (RN*, ViT-*, CLIPA, ViTamin, PE-Core) → OpenAI (the classical CLIP
recipe).  On the paper's 162 checkpoints this gives 95 / 30 / 16 / 10 / 6 / 5:
exact except OpenAI/EVA, where the paper counts one more EVA that no name rule
can identify (tests print the comparison).

**Data** (:data:`DATA_RULES`, on the pretrained tag): ``webli``, ``openai`` and
Meta's proprietary ``meta`` (PE-Core) → Owners; ``yfcc15m``/``cc12m`` →
Pioneers; ``commonpool*``/``metaclip*`` → Meta; ``datacomp*``/``dfn*`` →
DataComp / DFN; anything trained on LAION (``laion*``, ``*laion2b*``,
``*laion5b*``, EVA's ``merged2b`` = LAION-2B + COYO) and the NLLB-CLIP tags
(``v1``, ``mrl``; LAION-COCO captions) → LAION.  Measured: Owners 40, LAION 48,
DataComp / DFN 37, Meta 34, Pioneers 3 — three groups exact; the paper moves
nine LAION-side checkpoints to Owners by a criterion it does not state.

Non-open_clip agents (VLMs, text embeddings, random) get families from their
agent id (``InternVL``, ``Qwen-VL``, ...) or ``"Other"``.

**Hugging Face hub checkpoints** (``clip:hf-hub:<org>/<repo>``) have no
separate pretrained tag: the id is never split at its ``/`` (the org is not a
model), and both rule sets are matched on the *repo name* — on the whole name
and on each of its ``-``/``_``/``.``-separated tokens, rule order still
deciding — so ``timm/ViT-B-16-SigLIP-webli`` is SigLIP / Owners and
``laion/CLIP-ViT-H-14-laion2B-s32B-b79K`` is OpenAI / LAION.  The NLLB tag
rule (bare ``v1``/``mrl``) is not used on repo names, where such a token is
just a version.
"""

from __future__ import annotations

import re

ARCHITECTURE_FAMILIES = ("OpenAI", "SigLIP", "CoCa / ConvNeXt", "MobileCLIP", "EVA", "Multilingual")
DATA_FAMILIES = (
    "Owners (WebLI)",
    "LAION (Massive scale)",
    "DataComp / DFN (Curated)",
    "Meta (CommonPool/MetaCLIP)",
    "Pioneers (YFCC/CC)",
)

ARCHITECTURE_RULES: tuple[tuple[str, str], ...] = (
    (r"siglip", "SigLIP"),
    (r"^(nllb|roberta|xlm-roberta)", "Multilingual"),
    (r"^(coca|convnext)", "CoCa / ConvNeXt"),
    (r"^mobileclip", "MobileCLIP"),
    (r"^eva", "EVA"),
    (r"^(rn\d|vit|vitamin|pe-core)", "OpenAI"),
    (r"internvl", "InternVL"),
    (r"qwen", "Qwen-VL"),
)

DATA_RULES: tuple[tuple[str, str], ...] = (
    (r"^(webli|openai|meta)$", "Owners (WebLI)"),
    (r"^(yfcc15m|cc12m)$", "Pioneers (YFCC/CC)"),
    (r"^(commonpool|metaclip)", "Meta (CommonPool/MetaCLIP)"),
    (r"^(datacomp|dfn)", "DataComp / DFN (Curated)"),
    (r"(laion|merged2b)|^(v1|mrl)$", "LAION (Massive scale)"),
)

HUB_DATA_RULES: tuple[tuple[str, str], ...] = tuple(r for r in DATA_RULES if "v1|mrl" not in r[0]) + (
    (r"laion|merged2b", "LAION (Massive scale)"),
)
HUB_PREFIX = "hf-hub:"

OTHER = "Other"


def _match(rules: tuple[tuple[str, str], ...], text: str) -> str:
    for pattern, family in rules:
        if re.search(pattern, text, flags=re.IGNORECASE):
            return family
    return OTHER


def _match_repo(rules: tuple[tuple[str, str], ...], repo: str) -> str:
    """First rule matching a hub repo name as a whole or any of its tokens."""
    candidates = [repo, *(t for t in re.split(r"[-_.]", repo) if t)]
    for pattern, family in rules:
        if any(re.search(pattern, c, flags=re.IGNORECASE) for c in candidates):
            return family
    return OTHER


def hub_repo(model: str) -> str | None:
    """The repo name of an ``"hf-hub:<org>/<repo>"`` model (``None`` for any other name)."""
    if not model.startswith(HUB_PREFIX):
        return None
    return model[len(HUB_PREFIX) :].rpartition("/")[2]


def architecture_family(model: str) -> str:
    """Architecture family of an open_clip model name (``"ViT-B-16-SigLIP"`` → ``"SigLIP"``) or an agent id."""
    name = split_agent_id(model)[0]
    repo = hub_repo(name)
    return _match_repo(ARCHITECTURE_RULES, repo) if repo is not None else _match(ARCHITECTURE_RULES, name)


def data_family(pretrained: str | None) -> str:
    """Training-data family of an open_clip pretrained tag (``"laion2b_s34b_b79k"`` → LAION)."""
    if not pretrained:
        return OTHER
    return _match(DATA_RULES, pretrained)


def split_checkpoint(name: str) -> tuple[str, str]:
    """``"<model>-<pretrained>"`` as in the paper's Table 5 → (model, pretrained); tags never contain '-'."""
    model, _, tag = name.rpartition("-")
    if not model:
        raise ValueError(f"checkpoint name {name!r}: expected '<model>-<pretrained tag>'")
    return model, tag


def split_agent_id(agent_id: str) -> tuple[str, str | None]:
    """(model, pretrained tag or revision) of an agent id: ``"clip:ViT-B-32/openai"`` → ("ViT-B-32", "openai").

    A hub model keeps its prefix and is not split at ``/``:
    ``"clip:hf-hub:timm/ViT-B-16-SigLIP-webli"`` → ("hf-hub:timm/ViT-B-16-SigLIP-webli", None).
    """
    text = (
        agent_id.split(":", 1)[1]
        if re.match(r"^[a-z-]+:", agent_id) and not agent_id.startswith(HUB_PREFIX)
        else agent_id
    )
    if "@" in text:
        model, _, tag = text.rpartition("@")
        return model, tag
    if text.startswith(HUB_PREFIX):
        return text, None
    if agent_id.startswith("clip:") and "/" in text:
        model, _, tag = text.rpartition("/")
        return model, tag
    return text, None


def families_of(agent_id: str) -> tuple[str, str]:
    """(architecture family, data family) of an agent id."""
    model, tag = split_agent_id(agent_id)
    repo = hub_repo(model)
    if repo is not None:
        return _match_repo(ARCHITECTURE_RULES, repo), _match_repo(HUB_DATA_RULES, repo)
    return architecture_family(model), data_family(tag)
