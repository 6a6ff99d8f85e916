"""Attention (pages/attention.py) as a notebook."""

from . import Figure, Recipe

RECIPE = Recipe(figures={
    "att_logits": Figure('''
logits = np.stack([attention.pivot(index="m [tokens]", columns="n [tokens]", values=column)
                   for column in ("logit without RoPE", "logit with RoPE")])
fig = px.imshow(logits, facet_col=0, color_continuous_scale="RdBu",
                labels=dict(x="key position n [tokens]", y="query position m [tokens]"))
for panel, name in zip(fig.layout.annotations, ("without RoPE", "with RoPE")):
    panel.text = name''',
        ("attention_table",), axes=False),
    "att_weights": Figure('''
weights = np.stack([attention.pivot(index="m [tokens]", columns="n [tokens]", values=column)
                    for column in ("weight without RoPE", "weight with RoPE")])
fig = px.imshow(np.log10(np.where(weights > 0, weights, np.nan)), facet_col=0,
                color_continuous_scale="Viridis",
                labels=dict(x="key position n [tokens]", y="query position m [tokens]",
                            color="log10 weight"))
for panel, name in zip(fig.layout.annotations, ("without RoPE", "with RoPE")):
    panel.text = name''',
        ("attention_table",), axes=False),
})
