"""Long context (pages/long_context.py) as a notebook."""

from rope_core.limits import breaks as br

from . import Figure, Recipe


def preset_bounds():
    """Every preset's base against its contexts, group by group."""
    return br.preset_bound_table()


RECIPE = Recipe(
    tables={"ood_table": "angles", "bm_table": "cos_sum", "island_table": "islands",
            "men_table": "men_fit", "preset_table": "presets"},
    figures={
        "lc_ood_plot": Figure('''
largest = angles.melt(id_vars=["pair i", "method"], value_vars=["train max angle [rad]",
                      "inference max angle [rad]"], var_name="angle", value_name="radians")
fig = px.line(largest, x="pair i", y="radians", color="angle", line_dash="method", log_y=True)''',
            ("ood_table",)),
        "lc_wl_plot": Figure('''
fig = px.line(angles[angles["method"] == "none"], x="pair i", y="wavelength [tokens]",
              log_y=True)''', ("ood_table",)),
        "lc_bm_plot": Figure('''
fig = px.line(cos_sum, x="distance m [tokens]", y="B_m")
fig.add_hline(y=0, line_dash="dot")''', ("bm_table",)),
        "lc_scan_plot": Figure('''
fig = go.Figure([go.Scatter(x=[row["first base"], row["last base"]], y=[1, 1],
                            mode="lines+markers", name=f"island {row['island']}")
                 for row in islands.to_dict("records")])
fig.update_xaxes(type="log")''', ("island_table",)),
    },
    # the page reads this table once per process (ui.constants.preset_bounds)
    code={"preset_bounds": preset_bounds})
