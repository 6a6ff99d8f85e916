"""Where RoPE sits (pages/where_rope_sits.py) as a notebook (its diagram is not redrawn)."""

from . import Figure, Recipe

RECIPE = Recipe(
    tables={"cache_tables": "cache", "layouts": "pairing"},
    figures={
        "where_cache": Figure('''
scores = cache["scores"]
last = scores[scores["t [tokens]"] == scores["t [tokens]"].max()]
fig = px.line(last, x="n [tokens]", y=["recomputed", "from cache", "cache rotated again"],
              markers=True)''', ("cache_tables",)),
        "where_layouts": Figure('''
pairs = pairing["pairs"].head(32)
fig = px.imshow([pairs["pair i interleaved"], pairs["pair i half"]], x=pairs["coordinate j"],
                y=["interleaved", "half"], text_auto=True, aspect="auto")''', ("layouts",)),
    })
