"""Frequencies (pages/frequencies.py) as a notebook."""

from . import Figure, Recipe

RECIPE = Recipe(figures={
    "theta_plot": Figure('''
fig = px.line(theta, x="pair i", y="theta_i [rad/token]", color="base", line_dash="scaling",
              markers=True, log_y=True)''', ("theta_tables",)),
    "wavelength_plot": Figure('''
fig = px.line(theta, x="pair i", y="wavelength [tokens]", color="base", line_dash="scaling",
              markers=True, log_y=True)
fig.add_hline(y=context, line_dash="dot", annotation_text="L")''', ("theta_tables",)),
})
