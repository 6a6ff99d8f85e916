"""Layers without RoPE (pages/layers_without_rope.py) as a notebook."""

from . import Figure, Recipe

RECIPE = Recipe(
    tables={"overview": "hybrids", "layers": "hybrid_layers", "temperature": "scout_scale"},
    figures={
        "lw_pattern_plot": Figure('''
fig = px.scatter(hybrid_layers["layers"], x="layer", y="model", color="kind",
                 symbol="attention")''', ("layers",)),
        "lw_reach_plot": Figure('''
fig = px.bar(hybrid_layers["summary"], y="model", x=["RoPE reach [tokens]",
             "longest wavelength [tokens]", "context [tokens]"], orientation="h",
             barmode="group", log_x=True)''', ("layers",)),
        "lw_temperature_plot": Figure('''
fig = px.line(scout_scale, x=scout_scale["position"] + 1, y="query scale", log_x=True)''',
            ("temperature",)),
    })
