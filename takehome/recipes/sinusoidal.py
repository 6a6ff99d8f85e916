"""Sinusoidal (pages/sinusoidal.py) as a notebook."""

from . import Figure, Recipe

RECIPE = Recipe(figures={
    "sin_pe_heatmap": Figure('''
fig = px.imshow(pe.pivot(index="position p [tokens]", columns="dimension j", values="PE value"),
                aspect="auto", color_continuous_scale="RdBu", color_continuous_midpoint=0)''',
        ("pe_table",)),
    "sin_similarity": Figure('''
fig = px.imshow(similarity.pivot(index="m [tokens]", columns="n [tokens]",
                                 values="PE_m . PE_n"), color_continuous_scale="Viridis")''',
        ("similarity_table",)),
    "sin_dot_profile": Figure('''
fig = px.line(dot, x="m - n [tokens]", y="PE_m . PE_n")''', ("dot_table",)),
    "sin_forms": Figure('''
errors = forms.melt(id_vars=["dtype", "pair i"], value_vars=["relative error pow",
                    "relative error exp"], var_name="form", value_name="relative error")
fig = px.line(errors, x="pair i", y="relative error", color="dtype", line_dash="form",
              markers=True, log_y=True)''', ("forms_table",)),
})
