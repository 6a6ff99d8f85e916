"""Serve it longer (pages/serving.py) as a notebook: kept simple, the page is being
reworked (issue 43)."""

from . import Figure, Recipe

RECIPE = Recipe(
    tables={"tables": "served"},
    figures={
        "sv_wave_plot": Figure('''
fig = px.line(served["range"], x="pair", y=["wavelength before [tokens]",
              "wavelength after [tokens]"], log_y=True)''', ("tables",)),
        "sv_angle_plot": Figure('''
fig = px.scatter(served["range"], x="pair", y="angle ratio", color="turned", log_y=True)''',
            ("tables",)),
    })
