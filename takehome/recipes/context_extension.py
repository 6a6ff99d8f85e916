"""Context extension (pages/context_extension.py) as a notebook."""

from . import Figure, Recipe


def _spectrum(column: str) -> Figure:
    return Figure(f'''
fig = px.line(compared["spectra"], x="pair", y={column!r}, color="method", markers=True,
              log_y=True)''', ("extension",))


def _decay(column: str) -> Figure:
    return Figure(f'''
fig = px.line(decay["decay"], x="distance [tokens]", y={column!r}, color="method",
              log_x=axis == "log")''', ("extension_decay",))


RECIPE = Recipe(
    tables={"extension": "compared", "extension_decay": "decay", "dynamic": "dynamic_ntk",
            "yarn_ramps": "ramps"},
    figures={
        "ce_ratio_plot": _spectrum("ratio theta/theta plain"),
        "ce_wave_plot": _spectrum("wavelength [tokens]"),
        "ce_regime_plot": Figure('''
fig = px.scatter(compared["spectra"], x="pair", y="method", color="regime")''',
            ("extension",)),
        "ce_ramp_plot": Figure('''
fig = px.line(ramps, x="pair", y=["ramp linear in i (app, transformers)",
              "ramp linear in r (paper)"], markers=True)''', ("yarn_ramps",)),
        "ce_attention_plot": Figure('''
fig = px.bar(compared["attention"], x="method", y="logit multiplier")''', ("extension",)),
        "ce_softmax_plot": Figure('''
fig = px.bar(compared["softmax"], x="key", y="weight with factor", color="method",
             barmode="group")''', ("extension",)),
        "ce_bound_plot": _decay("upper bound"),
        "ce_score_plot": _decay("score q=k=1"),
        "ce_dynamic_plot": Figure('''
fig = px.line(dynamic_ntk, x="sequence length [tokens]", y="effective base",
              color="dynamic factor f", log_y=True)''', ("dynamic",)),
    })
