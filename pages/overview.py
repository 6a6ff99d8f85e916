"""Overview: what RoPE is, on one screen."""

import plotly.graph_objects as go
import streamlit as st

import rope_core as rc
import ui
from ui.navigation import PAGES

SIZE = 48  # positions 0 ... SIZE-1 on both axes
SEED = 7


@ui.table
def identity_table(dim: int, base: float, layout: str, device: str):
    """<R_m q, R_n k> for every (m, n), next to q^T R_(n-m) k (rope_core.identity_table)."""
    return rc.identity_table(dim, base, layout, size=SIZE, seed=SEED, device=device)


s = ui.settings()
wavelengths = rc.wavelength(rc.theta(s.dim, s.base))  # tokens per turn of each pair
st.title("RoPE Explorer")
st.markdown(
    "**Rotary position embedding (RoPE)** tells attention where tokens are by *rotating* "
    "them. The head vector is cut into d/2 pairs of coordinates; at position m, pair i is "
    "turned by the angle m·θᵢ. The fastest pair (i = 0) turns by θ₀ = 1 rad per token, one "
    f"full turn every 2π ≈ {float(wavelengths[0]):.1f} tokens; the slowest (i = d/2 − 1) "
    f"needs {float(wavelengths[-1]):,.0f} tokens for one turn (d = {s.dim}, base "
    f"{ui.fmt_base(s.base)}). Because both the query and the key "
    "are rotated, their dot product sees only the *difference* of their positions: "
    "RoPE encodes absolute positions so that attention reads relative ones.")
left, right = st.columns(2)
with left:
    st.latex(r"\theta_i = \text{base}^{-2i/d},\quad i = 0,\dots,\tfrac{d}{2}-1")
    st.latex(r"R_m = \operatorname{diag}\!\left(\begin{bmatrix}\cos m\theta_i & -\sin m\theta_i"
             r"\\ \sin m\theta_i & \cos m\theta_i\end{bmatrix}\right)_{i=0}^{d/2-1}")
with right:
    st.latex(r"(R_m q)^{\top}(R_n k) = q^{\top} R_m^{\top} R_n\, k = q^{\top} R_{n-m}\, k")
    st.latex(r"\lVert R_m q \rVert = \lVert q \rVert \quad (R_m \text{ is orthogonal})")

with ui.friendly_errors():
    df = identity_table(s.dim, s.base, s.layout, s.device)
score = df["<R_m q, R_n k>"].to_numpy().reshape(SIZE, SIZE)
fig = go.Figure(go.Heatmap(z=score, x=list(range(SIZE)), y=list(range(SIZE)),
                           colorscale="RdBu", zmid=0, colorbar=dict(title="score"),
                           hovertemplate="m=%{y}, n=%{x}<br>score=%{z:.3f}<extra></extra>"))
ui.style(fig, title=f"Score of one q and one k placed at every pair of positions "
                        f"(d={s.dim}, base={ui.fmt_base(s.base)})",
             x="key position n [tokens]", y="query position m [tokens]", height=520)
ui.square(fig)
fig.update_yaxes(autorange="reversed")
ui.show(fig, key="overview_heatmap")
gap = float((df["<R_m q, R_n k>"] - df["q^T R_(n-m) k"]).abs().max())
ui.explain(
    "The same query and key vectors are placed at every position. **Every diagonal has one "
    "colour**: the score depends on n − m alone, not on where the pair sits. The table lists "
    "both sides of the identity; their largest difference here is "
    f"{gap:.1e}, rounding error of float64.")
ui.download(identity_table, s.dim, s.base, s.layout, s.device,
            filename=f"identity_dim{s.dim}_base{ui.slug(s.base)}_{s.layout}.csv",
            label="score table", key="overview")

st.subheader("Explore")
for spec in PAGES:
    if not spec.default:
        st.page_link(spec.file, label=f"{spec.title}: {spec.summary}", icon=spec.icon)
