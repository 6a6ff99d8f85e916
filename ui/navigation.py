"""The one list of pages, in the order of the lesson, grouped in sections.

app.py builds the navigation from it; the opening page's links, the browser tests
and README follow it. A page's URL path is its file name without ``.py``
("/" for the default page).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePosixPath


@dataclass(frozen=True)
class PageSpec:
    file: str  # path relative to the app's folder, "pages/<name>.py"
    title: str
    icon: str  # a Material icon, ":material/<name>:"
    section: str
    summary: str  # one line for the opening page's list of pages
    default: bool = False
    charts: bool = True  # the page draws at least one figure (the tour only links)

    @property
    def name(self) -> str:
        return PurePosixPath(self.file).stem

    @property
    def url_path(self) -> str:
        return "/" if self.default else f"/{self.name}"


PAGES: tuple[PageSpec, ...] = (
    PageSpec("pages/overview.py", "Why positions", ":material/home:", "Start",
             "attention alone cannot tell word orders apart", default=True),
    PageSpec("pages/tour.py", "Guided tour", ":material/tour:", "Start",
             "numbered steps: open a page, predict, reveal the live answer", charts=False),
    PageSpec("pages/sinusoidal.py", "Sinusoidal", ":material/waves:",
             "From positions to rotations", "the original Transformer's additive encoding"),
    PageSpec("pages/derivation.py", "Derivation", ":material/function:",
             "From positions to rotations", "why a rotation, step by step (RoFormer §3.4.1)"),
    PageSpec("pages/rotation.py", "Rotation", ":material/rotate_right:", "The rotation",
             "watch one pair of q and k turn as positions advance"),
    PageSpec("pages/step_by_step.py", "Step by step", ":material/calculate:", "The rotation",
             "rotate your own vector by hand, three ways"),
    PageSpec("pages/frequencies.py", "Frequencies", ":material/equalizer:", "The rotation",
             "θᵢ and wavelengths per pair"),
    PageSpec("pages/where_rope_sits.py", "Where RoPE sits", ":material/account_tree:",
             "RoPE in a model", "after W_q and W_k, keys cached rotated, two layouts"),
    PageSpec("pages/attention.py", "Attention", ":material/grid_on:", "RoPE in a model",
             "logits and softmax weights with and without RoPE"),
    PageSpec("pages/decay.py", "Long-term decay", ":material/trending_down:",
             "RoPE in a model", "how scores fade with relative distance"),
    PageSpec("pages/long_context.py", "Long context", ":material/expand:",
             "Where RoPE breaks", "unseen angles, the critical dimension, the base bound"),
    PageSpec("pages/precision.py", "Precision", ":material/blur_on:", "Where RoPE breaks",
             "positions and angles in float16 and bfloat16"),
    PageSpec("pages/real_models.py", "Real models", ":material/model_training:", "Real models",
             "how published models configure RoPE, side by side"),
    PageSpec("pages/context_extension.py", "Context extension", ":material/open_in_full:",
             "Real models", "every context-extension method on one model"),
)


def by_name(name: str) -> PageSpec:
    """The page whose file is pages/<name>.py."""
    for spec in PAGES:
        if spec.name == name:
            return spec
    raise KeyError(name)


def sections() -> dict[str, list[PageSpec]]:
    """The pages grouped by section, both in lesson order."""
    out: dict[str, list[PageSpec]] = {}
    for spec in PAGES:
        out.setdefault(spec.section, []).append(spec)
    return out
