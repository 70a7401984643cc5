"""Model loading without the libraries' own progress bars.

transformers draws a "Loading weights" bar (and huggingface_hub its download bars) on
stderr whether or not stderr is a terminal; they interleave with the tool's own
progress and end up in captured logs.  The tool shows its own progress, so the model
libraries are told to stay quiet before any model is loaded.
"""

from __future__ import annotations

import os


def quiet_model_loading() -> None:
    """Turn off transformers' and huggingface_hub's progress bars (idempotent; torch extras only)."""
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    try:
        from transformers.utils import logging as hf_logging
    except ImportError:  # sentence-transformers/transformers not installed: nothing draws bars
        return
    hf_logging.disable_progress_bar()
