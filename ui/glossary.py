"""The glossary: one short definition per term a student meets, in the order of the
lesson, and the box that explains a page's own terms where the page uses them.

Every term has a key, which is its anchor on the Glossary page (``glossary#theta``) and
the name a page gives :func:`terms`. The definitions are catalog messages (``N_``),
translated when shown. The Glossary page (pages/glossary.py) draws them all; a page calls
``ui.terms("theta", "wavelength", ...)`` under its introduction, which draws a closed
expander "Terms on this page" with those terms' definitions, each term's name a link to
its entry in the glossary (opened in a new tab, so that the lesson keeps its place).
"""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from .i18n import N_, _, lang, ngettext


@dataclass(frozen=True)
class Term:
    key: str  # the anchor on the Glossary page and the name pages use: ASCII, no spaces
    name: str  # how the term is written (a catalog message)
    text: str  # its definition, app-written Markdown (a catalog message)
    page: str  # the page where it matters most: its navigation name (pages/<page>.py)
    section: str  # the glossary's section (a catalog message)
    short: str = ""  # a shorter name for the box's title, when ``name`` has several parts
    # (a catalog message, or a symbol shown as it is: θᵢ, Bₘ)


_START = N_("Positions and attention")
_ROTATION = N_("The rotation")
_DISTANCE = N_("Scores and distance")
_LONG = N_("Long context and precision")
_EXTENSION = N_("Context extension")
_LAYERS = N_("Layers, windows, images")
_BEYOND = N_("Beyond RoPE")

# In the order a student meets them; each section's terms stay together.
TERMS: tuple[Term, ...] = (
    Term("token", N_("token"), N_(
        "A piece of text, a word or part of one, that a model reads as one unit. Positions, "
        "distances, context lengths and wavelengths are all counted in tokens."),
        "overview", _START),
    Term("position", N_("position m, n and relative distance"), N_(
        "A token's position is its index in the text, counted from 0: here the query sits at "
        "m and the key at n. Their relative distance is how far apart they are, "
        "n − m tokens (some pages write r). With RoPE a score depends on the two positions only "
        "through it."), "derivation", _START, N_("relative distance")),
    Term("bag", N_("bag of words"), N_(
        "Attention with no position information sees a sentence as a bag of words: shuffle "
        "the tokens and every token gets the same output as before, only in another row "
        "(permutation equivariance). “dog bites man” and “man bites dog” look alike."),
        "overview", _START),
    Term("qkv", N_("query q, key k, value v"), N_(
        "The three vectors an attention layer makes from each token's vector x with its "
        "matrices W_q, W_k and W_v. A query is compared with every key to decide how much of "
        "each value to take. RoPE rotates q and k, never v."),
        "where_rope_sits", _START, "q, k, v"),
    Term("score", N_("score (logit)"), N_(
        "How well a query matches a key, before the softmax: the dot product qᵀk, divided by "
        "√d in a model. With RoPE it is (Rₘq)ᵀ(Rₙk) = qᵀR₍ₙ₋ₘ₎k: it sees only the relative "
        "distance n − m."), "attention", _START, N_("score")),
    Term("softmax", N_("softmax, attention weights"), N_(
        "The softmax turns one query's scores sⱼ into weights that are positive and add up "
        "to 1: wⱼ = e^(sⱼ) / Σₖ e^(sₖ). The layer's output for that query is the weighted "
        "sum of the values."), "attention", _START, "softmax"),
    Term("causal", N_("causal mask"), N_(
        "A query sees only the keys at its own position and before it (n ≤ m); later keys "
        "are masked out. Language models that write text one token at a time read it this "
        "way."), "attention", _START),
    Term("kv_cache", N_("KV cache"), N_(
        "While a model generates text, it keeps every earlier token's key and value instead "
        "of computing them again. With RoPE the keys are stored already rotated, each at its "
        "own position, and never rotated again."), "where_rope_sits", _START),
    Term("sinusoidal", N_("sinusoidal encoding, d_model"), N_(
        "The original Transformer's position encoding (Vaswani et al. 2017): a vector PEₚ of "
        "d_model numbers, the width of the model's token vectors, is added to the token's "
        "vector at position p, with PEₚ,₂ᵢ = sin(p·ωᵢ), PEₚ,₂ᵢ₊₁ = cos(p·ωᵢ) and "
        "ωᵢ = 10000^(−2i/d_model). RoPE keeps these frequencies but rotates q and k "
        "instead."), "sinusoidal", _START, N_("sinusoidal encoding")),

    Term("rope", N_("RoPE"), N_(
        "Rotary position embedding (Su et al. 2021, RoFormer): every pair of coordinates of "
        "q and of k is turned by an angle proportional to the token's position, m·θᵢ. The "
        "score of a rotated query and key then depends only on their relative distance."),
        "rotation", _ROTATION),
    Term("head_dim", N_("head dim d"), N_(
        "The length of one attention head's q and k vectors (`head_dim` in a config): 128 in "
        "Llama 2 7B, Llama 3.1 8B and Mistral 7B, for example. RoPE splits it into d/2 "
        "pairs."), "rotation", _ROTATION),
    Term("pair", N_("pair i"), N_(
        "Two coordinates of q (and the same two of k) that RoPE turns together, as one point "
        "in a plane. A head of dim d has d/2 pairs, numbered i = 0 … d/2 − 1 here (the "
        "RoFormer paper counts from 1). Pair i turns by θᵢ per token."),
        "rotation", _ROTATION),
    Term("layout", N_("pair layout"), N_(
        "Which two coordinates form pair i. `interleaved`: (2i, 2i + 1), as in RoFormer, "
        "Meta's Llama code, GPT-J and GLM. `half`: (i, i + d/2), as in GPT-NeoX and Hugging "
        "Face's Llama, Mistral, Qwen and Gemma. Each pair turns at the same θᵢ in both. A "
        "model converted from one to the other (the rows of W_q and W_k permuted) gives the "
        "same scores; the same vectors read in the other layout give other scores."),
        "where_rope_sits", _ROTATION),
    Term("theta", N_("θᵢ, frequency"), N_(
        "How fast pair i turns: θᵢ = base^(−2i/d) radians per token. Pair 0 is the fastest, "
        "θ₀ = 1 rad/token; each next pair turns base^(2/d) times slower, down to "
        "θ = base^(−(d−2)/d), just above 1/base, for the last."),
        "frequencies", _ROTATION, "θᵢ"),
    Term("base", N_("base"), N_(
        "The constant b in θᵢ = b^(−2i/d) (`rope_theta` in a config): 10⁴ in RoFormer and "
        "Llama 2, 5·10⁵ in Llama 3, 10⁶ in Qwen 2.5. A larger base slows every pair but the "
        "first, whose θ₀ = 1 whatever the base."), "frequencies", _ROTATION),
    Term("wavelength", N_("λᵢ, wavelength"), N_(
        "How many tokens pair i needs for one full turn: λᵢ = 2π/θᵢ = 2π·base^(2i/d). From "
        "2π ≈ 6.3 tokens for pair 0 to just under 2π·base for the slowest pair."),
        "frequencies", _ROTATION, "λᵢ"),
    Term("rotation_matrix", N_("Rₘ, rotation matrix"), N_(
        "The d × d matrix that rotates a vector at position m: one 2 × 2 rotation by m·θᵢ "
        "per pair, zeros elsewhere. Its key property is Rₘᵀ Rₙ = R₍ₙ₋ₘ₎: rotating q by m and "
        "k by n gives the score of k alone rotated by n − m."), "derivation", _ROTATION, "Rₘ"),
    Term("partial", N_("partial rotary"), N_(
        "Only the first `rotary_dim` coordinates of each head are rotated (in Hugging Face, "
        "`rotary_dim` = head dim × `partial_rotary_factor`); the others carry no position. "
        "The frequencies are then θᵢ = base^(−2i/rotary_dim). GPT-J rotates 64 of its 256."),
        "real_models", _ROTATION),

    Term("decay", N_("long-term decay"), N_(
        "RoFormer's argument that attention fades with relative distance: an upper bound on "
        "the score shrinks, with ripples, as the distance grows. It holds for the bound and "
        "for vectors whose pairs point the same way, not for every q and k."),
        "decay", _DISTANCE),
    Term("bound", N_("bound(r)"), N_(
        "The curve of RoFormer's upper bound, bound(r) = (1/(d/2))·Σⱼ |Sⱼ| with "
        "Sⱼ = Σₗ₌₀ʲ⁻¹ e^(ι·r·θₗ), ι = √−1: |qᵀR_r k| is at most "
        "maxᵢ|hᵢ₊₁ − hᵢ| · (d/2) · bound(r). It depends only on r, d and the base, and starts "
        "at bound(0) = (d/2 + 1)/2."),
        "decay", _DISTANCE),
    Term("b_m", N_("Bₘ, cosine sum"), N_(
        "Bₘ = Σᵢ cos(m·θᵢ), summed over the d/2 pairs at distance m. Men et al. 2024: with "
        "independent components, a key similar to the query (k = q + ε) scores at least as "
        "high as a random key m tokens away, on average, exactly when Bₘ ≥ 0."),
        "long_context", _DISTANCE, "Bₘ"),

    Term("l_train", N_("context length L, L_train"), N_(
        "How many tokens a model reads at once. L_train is the length it was trained on "
        "(`max_position_embeddings`, or `original_max_position_embeddings` in a config that "
        "extends it); positions beyond it are new to the model."),
        "long_context", _LONG, "L_train"),
    Term("extrapolation", N_("extrapolation"), N_(
        "Running a model past L_train with RoPE unchanged. Its slow pairs, which never "
        "completed a turn in training, then meet angles they have never seen."),
        "long_context", _LONG),
    Term("critical", N_("critical dimension d_extra"), N_(
        "Liu et al. 2023: d_extra = 2⌈(d/2)·log_base(L_train/2π)⌉, twice the number of pairs "
        "that complete a full turn within L_train and so meet every angle in training. For "
        "d = 128, base 10⁴ and L_train = 4,096 it is 92 (46 pairs)."),
        "long_context", _LONG, N_("critical dimension")),
    Term("base_bound", N_("smallest base for a context"), N_(
        "Men et al. 2024's lower bound on the base for a context of L tokens: the smallest "
        "base that keeps Bₘ ≥ 0 at every distance m < L. It is a condition on an average, "
        "not a hard limit."), "long_context", _LONG, N_("smallest base")),
    Term("bfloat16", N_("bfloat16, float16"), N_(
        "16-bit number formats. bfloat16 has 8 significant bits: every whole number up to "
        "256 is exact, and above it only multiples of a spacing that doubles at each power "
        "of 2 (4,096 near a million). float16 has 11 (whole numbers exact up to 2,048) and "
        "turns 65,520 and above into infinity. float32 has 24."),
        "precision", _LONG, "bfloat16"),

    Term("factor", N_("scaling factor s"), N_(
        "How many times longer the new context is: new context = s·L_train (`factor` in a "
        "config, except in dynamic NTK, where `factor` means something else)."),
        "context_extension", _EXTENSION),
    Term("interpolation", N_("position interpolation"), N_(
        "Chen et al. 2023: divide every position by s, that is θᵢ → θᵢ/s (`linear` "
        "scaling), so that s·L_train positions fit in the angles seen in training. It also "
        "slows the fast pairs, which tell nearby tokens apart; later methods spare them."),
        "context_extension", _EXTENSION),
    Term("ntk", N_("NTK-aware scaling, dynamic NTK"), N_(
        "bloc97 2023: raise the base instead, base′ = base·s^(d/(d−2)) (`ntk`). Pair 0 keeps "
        "θ₀ = 1, the slowest pair is divided by exactly s, the pairs between by less. "
        "Dynamic NTK (`dynamic`) recomputes the base from the current length."),
        "context_extension", _EXTENSION, "NTK"),
    Term("yarn", N_("YaRN"), N_(
        "Peng et al. 2023: keep the pairs that turn more than `beta_fast` = 32 times within "
        "L_train, divide by s those that turn less than `beta_slow` = 1 time, blend the pairs in "
        "between, and multiply cos and sin by the attention factor 0.1·ln s + 1."),
        "context_extension", _EXTENSION),
    Term("attention_factor", N_("attention factor"), N_(
        "A number that multiplies cos and sin after a context extension, so the scores "
        "(products of q and k) are multiplied by its square: 0.1·ln s + 1 in YaRN, "
        "√(1 + ln s / ln L_train) in LongRoPE. YaRN's authors found that it lowers "
        "perplexity over the longer context (Peng et al. 2023)."), "context_extension", _EXTENSION),
    Term("llama3", N_("Llama 3.1 scaling"), N_(
        "Meta's rule for Llama 3.1 (`llama3`; s = 8, L_train = 8,192): pairs whose "
        "wavelength is shorter than L_train/4 keep θᵢ, pairs longer than L_train are divided "
        "by s, and those between are blended."), "context_extension", _EXTENSION),
    Term("longrope", N_("LongRoPE"), N_(
        "Ding et al. 2024 (Phi-3): a factor searched for each pair, θᵢ/fᵢ, one list up to "
        "L_train (`short_factor`) and another beyond it (`long_factor`), with the attention "
        "factor √(1 + ln s / ln L_train)."), "context_extension", _EXTENSION),

    Term("window", N_("sliding window w"), N_(
        "A layer whose query sees only the last w tokens, itself included, so it never meets "
        "a distance longer than w − 1, however long the text (Mistral 7B v0.1, the local "
        "layers of Gemma 2 and 3)."), "layers_without_rope", _LAYERS, N_("sliding window")),
    Term("chunk", N_("chunked attention"), N_(
        "Llama 4's local layers cut the text into chunks of 8,192 tokens; a query sees only "
        "the keys of its own chunk, back to the chunk's start."),
        "layers_without_rope", _LAYERS),
    Term("hybrid", N_("hybrid model"), N_(
        "A model whose layers are not all alike: some attention layers rotate and others do "
        "not (NoPE layers in Llama 4, SmolLM3 and Command A), or some layers are not "
        "attention at all (Mamba, linear attention)."), "layers_without_rope", _LAYERS),
    Term("patch", N_("patch"), N_(
        "A small square of an image (14 × 14 pixels in Qwen2-VL) that a vision model reads "
        "as one token; a video adds time. It has a row and a column, not just a place in a "
        "line."), "images_video", _LAYERS),
    Term("rope_2d", N_("2D RoPE"), N_(
        "RoPE on a grid (axial): half the pairs turn with the patch's row, half with its "
        "column, so a score depends on the offset in each direction, as in Qwen2-VL's vision "
        "encoder."), "images_video", _LAYERS),
    Term("mrope", N_("M-RoPE"), N_(
        "Qwen2-VL's multimodal RoPE: every token has three position ids, t, h and w (time, "
        "height, width), and the pairs are split among them (`mrope_section`: 16, 24 and 24 "
        "of 64 pairs). A text token has t = h = w, which is plain RoPE."),
        "images_video", _LAYERS),

    Term("nope", N_("NoPE"), N_(
        "No position encoding at all: given q and k, the score is the same at every distance. "
        "A causal model still learns order, through its mask (Haviv et al. 2022; Kazemnejad "
        "et al. 2023)."), "beyond_rope", _BEYOND),
    Term("alibi", N_("ALiBi"), N_(
        "Press et al. 2022: no rotation; head h adds −slope_h·r to its score, a penalty that "
        "grows in a straight line with the distance r. With H heads (a power of 2) the "
        "slopes are 2^(−8/H), 2^(−16/H), …, 2^(−8)."), "beyond_rope", _BEYOND),
    Term("xpos", N_("xPos"), N_(
        "Sun et al. 2022: RoPE's rotation, with pair i's share of the score also multiplied "
        "by ζᵢ^(r/512), where ζᵢ = (2i/d + 0.4)/1.4 is below 1: an explicit decay with the "
        "distance r."), "beyond_rope", _BEYOND),
    Term("p_rope", N_("p-RoPE"), N_(
        "Barbero et al. 2024: rotate only the fastest fraction p of the pairs and leave the "
        "slowest ones unrotated (θ = 0). p = 1 is RoPE, p = 0 is NoPE."),
        "beyond_rope", _BEYOND),
)

BY_KEY = {term.key: term for term in TERMS}


def link(key: str, label: str | None = None) -> str:
    """A Markdown link to the term's entry on the Glossary page, in this run's language.
    A relative address (``glossary?lang=en#theta``), so that it works under any path the
    app is served at; Streamlit opens it in a new tab, and the Glossary page scrolls to the
    term's heading, whose anchor is the key."""
    term = BY_KEY[key]
    return f"[{label or _(term.name)}](glossary?lang={lang()}#{term.key})"


SHOWN_NAMES = 6  # names in the box's title; more are counted
_BOXES: dict[tuple, tuple[str, str]] = {}  # (language, keys) -> (label, Markdown)


def _box(keys: tuple[str, ...]) -> tuple[str, str]:
    """The expander's label and its text for ``keys``, once per language."""
    found = _BOXES.get((lang(), keys))
    if found is None:
        unknown = [k for k in keys if k not in BY_KEY]
        if unknown:
            raise KeyError(f"no glossary term {unknown}")
        names = [_(BY_KEY[k].short or BY_KEY[k].name) for k in keys]
        if len(names) > SHOWN_NAMES:  # a title a phone shows on two lines at most
            more = len(names) - SHOWN_NAMES + 1
            names = names[:SHOWN_NAMES - 1] + [
                ngettext("{n} more", "{n} more", more).format(n=more)]
        label = _("Terms on this page: {names}").format(names=" · ".join(names))
        text = "\n".join("- " + _("**{term}**: {definition}").format(
            term=link(k), definition=_(BY_KEY[k].text)) for k in keys)
        found = _BOXES[(lang(), keys)] = (label, text)
    return found


def terms(*keys: str) -> None:
    """A closed expander listing this page's terms with their definitions, each name a
    link to the glossary (placed where the page first uses them, under its
    introduction)."""
    label, text = _box(tuple(keys))
    with st.expander(label, icon=":material/menu_book:"):
        st.markdown(text)
