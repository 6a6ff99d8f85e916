"""Attention (pages/attention.py) as a notebook."""

from . import Figure, Recipe

RECIPE = Recipe(figures={
    "att_logits": Figure('''
logits = np.stack([attention.pivot(index="m [tokens]", columns="n [tokens]", values=column)
                   for column in ("logit without RoPE", "logit with RoPE")])
fig = px.imshow(logits, facet_col=0, color_continuous_scale="RdBu",
                labels=dict(x="key position n [tokens]", y="query position m [tokens]"))''',
        ("attention_table",), axes=False),
    "att_weights": Figure('''
weights = np.stack([attention.pivot(index="m [tokens]", columns="n [tokens]", values=column)
                    for column in ("weight without RoPE", "weight with RoPE")])
fig = px.imshow(np.log10(weights), facet_col=0, color_continuous_scale="Viridis",
                labels=dict(x="key position n [tokens]", y="query position m [tokens]",
                            color="log10 weight"))''',
        ("attention_table",), axes=False),
})
