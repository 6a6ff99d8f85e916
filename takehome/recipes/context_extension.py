"""Context extension (pages/context_extension.py) as a notebook."""

from functools import partial

from . import Figure, Recipe, line

# the spectra per pair, and the decay against distance, one line per method
spectrum = partial(line, "extension", 'compared["spectra"]', "pair", color="method",
                   markers="True", log_y="True")
decay = partial(line, "extension_decay", 'decay["decay"]', "distance [tokens]", color="method",
                log_x='axis == "log"')

RECIPE = Recipe(
    tables={"extension": "compared", "extension_decay": "decay", "dynamic": "dynamic_ntk",
            "yarn_ramps": "ramps"},
    figures={
        "ce_ratio_plot": spectrum("ratio theta/theta plain"),
        "ce_wave_plot": spectrum("wavelength [tokens]"),
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
        "ce_bound_plot": decay("upper bound"),
        "ce_score_plot": decay("score q=k=1"),
        "ce_dynamic_plot": Figure('''
fig = px.line(dynamic_ntk, x="sequence length [tokens]", y="effective base",
              color="dynamic factor f", log_y=True)''', ("dynamic",)),
    })
