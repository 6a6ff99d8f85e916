"""The one list of pages, in the order of the lesson, grouped in sections.

app.py builds the navigation from it; the opening page's links, the browser tests
and README follow it. A page's URL path is its file name without ``.py``
("/" for the default page).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from pathlib import PurePosixPath

from .i18n import N_, _, lang


@dataclass(frozen=True)
class PageSpec:
    file: str  # path relative to the app's folder, "pages/<name>.py"
    title: str  # title, section and summary are catalog messages: show _(spec.title)
    icon: str  # a Material icon, ":material/<name>:"
    section: str
    summary: str  # one line for the opening page's list of pages
    default: bool = False
    charts: bool = True  # the page draws at least one figure

    @property
    def name(self) -> str:
        return PurePosixPath(self.file).stem

    @property
    def url_path(self) -> str:
        return "/" if self.default else f"/{self.name}"


PAGES: tuple[PageSpec, ...] = (
    PageSpec("pages/overview.py", N_("Why positions"), ":material/home:",
             N_("Start"),
             N_("attention alone cannot tell word orders apart"), default=True),
    PageSpec("pages/tour.py", N_("Guided tour"), ":material/tour:",
             N_("Start"),
             N_("numbered steps: open a page, predict, reveal the live answer")),
    PageSpec("pages/glossary.py", N_("Glossary"), ":material/menu_book:",
             N_("Start"),
             N_("every term of the lesson in a sentence or two"), charts=False),
    PageSpec("pages/sinusoidal.py", N_("Sinusoidal"), ":material/waves:",
             N_("From positions to rotations"),
             N_("the original Transformer's additive encoding")),
    PageSpec("pages/derivation.py", N_("Derivation"), ":material/function:",
             N_("From positions to rotations"),
             N_("why a rotation, step by step (RoFormer §3.4.1)")),
    PageSpec("pages/rotation.py", N_("Rotation"), ":material/rotate_right:",
             N_("The rotation"),
             N_("watch one pair of q and k turn as positions advance")),
    PageSpec("pages/step_by_step.py", N_("Step by step"), ":material/calculate:",
             N_("The rotation"),
             N_("rotate your own vector by hand, three ways")),
    PageSpec("pages/frequencies.py", N_("Frequencies"), ":material/equalizer:",
             N_("The rotation"),
             N_("θᵢ and wavelengths per pair")),
    PageSpec("pages/where_rope_sits.py", N_("Where RoPE sits"), ":material/account_tree:",
             N_("RoPE in a model"),
             N_("after W_q and W_k, keys cached rotated, two layouts")),
    PageSpec("pages/attention.py", N_("Attention"), ":material/grid_on:",
             N_("RoPE in a model"),
             N_("logits and softmax weights with and without RoPE")),
    PageSpec("pages/decay.py", N_("Long-term decay"), ":material/trending_down:",
             N_("RoPE in a model"),
             N_("how scores fade with relative distance")),
    PageSpec("pages/long_context.py", N_("Long context"), ":material/expand:",
             N_("Where RoPE breaks"),
             N_("unseen angles, the critical dimension, the base bound")),
    PageSpec("pages/precision.py", N_("Precision"), ":material/blur_on:",
             N_("Where RoPE breaks"),
             N_("positions and angles in float16 and bfloat16")),
    PageSpec("pages/real_models.py", N_("Real models"), ":material/model_training:",
             N_("Real models"),
             N_("how published models configure RoPE, side by side")),
    PageSpec("pages/context_extension.py", N_("Context extension"), ":material/open_in_full:",
             N_("Real models"),
             N_("every context-extension method on one model")),
    PageSpec("pages/serving.py", N_("Serve it longer"), ":material/terminal:",
             N_("Real models"),
             N_("what to write so that transformers, vLLM, SGLang or llama.cpp runs a model "
                "longer")),
    PageSpec("pages/layers_without_rope.py", N_("Layers without RoPE"), ":material/layers:",
             N_("Real models"),
             N_("hybrids: which layers rotate, how far each reaches")),
    PageSpec("pages/images_video.py", N_("Images and video"), ":material/grid_view:",
             N_("Beyond text"),
             N_("2D RoPE for patches, M-RoPE's three ids for text, images and video")),
    PageSpec("pages/beyond_rope.py", N_("Beyond RoPE"), ":material/alt_route:",
             N_("Beyond RoPE"),
             N_("ALiBi, NoPE, xPos, p-RoPE and sinusoidal on RoPE's axes")),
    PageSpec("pages/trained_models.py", N_("Trained tiny models"), ":material/neurology:",
             N_("Beyond RoPE"),
             N_("seven position encodings, two tasks, five seeds each, evaluated past "
                "their length")),
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


_BUILT: dict[str, dict] = {}  # language -> {section title: [st.Page, ...]}


def st_pages() -> dict[str, list]:
    """The navigation for ``st.navigation``: {section title: [st.Page, ...]} in the
    run's language. ``st.Page`` resolves its file on disk (a realpath per page,
    about 1 ms for the eighteen pages on every run), so each language's pages are
    made once per process; every run gets copies, because ``st.navigation`` marks
    the page it returns (which a concurrent run must not see)."""
    import streamlit as st

    built = _BUILT.get(lang())
    if built is None:
        built = {_(section): [st.Page(spec.file, title=_(spec.title), icon=spec.icon,
                                      default=spec.default) for spec in specs]
                 for section, specs in sections().items()}
        _BUILT[lang()] = built  # a race only builds it twice
    return {section: [copy.copy(page) for page in pages] for section, pages in built.items()}
