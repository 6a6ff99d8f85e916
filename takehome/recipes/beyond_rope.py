"""Beyond RoPE (pages/beyond_rope.py) as a notebook."""

from . import Figure, Recipe

RECIPE = Recipe(
    tables={"score_table": "scores", "attention_table": "maps"},
    figures={
        "beyond_score_plot": Figure('''
fig = px.line(scores, x="distance r [tokens]", y="logit", color="encoding")''',
            ("score_table",)),
        "beyond_map_plot": Figure('''
rope = maps[maps["encoding"] == "rope"]
weights = rope.pivot(index="m [tokens]", columns="n [tokens]", values="weight")
fig = px.imshow(np.log10(weights.where(weights > 0)), color_continuous_scale="Viridis",
                labels=dict(color="log10 weight"))''',
            ("attention_table",)),
        "beyond_row_plot": Figure('''
last = maps[maps["m [tokens]"] == maps["m [tokens]"].max()]
fig = px.line(last, x=last["m [tokens]"] - last["n [tokens]"], y="weight", color="encoding",
              markers=True)''', ("attention_table",)),
    })
