"""The Serve it longer page's figures (pages/serving.py), the cached tables behind them and
its CSVs, and the sentences it writes from a model and the engines' entries: the model's
caption, the four engines' lines, the cautions, and the config doctor's findings."""

import math

import streamlit as st

import rope_core as rc
import ui
from rope_core.limits import compare
from rope_core.models import doctor, serving
from rope_core.models.presets import CARD_RECIPES, NOTES, PRESETS
from ui import i18n
from ui.i18n import N_, _

AUTO = "auto"  # a parameter left to the model (its own value) or to transformers' default
LANGUAGE = {"transformers": "json", "vLLM": "bash", "SGLang": "bash", "llama.cpp": "bash"}
BEFORE, AFTER, OUT = ui.COLORS[0], ui.COLORS[1], ui.COLORS[4]
DOCTOR_TABLE_ENTRIES = 4  # pasted texts whose findings are kept (each text up to 1 MB)

# What the config doctor checks, one line each (rope_core.models.doctor.CHECKS, in order)
DOCTOR_CHECKS = (
    N_("`type` and `rope_type` that disagree;"),
    N_("`rope_scaling` and `rope_parameters` that mean different scalings;"),
    N_("a YaRN `factor` that disagrees with `max_position_embeddings` / "
       "`original_max_position_embeddings`;"),
    N_("`dynamic` put in place of a model's own llama3 or YaRN scaling;"),
    N_("scaling that belongs to the global layers only (Gemma 3, OLMo 3): a flat "
       "`rope_parameters` or scaled sliding-window layers;"),
    N_("a vision-language model's RoPE keys outside `text_config`;"),
    N_("`rope_parameters` without `rope_theta` and no base elsewhere, or two bases;"),
    N_("YaRN added at inference, which short inputs run with too (told apart by "
       "`model_type` from a model that ships with it)."),
)


def option(value) -> str:
    """A parameter option as shown and carried by the link: "auto" in the run's language,
    a number as written."""
    return _("auto") if value == AUTO else f"{value:g}"


@ui.table
def tables(key: tuple, target: int, method: str, params: tuple) -> dict:
    """The settings table and the per-pair range table of a choice (rope_core.models.serving),
    once per setting."""
    cfg = compare.config_from_key(key)
    return {"settings": serving.settings_table(cfg, target, method, **dict(params)),
            "range": serving.range_table(cfg, target, method, **dict(params))}


@ui.table
def context_tables(key: tuple, target: int) -> dict:
    """The plain context lines of a target that needs no RoPE change, as a table."""
    return {"settings": serving.context_table(compare.config_from_key(key), target)}


@ui.table(max_entries=DOCTOR_TABLE_ENTRIES)
def doctor_tables(text) -> dict:
    """The config doctor's findings for one pasted or uploaded text ("list") and as a table
    ("findings"); raises rope_core's ValueError for text that is not a JSON object."""
    found = doctor.diagnose(text)
    return {"list": found, "findings": doctor.findings_table(found)}


@ui.table
def summary(key: tuple, target: int, method: str, params: tuple) -> dict:
    """What the metrics and the text quote from the tables, once per setting: L, s, a and
    the softmax multiplier m of the settings, how many pairs there are, how many never
    turn within what they have seen and how many are pushed past it."""
    computed = tables(key, target, method, params)
    lead = computed["settings"].iloc[0]
    ranges = computed["range"]
    return {"L": int(lead["original context L [tokens]"]), "scale": float(lead["scale s = T/L"]),
            "a": float(lead["attention factor a"]),
            "softmax": float(lead["softmax scale multiplier m"]),
            "pairs": len(ranges), "pushed": int(ranges["pushed out"].sum()),
            "never": int((~ranges["turned"]).sum())}


@ui.figure
def wavelength_figure(key: tuple, target: int, method: str, params: tuple) -> ui.Frozen:
    """Each pair's wavelength before and after, the model's reach R and the target T
    dotted."""
    r = tables(key, target, method, params)["range"]
    pairs = r["pair"].to_numpy()
    reach = int(r["reach R [tokens]"].iloc[0])
    hover = _("λ={value} tokens").format(value="%{y:,.1f}")
    traces = [dict(type="scatter", x=pairs, y=r[column].to_numpy(), name=name, mode="lines",
                   line=dict(color=color, dash=dash),
                   hovertemplate="i=%{x}<br>" + hover + "<extra></extra>")
              for column, name, color, dash in (
                  ("wavelength before [tokens]", _("before (as the model is)"), BEFORE, "solid"),
                  ("wavelength after [tokens]", _("after ({method}, T = {target})").format(
                      method=method, target=i18n.integer(target)), AFTER, "dash"))]
    marks = ((reach, "R", "black", 0, "left"), (target, "T", "#666666", 1, "right"))  # 5.7:1
    return ui.kept_figure(
        traces, title=_("Wavelength 2π/θᵢ before and after (log scale)"),
        x=_("pair index i"), y=_("wavelength [tokens]"), height=400, yaxes=ui.LOG_AXIS,
        shapes=tuple(ui.hline(tokens, color) for tokens, _text, color, _x, _a in marks),
        annotations=tuple(
            dict(x=x, xref="paper", xanchor=anchor, y=math.log10(tokens),
                 yanchor="bottom", showarrow=False, font=dict(size=13, color=color),
                 text=_("{length} = {n} tokens").format(length=text, n=i18n.integer(tokens)))
            for tokens, text, color, x, anchor in marks))


@ui.figure
def angle_figure(key: tuple, target: int, method: str, params: tuple) -> ui.Frozen:
    """Per pair, the largest angle at T over the largest angle it has seen; the pairs
    pushed past what they saw in their own colour."""
    r = tables(key, target, method, params)["range"]
    pairs, ratio = r["pair"].to_numpy(), r["angle ratio"].to_numpy()
    pushed, turned = r["pushed out"].to_numpy(), r["turned"].to_numpy()
    hover = "i=%{x}<br>" + _("ratio") + "=%{y:.4g}<extra></extra>"
    groups = ((turned, _("turned: every angle seen"), BEFORE),
              (~turned & ~pushed, _("inside the angles seen"), ui.COLORS[2]),
              (pushed, _("pushed past the angles seen"), OUT))
    traces = [dict(type="scatter", x=pairs[rows], y=ratio[rows], name=name, mode="markers",
                   marker=dict(color=color, size=6), hovertemplate=hover)
              for rows, name, color in groups if rows.any()]
    return ui.kept_figure(
        traces, title=_("Largest angle at T over the largest angle seen (log scale)"),
        x=_("pair index i"), y=_("T·θ′ᵢ / largest angle seen"), height=400, yaxes=ui.LOG_AXIS,
        shapes=(ui.hline(1.0, "black"),))


def model_caption(cfg: rc.RopeConfig, name: str, preset: str | None) -> str:
    """What the page says of the model: its rotary dims and base, what its L is (its
    training context where a source gives it, else only its configured context), its own
    scaling, and a preset's note. ``name`` is already escaped."""
    dims = dict(model=name, rotary=cfg.rotary_dim, head=cfg.head_dim,
                base=ui.fmt_base(cfg.base), length=i18n.integer(cfg.original_context),
                reach=i18n.integer(serving.reach(cfg)))
    counts = serving.layer_counts(cfg)
    if counts.layers is not None and counts.rope == 0:
        text = _("{model}: none of its {layers} layers rotates its queries and keys; "
                 "configured for {length} tokens (`max_position_embeddings`).").format(
            layers=counts.layers, **dims)
    elif cfg.method != "none":
        text = _("{model}: rotary dim {rotary} of head dim {head}, base {base}; its own "
                 "scaling, {method} ×{factor} from L = {length}, is built for {built} tokens; "
                 "configured for {configured} tokens (`max_position_embeddings`).").format(
            method=_(rc.SCALING_LABELS[cfg.method]),
            factor=f"{serving.built_context(cfg) / cfg.original_context:g}",
            built=i18n.integer(serving.built_context(cfg)),
            configured=i18n.integer(cfg.max_context), **dims)
        if cfg.training_context is not None and cfg.training_context != cfg.original_context:
            text += " " + _("Its source gives a training context of {n} tokens.").format(
                n=i18n.integer(cfg.training_context))
    elif cfg.training_context is not None:
        text = _("{model}: rotary dim {rotary} of head dim {head}, base {base}, no scaling; "
                 "L = {length} tokens, the context its source says it was trained at.").format(
            **dims)
    else:
        text = _("{model}: rotary dim {rotary} of head dim {head}, base {base}, no scaling; "
                 "L = its configured context, {length} tokens (`max_position_embeddings`), "
                 "the only one its `config.json` gives; no source here gives its training "
                 "context.").format(**dims)
    if preset is not None and preset in NOTES:
        text += " " + _(NOTES[preset])
    return text


def recipe_note(preset: str | None) -> str | None:
    """For a preset that is a model card's recipe merged into config.json
    (presets.CARD_RECIPES), what its plain context lines need; else None."""
    if preset not in CARD_RECIPES:
        return None
    base = CARD_RECIPES[preset]
    return _("This preset is {base}'s `config.json` with its model card's long-context "
             "recipe merged in ({method}, `max_position_embeddings` {configured}). These lines "
             "change no RoPE setting, so they serve that context only from a `config.json` (or "
             "a GGUF converted from it) that already carries the recipe. From the Hub's "
             "`config.json` (`max_position_embeddings` {hub}) vLLM and SGLang refuse a longer "
             "context, and a GGUF converted from it, as the model's own GGUF is "
             "(`context_length` {hub}, no scaling), is capped there: choose {base} and "
             "{method} at {configured} tokens, whose lines write the "
             "recipe.").format(
        base=base, method=PRESETS[preset].method,
        configured=i18n.integer(PRESETS[preset].max_context),
        hub=i18n.integer(PRESETS[base].max_context))


def show_notes(notes) -> None:
    """The cautions of a choice: a choice that gains nothing or goes past every published
    recipe warns (serving.WARNING_KINDS), the others inform."""
    for kind, message in notes:
        if kind in serving.WARNING_KINDS:
            st.warning(i18n.markdown_message(message), icon=":material/priority_high:")
        else:
            st.info(i18n.markdown_message(message), icon=":material/priority_high:")


def show_entries(settings: dict) -> None:
    """One bordered box per engine: its line to copy (or what to do instead), its notes, or
    its refusal, and where its names come from."""
    for engine in serving.ENGINES:
        entry = settings[engine]
        with st.container(border=True):
            st.markdown(f"**{engine}**")
            if not entry["supported"]:
                st.warning(i18n.markdown_message(entry["refusal"]), icon=":material/block:")
            else:
                if entry["command"]:
                    st.caption(_entry_caption(engine, entry["settings"]))
                    st.code(entry["command"], language=LANGUAGE[engine], wrap_lines=True)
                for note in entry["notes"]:
                    st.caption(i18n.markdown_message(note))
            st.caption(_("Names from: {source}").format(source=f"`{entry['source']}`"))


def _entry_caption(engine: str, settings: dict) -> str:
    """How to use an engine's line: the JSON merged into config.json (into its text_config
    where the model keeps one), or a command line."""
    if engine != "transformers":
        return _("Command line (MODEL: the model's path or name):")
    keys = settings.get("text_config", settings)
    clears = _(" `rope_scaling: null` stops an older key from winning over it.") \
        if "rope_scaling" in keys else ""
    if "text_config" in settings:
        return _("Merge into the model's `config.json` key by key: the keys under "
                 "`text_config` go into its `text_config`, where this model keeps its language "
                 "model (replacing the whole `text_config` would drop its other fields). "
                 "transformers 5 reads `rope_parameters`.{clears}").format(clears=clears)
    return _("Merge into the model's `config.json` (transformers 5 reads "
             "`rope_parameters`).{clears}").format(clears=clears)


def show_findings(findings) -> None:
    """The config doctor's findings, one warning each: the key, what goes wrong, the fix and
    where it is reported and done; or that none of the checked mistakes is there."""
    if not findings:
        st.success(_("None of the mistakes below is in this `config.json`."),
                   icon=":material/check:")
        return
    for finding in findings:
        st.warning(_("**{key}**: {problem}\n\n*Fix:* {fix}\n\n*Source:* {source}").format(
            key=ui.quoted(finding.key), problem=i18n.markdown_message(finding.problem),
            fix=i18n.markdown_message(finding.fix), source=f"`{finding.source}`"),
            icon=":material/stethoscope:")
