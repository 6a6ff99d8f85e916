"""The Layers without RoPE page's figures (pages/layers_without_rope.py) and the cached
tables and sentences that feed them: which presets are hybrids and of which kind, each
model's layers as a strip, how far its RoPE layers reach against the context, and Llama 4's
query temperature."""

import math

import numpy as np
import pandas as pd

import rope_core as rc
import ui
from rope_core.limits import compare
from rope_core.models import families
from ui import i18n
from ui.i18n import N_, _
from ui.layers import LAYER_KINDS, MIXER_NAMES, layer_codes, layer_strip

# the three kinds of hybrid (rope_core.models.families: the family's convention says which)
KINDS = {"nope_layers": N_("NoPE layers among RoPE layers"),
         "global_nope": N_("Global layers without RoPE"),
         "other_mixers": N_("Linear-attention and state-space hybrids"),
         "windows": N_("Every attention layer rotates; windows differ")}
KIND_NOTES = {
    "nope_layers": N_("Chosen layers skip the rotation (Llama 4's and SmolLM3's "
                      "`no_rope_layers`); the rest rotate."),
    "global_nope": N_("The global (full-attention) layers attend without rotating; only the "
                      "sliding-window layers rotate, so every rotating layer sees at most its "
                      "window."),
    "other_mixers": N_("Most layers do not attend (linear attention, Mamba, short "
                       "convolutions); the few attention layers rotate over the whole "
                       "context, or, in Granite 4.0-H (`position_embedding_type` nope) "
                       "and the released OLMo hybrid checkpoints (`rope_theta: "
                       "null`), do not rotate either."),
    "windows": N_("Some see a sliding window, the others the whole context.")}


def hybrid_kind(cfg: rc.RopeConfig) -> str | None:
    """Which kind of hybrid a preset is (None: every layer alike)."""
    if cfg.layer_specs is None or len(cfg.groups()) == 1:
        return None
    kinds = {g.spec.kind for g in cfg.groups()}
    if kinds - {"rope", "nope"}:
        return "other_mixers"
    if "nope" in kinds:
        rule = families.family([cfg.family])[1].nope
        return "nope_layers" if rule == "flags" else "global_nope"
    return "windows"


HYBRIDS = [name for name, p in rc.PRESETS.items() if hybrid_kind(p) is not None]
TEMPERATURE_POINTS = 300  # positions on the Llama 4 temperature curve


def summary_rows(configs) -> pd.DataFrame:
    """One row per model: its layers by kind, and how far its rotating layers reach.

    RoPE reach = the shortest reach of a rotating layer (the window or chunk of the
    windowed ones, else the context); longest wavelength and pairs turning within reach are
    those of the rotating layers with that reach (Gemma 3: its local layers, not its global
    ones); windowed / compressed / full-attention RoPE layers count the rotating layers
    with a window or chunk, with compressed keys beside a raw window (DeepSeek-V4; their
    fewest and most tokens per key and raw window beside), and with neither; NoPE reach is
    the context when there are such layers (a NoPE attention sees every earlier token);
    other mixers names the token mixers of the layers that do not attend (linear
    attention, mamba, conv: a recurrence carries its state along the whole input, a short
    convolution sees a few tokens)."""
    rows = []
    for cfg in configs:
        groups = cfg.groups()
        rope = [g for g in groups if g.spec.rotates]
        count = {k: sum(len(g.layers) for g in groups if g.spec.kind == k)
                 for k in ("rope", "nope")}
        other = cfg.layers - count["rope"] - count["nope"]
        mixers = sorted({g.spec.mixer for g in groups if g.spec.mixer != "attention"})
        windowed = sum(len(g.layers) for g in rope if g.spec.windowed)
        compressed = [g.spec for g in rope if g.spec.attention == "compressed"]
        rates = {spec.compress for spec in compressed}
        reach = min(g.spec.reach(cfg.max_context) for g in rope) if rope else math.nan
        shortest = [g for g in rope if g.spec.reach(cfg.max_context) == reach]
        waves, turning = [], []
        for g in shortest:
            theta, _ = g.spec.theta(cfg.max_context)  # (d/2,)
            w = (2 * math.pi / theta).tolist()
            waves.append(max(w))
            turning.append(sum(x <= reach for x in w))
        rows.append({
            "model": cfg.name, "hybrid": hybrid_kind(cfg) or "", "layers": cfg.layers,
            "RoPE layers": count["rope"], "NoPE layers": count["nope"], "other layers": other,
            "windowed RoPE layers": windowed,
            "full-attention RoPE layers":
                count["rope"] - windowed - sum(len(g.layers) for g in rope
                                               if g.spec.attention == "compressed"),
            "compressed RoPE layers": sum(len(g.layers) for g in rope
                                          if g.spec.attention == "compressed"),
            # tokens per compressed key: DeepSeek-V4's layers use two rates (4 and 128)
            "compressed every (fewest) [tokens]": min(rates, default=math.nan),
            "compressed every (most) [tokens]": max(rates, default=math.nan),
            "compressed raw window [tokens]": max((spec.window for spec in compressed),
                                                  default=math.nan),
            "context [tokens]": cfg.max_context, "RoPE reach [tokens]": reach,
            "NoPE reach [tokens]": cfg.max_context if count["nope"] else math.nan,
            "other mixers": " ".join(mixers),
            "longest wavelength [tokens]": max(waves) if waves else math.nan,
            "pairs turning within reach": min(turning) if turning else 0,
            "pairs": shortest[0].spec.rotary_dim // 2 if shortest else 0,
        })
    return pd.DataFrame(rows)


@ui.table
def layers(names: tuple) -> dict:
    """Per layer (compare.layer_table) and one summary row per model (summary_rows)."""
    configs = [rc.PRESETS[n] for n in names]
    return {"layers": compare.layer_table(configs), "summary": summary_rows(configs)}


@ui.table
def overview() -> pd.DataFrame:
    """Every hybrid preset: its kind, layers and reach (summary_rows)."""
    return summary_rows([rc.PRESETS[n] for n in HYBRIDS])


@ui.table
def temperature(context: int, floor_scale: float, attn_scale: float) -> pd.DataFrame:
    """Llama 4's NoPE query scale at log-spaced positions up to the context."""
    p = np.unique(np.round(np.geomspace(1, context, TEMPERATURE_POINTS))).astype(np.int64) - 1
    scale = rc.query_scale("llama4", floor_scale, attn_scale, p.tolist())  # (P,)
    return pd.DataFrame({"floor_scale": floor_scale, "attn_scale": attn_scale,
                         "position": p, "query scale": scale.numpy()})


@ui.figure
def pattern_figure(names: tuple) -> ui.Frozen:
    """Each model's layers as a row of cells, coloured by what the layer does."""
    table = layers(names)["layers"]
    depth = int(table["layer"].max()) + 1
    line = _("layer {layer}: {what}; reaches {reach} tokens")
    whats = {c: _(label) for c, (_color, label) in LAYER_KINDS.items()}
    reaches: dict = {}  # a few distinct reaches per model, written once each
    z, text = [], []
    for name in names:
        block = table[table["model"] == name]
        cells = layer_codes(block["kind"], block["attention"]).tolist()
        hover = []
        for layer, c, reach in zip(block["layer"].tolist(), cells,
                                   block["reach [tokens]"].tolist()):
            if reach not in reaches:
                reaches[reach] = i18n.integer(int(reach))
            hover.append(line.format(layer=int(layer), what=whats[c], reach=reaches[reach]))
        z.append(cells + [None] * (depth - len(cells)))
        text.append(hover + [""] * (depth - len(cells)))
    return layer_strip(list(names), z, text, _("Which layers rotate"))


@ui.figure
def reach_figure(names: tuple) -> ui.Frozen:
    """Per model: how far a RoPE layer sees, its slowest pair's wavelength, the context."""
    summary = layers(names)["summary"]
    bars = (("RoPE reach [tokens]", _("shortest RoPE reach (window or context)"),
             ui.COLORS[5]),
            ("longest wavelength [tokens]", _("slowest pair's wavelength in those layers"),
             ui.COLORS[3]),
            ("context [tokens]", _("configured context (a NoPE layer sees all of it)"),
             ui.COLORS[0]))
    traces = [dict(type="bar", y=summary["model"].tolist(), x=ui.typed(summary[column]),
                   name=label, orientation="h", marker=dict(color=color),
                   hovertemplate="%{y}: %{x:,.0f}<extra>" + label + "</extra>")
              for column, label, color in bars]
    return ui.kept_figure(traces,
                       title=_("How far RoPE layers reach, against the context (log scale)"),
                       x=_("tokens (log scale)"), y="", height=160 + 70 * len(names),
                       xaxes=ui.LOG_AXIS, yaxes=dict(autorange="reversed"),
                       layout=dict(barmode="group"))


@ui.figure
def temperature_figure(context: int, floor_scale: float, attn_scale: float) -> ui.Frozen:
    """Llama 4's query scale of its NoPE layers against the position."""
    t = temperature(context, floor_scale, attn_scale)
    trace = dict(type="scatter", x=ui.typed(t["position"].to_numpy() + 1),
                 y=ui.typed(t["query scale"].to_numpy()), mode="lines",
                 line=dict(color=ui.COLORS[1], shape="hv"), name=_("query scale"),
                 hovertemplate=_("p={position}<br>scale={scale}").format(
                     position="%{x:,}", scale="%{y:.4f}") + "<extra></extra>")
    return ui.kept_figure([trace],
                       title=_("Llama 4: NoPE layers scale their queries with log position"),
                       x=_("position p + 1 [tokens] (log scale)"), y=_("query scale"),
                       height=380, xaxes=ui.LOG_AXIS)


def reach_sentence(row) -> str:
    """How far a model's rotating layers reach, and what sees the rest of the context."""
    reach = row["RoPE reach [tokens]"]
    numbers = dict(model=row["model"], reach=i18n.integer(0 if math.isnan(reach) else int(reach)),
                   turning=int(row["pairs turning within reach"]), pairs=int(row["pairs"]),
                   context=i18n.integer(int(row["context [tokens]"])),
                   rope=int(row["RoPE layers"]), n=int(row["layers"]),
                   nope=int(row["NoPE layers"]), other=int(row["other layers"]),
                   windowed=int(row["windowed RoPE layers"]),
                   full=int(row["full-attention RoPE layers"]),
                   mixer=_(", ").join(_(MIXER_NAMES[m]) for m in row["other mixers"].split()))
    if not numbers["rope"]:
        return _("{model}: none of its {n} layers rotates; its {nope} attention layers see "
                 "the whole context of {context} tokens without positions, the other {other}, "
                 "{mixer} layers, mix tokens without attention").format(**numbers)
    if numbers["other"]:
        return _("{model}: {rope} of {n} layers attend and rotate, over the whole context of "
                 "{context} tokens ({turning} of {pairs} pairs turn at least once); the other "
                 "{other}, {mixer} layers, mix tokens without positions").format(**numbers)
    if numbers["nope"] and not numbers["full"]:
        return _("{model}: its {rope} RoPE layers see at most {reach} tokens ({turning} of "
                 "{pairs} pairs turn at least once); only its {nope} NoPE layers see the whole "
                 "context of {context} tokens").format(**numbers)
    if numbers["nope"] and numbers["windowed"]:
        return _("{model}: its {rope} RoPE layers see at most {reach} tokens (chunks or "
                 "windows; {turning} of {pairs} pairs turn at least once); its {nope} NoPE "
                 "layers see the whole context of {context} tokens").format(**numbers)
    if numbers["nope"]:
        return _("{model}: its {rope} RoPE layers and its {nope} NoPE layers all see the "
                 "whole context of {context} tokens ({turning} of {pairs} pairs turn at least "
                 "once)").format(**numbers)
    if row["compressed RoPE layers"] and numbers["windowed"]:
        every = dict.fromkeys((row["compressed every (fewest) [tokens]"],
                               row["compressed every (most) [tokens]"]))
        return _("{model}: its {windowed} windowed RoPE layers see at most {reach} tokens "
                 "({turning} of {pairs} pairs turn at least once); its {compressed} "
                 "compressed RoPE layers reach the whole context of {context} tokens through "
                 "compressed keys, one per {every} tokens, beside a raw window of the last "
                 "{raw}").format(compressed=int(row["compressed RoPE layers"]),
                                 every=_(" or ").join(i18n.integer(int(c)) for c in every),
                                 raw=i18n.integer(int(row["compressed raw window [tokens]"])),
                                 **numbers)
    if numbers["full"] and numbers["windowed"]:
        return _("{model}: its {windowed} windowed RoPE layers see at most {reach} tokens "
                 "({turning} of {pairs} pairs turn at least once); its {full} global RoPE "
                 "layers see the whole context of {context} tokens").format(**numbers)
    return _("{model}: its RoPE layers see the whole context of {context} tokens, where "
             "{turning} of {pairs} pairs turn at least once").format(**numbers)


@ui.prose
def reach_sentences(kind: str) -> tuple[str, ...]:
    """reach_sentence of every hybrid of ``kind`` (the overview's rows, in order),
    written once per language."""
    every = overview()
    return tuple(reach_sentence(row) for _i, row in every[every["hybrid"] == kind].iterrows())


@ui.prose
def pattern_sentence(names: tuple) -> tuple[str, tuple[str, ...]]:
    """The text under the layer pattern: what the colours mean, then each model's layers by
    kind, one line each; once per set of models and language."""
    summary = layers(names)["summary"]
    pattern_text = []
    for _i, row in summary.iterrows():
        numbers = dict(model=row["model"], rope=int(row["RoPE layers"]), n=int(row["layers"]),
                       nope=int(row["NoPE layers"]), other=int(row["other layers"]))
        if numbers["other"] and numbers["nope"]:
            pattern_text.append(_("{model}: {rope} of {n} layers rotate, {nope} attend without "
                                  "rotating, {other} do not attend.").format(**numbers))
        elif numbers["other"]:
            pattern_text.append(_("{model}: {rope} of {n} layers attend and rotate, {other} do "
                                  "not attend.").format(**numbers))
        elif not numbers["nope"]:
            pattern_text.append(_("{model}: all {n} layers rotate.").format(**numbers))
        else:
            pattern_text.append(_("{model}: {rope} of {n} layers rotate, {nope} do "
                                  "not.").format(**numbers))
    return _("**What to notice.** Grey cells are NoPE layers: attention like the others, "
             "but q and k are not rotated; brown cells do not attend at all, so they have "
             "nothing to rotate."), tuple(pattern_text)


@ui.prose
def reach_notes(names: tuple) -> tuple[str, str, tuple[str, ...], str]:
    """The text under the reach, once per set of models and language: what a windowed and
    a full-attention RoPE layer reach, what the bars show, how far each model's RoPE layers
    reach (reach_sentence, one line each), and what float32 does to the angles far into
    Llama 4 Scout's context."""
    summary = layers(names)["summary"]
    # transformers and Meta's code form each angle m·θᵢ in float32 from the absolute position:
    # its error at m = 10⁷ for Scout's head dim and base (before its llama3 scaling)
    scout = rc.PRESETS["Llama 4 Scout"]
    far = 10**7
    offset, rounding = (v.numpy() for v in rc.float32_angle_parts(far, scout.rotary_dim,
                                                                   scout.base))
    reach = _("**How far each RoPE layer reaches.** A windowed RoPE layer never meets a "
              "distance longer than its window (a sliding window of w tokens reaches w − 1 "
              "back; an attention chunk back to the chunk's start), so in exact arithmetic "
              "its angles stay those of training however long the input. A RoPE layer with "
              "full attention (the global layers of Gemma and gpt-oss, SmolLM3's RoPE layers, "
              "the few attention layers of Qwen3-Next and LFM2) sees the whole context.")
    bars = _("The bars show each model's shortest-reaching RoPE layers and their slowest "
             "pair's wavelength: a pair whose wavelength exceeds the window turns less than "
             "once within it, and the slowest barely move.")
    models = tuple(reach_sentence(row) + "." for _i, row in summary.iterrows())
    float32 = _("In float32, though, as transformers and Meta's reference code form them, each "
                "angle is the product m·θᵢ of a token's absolute position, not of the distance, "
                "and the product is rounded: at m = {m} (d = {dim}, base {base}, Scout's head dim "
                "and base before its scaling) the rounding reaches {rounding} rad and differs from "
                "one position to the next, so a query and a key in one window no longer differ by "
                "exactly the angle of their distance. Far into a long input, then, even a windowed "
                "layer meets angle differences that training, at shorter positions, never "
                "produced; Llama 4 Scout is configured for {context} tokens. The rest of the "
                "float32 error, up to {offset} rad, is a fixed change of frequency (float32's θᵢ "
                "in place of the exact one), the same for q and k, so it leaves scores depending "
                "on the distance alone (Precision page).").format(
        m=i18n.integer(far), dim=scout.rotary_dim, base=ui.fmt_base(scout.base),
        offset=f"{float(np.abs(offset).max()):.2g}",
        rounding=f"{float(np.abs(rounding).max()):.2g}",
        context=i18n.integer(scout.max_context))
    return reach, bars, models, float32
