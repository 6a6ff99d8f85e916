"""Serve it longer: from a model and a target context to the settings that transformers,
vLLM, SGLang and llama.cpp need, beside what those settings do to the spectrum; and a
config doctor for the visitor's own config.json."""

import streamlit as st

import rope_core as rc
import ui
from rope_core.limits import compare
from rope_core.models import serving
from rope_core.models.config import MAX_JSON_BYTES
from ui import i18n
from ui.configs import config_input, config_text, shown_name
from ui.i18n import _
from views.serving import (
    AUTO,
    DOCTOR_CHECKS,
    angle_figure,
    context_tables,
    doctor_tables,
    model_caption,
    option,
    recipe_note,
    show_entries,
    show_findings,
    show_notes,
    summary,
    tables,
    wavelength_figure,
)

MODEL_OPTIONS = list(rc.PRESETS)
DEFAULT_MODEL = "Qwen2.5 7B"
TARGETS = [2**e for e in range(12, 24)]  # 4,096 ... 8,388,608 tokens (rope_core: at most 10^7)
DEFAULT_TARGET = 131_072
METHODS = list(serving.METHODS)
ORIGINALS = [AUTO] + [2**e for e in range(10, 20)]  # L: 1,024 ... 524,288 tokens
DYNAMIC_FACTORS = [1, 2, 4, 8, 16, 32]
BETA_FAST = [AUTO, 8, 16, 32, 64]
BETA_SLOW = [AUTO, 0.5, 1, 2]
LOW_FREQ = [AUTO, 1, 2, 4]
HIGH_FREQ = [AUTO, 1, 2, 4, 8]
# the parameters a method's controls set: (Hugging Face name, options, widget key)
METHOD_PARAMS = {"yarn": (("beta_fast", BETA_FAST, "sv_beta_fast"),
                          ("beta_slow", BETA_SLOW, "sv_beta_slow")),
                 "llama3": (("low_freq_factor", LOW_FREQ, "sv_low"),
                            ("high_freq_factor", HIGH_FREQ, "sv_high"))}


s = ui.settings()
ui.intro(
    _("Serve it longer"),
    _("Choose a model, the context you want it to run at and a context-extension method: "
      "this page writes the settings for Hugging Face transformers (the dict to merge into "
      "`config.json`), vLLM, SGLang and llama.cpp (their command lines), and shows what the "
      "change does to the model's spectrum. The sidebar settings do not apply here."))
st.markdown(_(
    "Every line that changes RoPE gives each of the model's RoPE layers the θᵢ shown below "
    "for it, with the same attention factor and softmax scale; an engine whose code would do "
    "anything else gets no line and says why."))
with st.expander(_("When no RoPE change is needed, and which engine versions were checked")):
    ui.paragraphs(
        _("A target the model already reaches (or that no RoPE layer of it can meet) needs no "
          "RoPE change: the page then gives only the context flags, with a note where an "
          "engine runs the model's own spectrum otherwise than transformers."),
        _("Checked against the code of vLLM {vllm}, SGLang {sglang}, llama.cpp {llama} "
          "(the copy in llama-cpp-python {python}) and transformers {transformers}. vLLM "
          "{vllm} requires transformers {vllm_pin} and SGLang {sglang} pins {sglang_pin}: "
          "the transformers code their lines go through does the same in {pinned}, except "
          "that its `rope_scaling` setter does not complete the dict it is given, so every "
          "SGLang line writes `rope_type` and `rope_theta` into it.").format(
            transformers=serving.ENGINE_VERSIONS["transformers"],
            vllm=serving.ENGINE_VERSIONS["vLLM"], sglang=serving.ENGINE_VERSIONS["SGLang"],
            llama=serving.ENGINE_VERSIONS["llama.cpp"], python=serving.LLAMA_CPP_PYTHON,
            vllm_pin=serving.ENGINE_TRANSFORMERS["vLLM"],
            sglang_pin=serving.ENGINE_TRANSFORMERS["SGLang"],
            pinned=serving.TRANSFORMERS_PINNED))

c1, c2 = st.columns([3, 2])
model = ui.choice(_("Model"), MODEL_OPTIONS, DEFAULT_MODEL, "sv_model", container=c1)
with c2:
    mine = config_input(
        "sv", _("Use your own `config.json`"),
        _("Paste or upload a model's `config.json` (at most {most} bytes); it is used instead "
          "of the preset, and the config doctor at the end of the page checks it. An uploaded "
          "file is used before pasted text.").format(most=i18n.integer(MAX_JSON_BYTES)),
        _("Using {name} instead of the preset."))
cfg = mine if mine is not None else rc.PRESETS[model]
name = ui.plain(shown_name(cfg.name))
reach = serving.reach(cfg)
st.caption(model_caption(cfg, name, None if mine is not None else model))

c1, c2 = st.columns(2)
target = ui.select_slider(_("Target context T [tokens]"), TARGETS, DEFAULT_TARGET, "sv_target",
                          container=c1, fmt=str,
                          help=_("The context the engine should run the model at. Up to what "
                                 "the model already reaches, only the context flags change."))
method = ui.choice(_("Method"), METHODS, "yarn", "sv_method", container=c2,
                   help=_("`yarn`: NTK-by-parts with an attention factor; `linear`: position "
                          "interpolation; `ntk`: static NTK-aware base change; `dynamic`: "
                          "dynamic NTK; `llama3`: Llama 3.1's wavelength bands; `longrope`: "
                          "searched per-pair factors (only for a model that has them)."))
spec = rc.SCALINGS[method]
st.caption(_("**{label}**: {description} *{citation}.*").format(
    label=_(spec.label), description=_(spec.description), citation=_(spec.citation)))

with st.expander(_("Parameters of the method"), expanded=method in ("dynamic",)):
    p1, p2, p3 = st.columns(3)
    original = ui.select_slider(
        _("L, where the scaling starts [tokens]"), ORIGINALS, AUTO, "sv_L", container=p1,
        fmt=option, help=_("original_max_position_embeddings. auto: the model's own, "
                           "{length} tokens (where it was trained, or where its own scaling "
                           "starts).").format(length=i18n.integer(cfg.original_context)))
    params = {} if original == AUTO else {"original_max_position_embeddings": original}
    if method == "dynamic":  # transformers' own knob, not the extension
        params["factor"] = float(ui.select_slider(
            _("transformers' `factor` f for dynamic NTK"), DYNAMIC_FACTORS, 1, "sv_dyn_f",
            container=p2, fmt=str,
            help=_("α = f·n/L − (f − 1) once the current length n exceeds L; f = 1 is YaRN's "
                   "definition (α = n/L).")))
    for (param, options, key), column in zip(METHOD_PARAMS.get(method, ()), (p2, p3)):
        value = ui.select_slider(f"`{param}`", options, AUTO, key, container=column,
                                 fmt=option)
        if value != AUTO:
            params[param] = float(value)
    st.caption(_("auto: the model's own value when the method is its own; else, for yarn, "
                 "transformers' defaults (`beta_fast` 32, `beta_slow` 1) and, for llama3, whose "
                 "keys transformers requires (it has no defaults for them), Llama 3.1's "
                 "published values (`low_freq_factor` 1, `high_freq_factor` 4), which are "
                 "written out."))

key = compare.config_key(cfg)
params_key = tuple(sorted(params.items()))
plain_reason = serving.no_change(cfg, target)
if plain_reason is not None:
    # the model reaches T already, or no RoPE layer meets a longer distance: context flags only
    kind, message = plain_reason
    st.header(_("The settings"))
    st.success(i18n.markdown_message(message), icon=":material/check:")
    if kind == "windows":
        st.caption(_("No {method} line is given for this target: where the window is applied "
                     "it would only change the angles of distances the model was trained "
                     "on.").format(method=method))
    recipe = recipe_note(None if mine is not None else model)
    if recipe is not None:
        st.info(recipe, icon=":material/info:")
    show_entries(serving.context_settings(cfg, target))
    ui.download(context_tables, key, target, filename=f"serve_context_T{target}.csv",
                label=_("settings table"), key="sv_context_csv", part="settings")
elif method == "longrope" and cfg.method != "longrope":
    st.info(_("LongRoPE divides each pair by a factor searched for one model; only a model "
              "whose `config.json` carries them (Phi-3.5 mini, Phi-4-mini) can be served "
              "longer with it."), icon=":material/info:")
else:
    try:  # a choice rope_core refuses (L above the model's, s above 1000): said, not raised
        settings = serving.engine_settings(cfg, target, method, **params)
        notes = serving.serving_notes(cfg, target, method, **params)
        tables(key, target, method, params_key)
    except ValueError as err:
        ui.warning(i18n.error_text(err))
        settings = None
    if settings is not None:
        quoted = summary(key, target, method, params_key)
        L, scale, a, softmax = quoted["L"], quoted["scale"], quoted["a"], quoted["softmax"]

        st.header(_("What the change does"))
        metrics = ui.row()
        pairs, pushed, never = quoted["pairs"], quoted["pushed"], quoted["never"]
        metrics.metric(_("scale s = T / L"), f"{scale:.4g}",
                       help=_("T = {target}, L = {length}").format(
                           target=i18n.integer(target), length=i18n.integer(L)))
        metrics.metric(_("attention factor a at T"), f"{a:.4f}",
                       help=_("a multiplies cos and sin for q and for k: the rotated part of "
                              "each logit is multiplied by a² = {square}.").format(
                           square=f"{a * a:.4f}"))
        metrics.metric(_("pairs pushed past the angles seen"), f"{pushed} / {pairs}")
        if softmax != 1.0 or cfg.softmax_scale != 1.0:  # DeepSeek's mscale², outside RoPE
            metrics.metric(_("softmax scale × m"), f"{softmax:.4f}",
                           help=_("Outside RoPE, {model}'s attention multiplies its softmax "
                                  "scale by m (as configured: {own}): the whole logit is "
                                  "multiplied by m, its rotated part by a²·m = {total}.").format(
                               model=name, own=f"{cfg.softmax_scale:.4f}",
                               total=f"{a * a * softmax:.4f}"))
        left, right = st.columns(2)
        with left:
            ui.show(wavelength_figure(key, target, method, params_key), key="sv_wave_plot",
                    alt=_("Line chart, log scale: each pair's wavelength 2π/θᵢ against the pair "
                          "index i, before (the model as it is) and after the chosen scaling "
                          "for the target length T, with the model's reach R and the target T "
                          "as dotted horizontal lines."), table=_("per-pair table"))
        with right:
            ui.show(angle_figure(key, target, method, params_key), key="sv_angle_plot",
                    alt=_("Scatter chart, log scale: for each pair, the largest angle at the "
                          "target T divided by the largest angle it reaches within R, against "
                          "the pair index i, coloured by whether the pair turns within R, stays "
                          "inside the angles seen, or is pushed past them; a line marks 1."),
                    table=_("per-pair table"))
        ui.explain(
            _("**Before** is the model as it is, up to R = {reach} tokens (its trained "
              "context, or where its own scaling takes it); **after** is the spectrum every "
              "line below gives, at T = {target}.").format(
                reach=i18n.integer(reach), target=i18n.integer(target)),
            _("{never} of {pairs} pairs never complete a turn within what they have seen; "
              "{pushed} of them reach larger angles at T, angles no training step "
              "produced.").format(never=never, pairs=pairs, pushed=pushed))
        with st.expander(_("The largest angle a pair has seen")):
            ui.explain(_(
                "The largest angle a pair has seen is R·θᵢ or, for a model whose source says "
                "it was trained at L with the unscaled spectrum (such as Mistral 7B v0.1, "
                "Qwen2.5 and Qwen3, and, before their own scaling, Gemma 3 and the Qwen "
                "presets with YaRN), the larger of that and L·base^(−2i/d)."))

        if notes:
            st.header(_("Before you copy"))
            show_notes(notes)

        st.header(_("The settings"))
        show_entries(settings)
        # the file name carries no visitor text
        ui.download(tables, key, target, method, params_key,
                    filename=f"serve_{method}_T{target}_L{L}.csv", label=_("settings table"),
                    key="sv_settings_csv", part="settings")
        ui.download(tables, key, target, method, params_key,
                    filename=f"serve_{method}_T{target}_L{L}_pairs.csv",
                    label=_("per-pair table"), key="sv_range_csv", part="range")

st.header(_("The config doctor"))
st.markdown(_("A `config.json` pasted or uploaded above is checked for RoPE mistakes that "
              "engineers report in the trackers of vLLM, SGLang, llama.cpp and "
              "transformers. Each finding names the key, what goes wrong in which engine, the "
              "fix, and where it is reported and done (an issue and the engine's code). It "
              "checks:"))
ui.bullets([_(line) for line in DOCTOR_CHECKS])
text = config_text("sv")
if text is None:
    st.caption(_("Paste or upload a `config.json` above (“Use your own `config.json`”) to "
                 "check it."))
else:
    try:
        findings = doctor_tables(text)["list"]
    except ValueError as err:  # not JSON, or not an object: said once, as the input says it
        ui.warning(i18n.error_text(err))
    else:
        show_findings(findings)
        ui.download(doctor_tables, text, filename="config_doctor.csv",
                    label=_("findings table"), key="sv_doctor_csv", part="findings")
