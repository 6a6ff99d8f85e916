"""Write the exercises notebooks, English and Chinese, from this one source.

    python tools/make_exercises.py                   # notebooks/exercises_{en,zh}.ipynb
    python tools/make_exercises.py --check           # exit 1 if those files are not current
    python tools/make_exercises.py --solutions DIR   # the same with the solutions filled in

Every code cell is the same in both languages (only the setup cell's ``LANG`` differs);
each Markdown cell is written here twice, English and Chinese, side by side, so the two
notebooks have the same cells in the same order and cannot drift. A student fills in the
stub cells (``raise NotImplementedError``); the check cell after each calls
:mod:`rope_core.teaching.exercises`. The solutions live apart, in
``notebooks/solutions/exercise_solutions.py`` (one function per stub, same name):
``--solutions`` puts each function's source in place of its stub. The files are written
with nbformat (version 4, fixed cell ids), so the same source gives the same bytes.
docs/notebooks.md explains the notebooks and the checks.
"""

from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from rope_core.support.translation import translator  # noqa: E402

OUT = ROOT / "notebooks"
SOLUTIONS = OUT / "solutions" / "exercise_solutions.py"
LANGS = ("en", "zh")

SETUP = '''\
import importlib.util
import math  # noqa: F401
import pathlib
import sys

import torch

checkout = pathlib.Path.cwd().parent
if importlib.util.find_spec("rope_core") is None and (checkout / "rope_core").is_dir():
    sys.path.insert(0, str(checkout))
from rope_core.teaching import exercises as ex  # noqa: E402

LANG = "{lang}"
torch.set_default_dtype(torch.float64)'''

# (name, stub): the function a student writes, in the order of the notebook
STUBS = {
    "theta": "def theta(dim, base):\n    # -> (dim/2,)",
    "apply_rope_interleaved": "def apply_rope_interleaved(x, positions, theta):\n"
                              "    # x: (..., seq, dim), positions: (seq,), theta: (dim/2,)"
                              " -> x.shape",
    "apply_rope_half": "def apply_rope_half(x, positions, theta):\n"
                       "    # x: (..., seq, dim), positions: (seq,), theta: (dim/2,) -> x.shape",
    "relative_score": "def relative_score(q, k, distances, theta):\n"
                      "    # q, k: (dim,), distances: (R,), theta: (dim/2,) -> (R,)",
    "decay_bound": "def decay_bound(distances, theta):\n"
                   "    # distances: (R,), theta: (dim/2,) -> (R,)",
    "yarn_theta": "def yarn_theta(dim, base, factor, original_max_position_embeddings, "
                  "beta_fast=32.0,\n               beta_slow=1.0):\n    # -> (dim/2,)",
    "mrope_position_ids": "def mrope_position_ids(segments, spatial_merge_size=2):\n"
                          "    # -> (3, seq) int64: rows t, h, w",
}

INTRO = {
    "en": r"""# RoPE exercises that check themselves

Seven functions to write, from the frequencies $\theta_i$ to YaRN and Qwen2-VL's M-RoPE.
After each one, a check cell runs your function on a fixed case and on seeded random ones,
compares the results with `rope_core` (the package that computes RoPE Explorer's numbers)
and answers ✓, or says what is wrong: the shape, the pair layout, the order of the pairs,
a factor.

**Before you start.** The notebook needs `rope_core` and PyTorch.

* In a checkout of RoPE Explorer, start Jupyter there and open this file: the first code
  cell finds `rope_core` in the folder above `notebooks/`.
* Anywhere else, install `rope_core` on its own, without the app:
  `pip install /path/to/the/checkout`, or `pip install "git+<the repository's address>"`.
  That installs `rope_core` with torch 2.13.0, NumPy and pandas.

**How it works.** In each exercise cell the function's body is `raise
NotImplementedError`: replace that line with your code (the comment above it gives the
shapes), run the cell, then run the check below it. Use
`math` and `torch`, and compute in `torch.float64` (the setup cell makes it the default):
a check passes when your values agree with `rope_core`'s to a relative 1e-7. Do not
call `rope_core` in your functions: it is the answer key. The exercises stand alone;
each check gives your function its inputs (θ included), so a mistake in one exercise
never spills into the next.""",
    "zh": r"""# 能自动检查的 RoPE 练习

共七个函数要写：从频率 $\theta_i$ 一直到 YaRN 和 Qwen2-VL 的 M-RoPE。每写完一个，下面的检查单元会用一个固定用例和若干带种子的随机用例运行你的函数，把结果与 `rope_core`（RoPE Explorer 背后负责计算的包）对比：对了就显示 ✓，不对就指出错在哪里：形状、维度对的布局、维度对的顺序，还是差了一个因子。

**开始之前。** 本笔记本需要 `rope_core` 和 PyTorch。

* 如果你有 RoPE Explorer 的代码，在代码目录里启动 Jupyter 并打开本文件：第一个代码单元会在 `notebooks/` 的上一级目录找到 `rope_core`。
* 在其他地方，可以单独安装 `rope_core`（不含应用本身）：`pip install /代码目录/路径`，或 `pip install "git+<仓库地址>"`。这会安装 `rope_core` 以及 torch 2.13.0、NumPy 和 pandas。

**怎么做。** 每个练习单元里，函数体只有一行 `raise NotImplementedError`：把这一行换成你的代码（上面的注释给出了形状），运行这个单元，再运行下面的检查。只用 `math` 和 `torch`，并用 `torch.float64` 计算（设置单元已把它设为默认类型）：你的结果与 `rope_core` 的相对误差在 1e-7 以内才算通过。不要在函数里调用 `rope_core`：它是标准答案。各道练习互不依赖：检查会把输入（包括 θ）直接交给你的函数，所以一道题的错误不会带到下一道。""",
}

SETUP_TEXT = {
    "en": "The setup: `math` and `torch` for your functions, the checks (`ex`), the language "
          "of their messages (`LANG`), and float64 as torch's default type.",
    "zh": "设置：导入供你使用的 `math` 和 `torch`、检查函数（`ex`），设定检查信息的语言"
          "（`LANG`），并把 float64 设为 torch 的默认类型。",
}

EXPLAIN = {
    "theta": {
        "en": r"""## 1. The frequencies $\theta_i$

RoPE splits a head vector of even dimension $d$ into $d/2$ pairs of coordinates and turns
pair $i$ by the angle $m\,\theta_i$ at position $m$, with

$$\theta_i = \text{base}^{-2i/d}, \qquad i = 0, 1, \dots, d/2 - 1 .$$

So $\theta_0 = 1$ radian per token (the fastest pair), and the frequencies fall
geometrically down to $\text{base}^{-(d-2)/d}$, just above $1/\text{base}$. RoFormer writes
the same set as $\theta_i = 10000^{-2(i-1)/d}$ with $i = 1, \dots, d/2$: counting pairs from
1 changes the formula, not the frequencies.

Write `theta(dim, base)`: it returns a `(dim/2,)` float64 tensor.
For example `theta(8, 10000.0)` is `[1, 0.1, 0.01, 0.001]`.
The usual slips: one frequency per coordinate ($d$ of them instead of $d/2$), or
$i/d$ in the exponent instead of $2i/d$.""",
        "zh": r"""## 1. 频率 $\theta_i$

RoPE 把维度为偶数 $d$ 的头向量分成 $d/2$ 个维度对，在位置 $m$ 把第 $i$ 对旋转角度 $m\,\theta_i$，其中

$$\theta_i = \text{底数}^{-2i/d}, \qquad i = 0, 1, \dots, d/2 - 1 .$$

因此 $\theta_0 = 1$ 弧度/词元（转得最快的一对），之后的频率按几何级数递减，直到 $\text{底数}^{-(d-2)/d}$，略大于 $1/\text{底数}$。RoFormer 把同一组频率写成 $\theta_i = 10000^{-2(i-1)/d}$，$i = 1, \dots, d/2$：从 1 开始给维度对编号，改变的是公式的写法，频率本身不变。

写出 `theta(dim, base)`：返回形状为 `(dim/2,)` 的 float64 张量。例如 `theta(8, 10000.0)` 等于 `[1, 0.1, 0.01, 0.001]`。常见的错误：给每个坐标一个频率（$d$ 个而不是 $d/2$ 个），或者指数里写成 $i/d$ 而不是 $2i/d$。""",
    },
    "apply_rope_interleaved": {
        "en": r"""## 2. Turning the pairs $(2i, 2i+1)$: the interleaved layout

At position $m$, pair $i$ with coordinates $(a, b)$ turns by the angle $m\theta_i$:

$$\begin{pmatrix} x'_a \\ x'_b \end{pmatrix} = \begin{pmatrix} \cos m\theta_i & -\sin m\theta_i \\ \sin m\theta_i & \cos m\theta_i \end{pmatrix} \begin{pmatrix} x_a \\ x_b \end{pmatrix} .$$

In the interleaved layout (the RoFormer paper, Meta's original LLaMA code) pair $i$ is the
two neighbouring coordinates $(a, b) = (2i, 2i+1)$.

Write `apply_rope_interleaved(x, positions, theta)`:

* `x`: `(..., seq, dim)` float64 (the check passes `(heads, seq, dim)`);
* `positions`: `(seq,)` int64, the position $m$ of each row: any integers, not
  necessarily 0, 1, 2, …;
* `theta`: `(dim/2,)` float64;
* it returns a tensor of `x`'s shape, row $j$ turned by the angles `positions[j] * theta`.

Hint: `x[..., 0::2]` and `x[..., 1::2]` are the first and second coordinates of every pair;
the angles `positions[:, None] * theta` have shape `(seq, dim/2)` and broadcast over the
leading dimensions of `x`.""",
        "zh": r"""## 2. 旋转维度对 $(2i, 2i+1)$：交错布局

在位置 $m$，坐标为 $(a, b)$ 的第 $i$ 对旋转角度 $m\theta_i$：

$$\begin{pmatrix} x'_a \\ x'_b \end{pmatrix} = \begin{pmatrix} \cos m\theta_i & -\sin m\theta_i \\ \sin m\theta_i & \cos m\theta_i \end{pmatrix} \begin{pmatrix} x_a \\ x_b \end{pmatrix} .$$

在交错布局中（RoFormer 论文、Meta 最初的 LLaMA 代码），第 $i$ 对是两个相邻的坐标 $(a, b) = (2i, 2i+1)$。

写出 `apply_rope_interleaved(x, positions, theta)`：

* `x`：形状 `(..., seq, dim)` 的 float64 张量（检查时传入 `(heads, seq, dim)`）；
* `positions`：形状 `(seq,)` 的 int64 张量，每一行的位置 $m$：任意整数，不一定是 0, 1, 2, …；
* `theta`：形状 `(dim/2,)` 的 float64 张量；
* 返回与 `x` 形状相同的张量，第 $j$ 行按角度 `positions[j] * theta` 旋转。

提示：`x[..., 0::2]` 和 `x[..., 1::2]` 分别是每一对的第一个和第二个坐标；角度 `positions[:, None] * theta` 的形状是 `(seq, dim/2)`，会沿 `x` 前面的维度自动广播。""",
    },
    "apply_rope_half": {
        "en": r"""## 3. Turning the pairs $(i, i + d/2)$: the half layout

The same rotation, with another choice of pairs: GPT-NeoX and Hugging Face transformers
pair coordinate $i$ with coordinate $i + d/2$, the first half of the vector with the
second (their code calls the helper `rotate_half`). With $x_1$ the first half, $x_2$ the
second, and $\cos$, $\sin$ of the angles $m\theta_i$, each of shape `(seq, dim/2)`:

$$x' = \big(\, x_1 \odot \cos - x_2 \odot \sin ,\;\; x_1 \odot \sin + x_2 \odot \cos \,\big) .$$

Both layouts give the same attention scores once the weights are permuted to match, but
not the same vectors: weights trained with one layout and run with the other mix up the
pairs. (Hugging Face permutes the q and k weights of Meta's LLaMA checkpoints when it
converts them, for this reason.)

Write `apply_rope_half(x, positions, theta)`: the same arguments and shapes as in
exercise 2.""",
        "zh": r"""## 3. 旋转维度对 $(i, i + d/2)$：对半布局

同样的旋转，只是维度对的取法不同：GPT-NeoX 和 Hugging Face transformers 把坐标 $i$ 与坐标 $i + d/2$ 配成一对，即向量的前一半与后一半（它们的代码里对应的辅助函数叫 `rotate_half`）。记 $x_1$ 为前一半，$x_2$ 为后一半，$\cos$、$\sin$ 为角度 $m\theta_i$ 的余弦和正弦，形状都是 `(seq, dim/2)`：

$$x' = \big(\, x_1 \odot \cos - x_2 \odot \sin ,\;\; x_1 \odot \sin + x_2 \odot \cos \,\big) .$$

只要把权重按相应的置换重新排列，两种布局给出的注意力分数相同，但旋转后的向量并不相同：用一种布局训练的权重若按另一种布局运行，维度对就会错乱。（正因如此，Hugging Face 在转换 Meta 的 LLaMA 权重时会对 q 和 k 的权重做置换。）

写出 `apply_rope_half(x, positions, theta)`：参数和形状与练习 2 相同。""",
    },
    "relative_score": {
        "en": r"""## 4. The relative-position identity

Turn the query at position $m$ and the key at position $n$. Rotations compose,
$R_m^\top R_n = R_{n-m}$, so the score depends on the relative distance $r = n - m$ alone:

$$(R_m q)^\top (R_n k) = q^\top R_m^\top R_n\, k = q^\top R_{n-m}\, k .$$

Written out pair by pair, with the interleaved pairs $(a, b) = (2i, 2i+1)$:

$$q^\top R_r\, k = \sum_{i=0}^{d/2-1} \big(q_a k_a + q_b k_b\big)\cos(r\theta_i) + \big(q_b k_a - q_a k_b\big)\sin(r\theta_i) .$$

Write `relative_score(q, k, distances, theta)` from this formula, without turning
anything at an absolute position:

* `q`, `k`: `(dim,)` float64; `distances`: `(R,)` int64 (negative ones too: the key
  before the query); `theta`: `(dim/2,)`;
* it returns `(R,)`: $q^\top R_r\, k$ for each distance $r$.

When it passes, the check also turns $q$ at a random position $m$ and $k$ at $m + r$
(with `rope_core`), takes their dot products and compares: the identity, in numbers.""",
        "zh": r"""## 4. 相对位置恒等式

把查询放在位置 $m$ 旋转，把键放在位置 $n$ 旋转。旋转可以复合，$R_m^\top R_n = R_{n-m}$，所以分数只取决于相对距离 $r = n - m$：

$$(R_m q)^\top (R_n k) = q^\top R_m^\top R_n\, k = q^\top R_{n-m}\, k .$$

按交错布局的维度对 $(a, b) = (2i, 2i+1)$ 逐对展开：

$$q^\top R_r\, k = \sum_{i=0}^{d/2-1} \big(q_a k_a + q_b k_b\big)\cos(r\theta_i) + \big(q_b k_a - q_a k_b\big)\sin(r\theta_i) .$$

按这个公式写出 `relative_score(q, k, distances, theta)`，不要在任何绝对位置上做旋转：

* `q`、`k`：形状 `(dim,)` 的 float64 张量；`distances`：形状 `(R,)` 的 int64 张量（也有负数：键在查询之前）；`theta`：形状 `(dim/2,)`；
* 返回 `(R,)`：每个距离 $r$ 对应的 $q^\top R_r\, k$。

通过之后，检查还会（用 `rope_core`）把 $q$ 放在一个随机位置 $m$、把 $k$ 放在 $m + r$ 旋转，计算点积并与你的结果对比：用数字看到这个恒等式。""",
    },
    "decay_bound": {
        "en": r"""## 5. The long-term decay bound (RoFormer, section 3.4.3)

Read pair $i$ of $q$ and of $k$ as complex numbers, $q_{[i]} = q_{2i} + \mathrm{i}\,q_{2i+1}$,
and let $h_i = q_{[i]}\,\overline{k_{[i]}}$ (with $h_{d/2} = 0$). The score is a sum of the
$h_i$ turned by the angles $r\theta_i$; RoFormer sums it by parts (Abel summation) with the
partial sums

$$S_j = \sum_{k=0}^{j-1} e^{\mathrm{i}\, r\theta_k}, \qquad j = 1, \dots, d/2,$$

which gives $|q^\top R_r\, k| \le \big(\max_i |h_{i+1} - h_i|\big) \sum_{j=1}^{d/2} |S_j|$.
The part that depends on the distance, averaged over $j$, is the curve of the paper's
figure 2:

$$\text{bound}(r) = \frac{1}{d/2} \sum_{j=1}^{d/2} |S_j| .$$

At $r = 0$ every $|S_j| = j$, so the bound starts at $(d/2 + 1)/2$; it falls as $r$
grows, with ripples, and far away it levels off instead of reaching 0. It bounds the
scores; it is not a score.

Write `decay_bound(distances, theta)`:

* `distances`: `(R,)` int64; `theta`: `(dim/2,)`;
* it returns `(R,)` float64.

Hint: `torch.cumsum` along the pair axis gives every partial sum at once; $|S_j|$ is
`torch.hypot` of its real and imaginary parts.""",
        "zh": r"""## 5. 远程衰减的上界（RoFormer 第 3.4.3 节）

把 $q$ 和 $k$ 的第 $i$ 对看作复数，$q_{[i]} = q_{2i} + \mathrm{i}\,q_{2i+1}$，令 $h_i = q_{[i]}\,\overline{k_{[i]}}$（并约定 $h_{d/2} = 0$）。分数是各个 $h_i$ 按角度 $r\theta_i$ 旋转后的和；RoFormer 用部分和

$$S_j = \sum_{k=0}^{j-1} e^{\mathrm{i}\, r\theta_k}, \qquad j = 1, \dots, d/2$$

做分部求和（阿贝尔变换），得到 $|q^\top R_r\, k| \le \big(\max_i |h_{i+1} - h_i|\big) \sum_{j=1}^{d/2} |S_j|$。其中随距离变化的部分对 $j$ 取平均，就是论文图 2 中的曲线：

$$\text{上界}(r) = \frac{1}{d/2} \sum_{j=1}^{d/2} |S_j| .$$

当 $r = 0$ 时每个 $|S_j| = j$，所以上界从 $(d/2 + 1)/2$ 开始；随着 $r$ 增大，它带着起伏下降，到很远处趋于平台，而不是降到 0。它是分数的上界，不是分数本身。

写出 `decay_bound(distances, theta)`：

* `distances`：形状 `(R,)` 的 int64 张量；`theta`：形状 `(dim/2,)`；
* 返回形状 `(R,)` 的 float64 张量。

提示：沿维度对所在的轴做 `torch.cumsum`，可以一次得到所有部分和；$|S_j|$ 是其实部与虚部的 `torch.hypot`。""",
    },
    "yarn_theta": {
        "en": r"""## 6. YaRN's frequencies

To run a model beyond its training context $L$ (`original_max_position_embeddings`) by a
scaling factor $s$ (`factor`), YaRN (Peng et al. 2023) treats each pair by the number of
turns it makes within $L$:

* pairs turning more than $\beta_{\mathtt{fast}}$ (`beta_fast`, 32 by default) times are
  kept: $\theta_i$;
* pairs turning fewer than $\beta_{\mathtt{slow}}$ (`beta_slow`, 1 by default) times are
  interpolated: $\theta_i / s$;
* the pairs in between are blended along a ramp.

As Hugging Face transformers computes it (`_compute_yarn_parameters` in
`modeling_rope_utils.py`, whose parameter names these are), the pair index that turns
$\rho$ times within $L$ is

$$i(\rho) = \frac{d\,\ln\big(L / (2\pi\rho)\big)}{2 \ln \text{base}} ,$$

the ramp runs from $\mathtt{low} = \max\big(\lfloor i(\beta_{\mathtt{fast}}) \rfloor, 0\big)$ to
$\mathtt{high} = \min\big(\lceil i(\beta_{\mathtt{slow}}) \rceil, d - 1\big)$ (when the two are
equal, `high` gets 0.001 more), and

$$\text{ramp}_i = \min\Big(\max\Big(\frac{i - \mathtt{low}}{\mathtt{high} - \mathtt{low}}, 0\Big), 1\Big), \qquad \theta'_i = \theta_i\,(1 - \text{ramp}_i) + \frac{\theta_i}{s}\,\text{ramp}_i .$$

The paper writes its ramp in the number of turns; the code, Hugging Face's as YaRN's own,
makes it linear in the pair index $i$, and this exercise follows the code. YaRN also
multiplies cos and sin by an attention factor, $0.1 \ln s + 1$; it is not part of this
exercise.

Write `yarn_theta(dim, base, factor, original_max_position_embeddings, beta_fast=32.0,
beta_slow=1.0)`: it returns `(dim/2,)` float64.""",
        "zh": r"""## 6. YaRN 的频率

为了让模型在训练上下文 $L$（`original_max_position_embeddings`）之外按缩放因子 $s$（`factor`）扩展，YaRN（Peng 等人，2023）按每一对在 $L$ 个词元内转过的圈数来区别对待：

* 转过超过 $\beta_{\mathtt{fast}}$（`beta_fast`，默认 32）圈的维度对保持不变：$\theta_i$；
* 转过不到 $\beta_{\mathtt{slow}}$（`beta_slow`，默认 1）圈的维度对做内插：$\theta_i / s$；
* 介于两者之间的维度对沿一条斜坡混合。

按 Hugging Face transformers 的算法（`modeling_rope_utils.py` 中的 `_compute_yarn_parameters`，参数名也沿用它的），在 $L$ 内转 $\rho$ 圈的维度对序号是

$$i(\rho) = \frac{d\,\ln\big(L / (2\pi\rho)\big)}{2 \ln \text{底数}} ,$$

斜坡从 $\mathtt{low} = \max\big(\lfloor i(\beta_{\mathtt{fast}}) \rfloor, 0\big)$ 到 $\mathtt{high} = \min\big(\lceil i(\beta_{\mathtt{slow}}) \rceil, d - 1\big)$（两者相等时，`high` 再加 0.001），并且

$$\text{斜坡}_i = \min\Big(\max\Big(\frac{i - \mathtt{low}}{\mathtt{high} - \mathtt{low}}, 0\Big), 1\Big), \qquad \theta'_i = \theta_i\,(1 - \text{斜坡}_i) + \frac{\theta_i}{s}\,\text{斜坡}_i .$$

论文把斜坡写成圈数的函数；而代码（Hugging Face 的和 YaRN 官方的都一样）让它随维度对序号 $i$ 线性变化，本练习以代码为准。YaRN 还会把 cos 和 sin 乘以注意力因子 $0.1 \ln s + 1$，这不在本练习之内。

写出 `yarn_theta(dim, base, factor, original_max_position_embeddings, beta_fast=32.0, beta_slow=1.0)`：返回形状 `(dim/2,)` 的 float64 张量。""",
    },
    "mrope_position_ids": {
        "en": r"""## 7. M-RoPE's position ids (Qwen2-VL)

In Qwen2-VL every token carries three position ids $(t, h, w)$: time, height, width, and
M-RoPE turns some pairs by the t id, some by the h id and the rest by the w id. Build the
ids of a sequence of segments, going through them with `start`, the id the next segment
starts from (0 at first):

* `("text", n)`: $n$ tokens with the ids $(p, p, p)$ for $p$ = `start`, `start` + 1, …;
  then `start` grows by $n$.
* `("image", (1, h, w))` or `("video", (t, h, w))`: the patch grid before merging.
  The language model sees one token per `spatial_merge_size` × `spatial_merge_size`
  patches: a merged grid of $t \times h' \times w'$ tokens, $h'$ = `h // spatial_merge_size`,
  $w'$ = `w // spatial_merge_size`. Its tokens come temporal patch by temporal patch, row
  by row, the column changing fastest; the one at temporal patch $f$, row $r$, column
  $c$ has the ids $(\mathtt{start} + f, \mathtt{start} + r, \mathtt{start} + c)$. Then `start` grows
  by $\max(h', w')$.

For example `[("text", 3), ("image", (1, 4, 6)), ("text", 2)]` with `spatial_merge_size=2`
gives 3 + 2 · 3 + 2 = 11 tokens:

| token | 0 | 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9 | 10 |
|---|---|---|---|---|---|---|---|---|---|---|---|
| t | 0 | 1 | 2 | 3 | 3 | 3 | 3 | 3 | 3 | 6 | 7 |
| h | 0 | 1 | 2 | 3 | 3 | 3 | 4 | 4 | 4 | 6 | 7 |
| w | 0 | 1 | 2 | 3 | 4 | 5 | 3 | 4 | 5 | 6 | 7 |

(Hugging Face transformers, since version 5.3, resumes after an image or video at
`start` + $\max(h', w')$; Qwen2-VL's original code resumes at the block's largest id + 1.
The two agree unless a video has more temporal patches than $\max(h', w')$; the check
uses no such video.)

Write `mrope_position_ids(segments, spatial_merge_size=2)`: it returns a `(3, seq)` int64
tensor whose rows are the t, h and w ids.""",
        "zh": r"""## 7. M-RoPE 的位置编号（Qwen2-VL）

在 Qwen2-VL 中，每个词元带有三个位置编号 $(t, h, w)$：时间、高度、宽度；M-RoPE 让一部分维度对按 t 编号旋转，一部分按 h 编号，其余按 w 编号。请为一串片段生成位置编号，依次处理每个片段，用 `start` 记录下一个片段的起始编号（开始时为 0）：

* `("text", n)`：$n$ 个词元，编号为 $(p, p, p)$，$p$ = `start`, `start` + 1, …；之后 `start` 增加 $n$。
* `("image", (1, h, w))` 或 `("video", (t, h, w))`：合并之前的图块网格。语言模型对每 `spatial_merge_size` × `spatial_merge_size` 个图块只看到一个词元，即合并后的 $t \times h' \times w'$ 个词元，$h'$ = `h // spatial_merge_size`，$w'$ = `w // spatial_merge_size`。这些词元按时间图块、再按行逐行排列，列变化最快；位于第 $f$ 个时间图块、第 $r$ 行、第 $c$ 列的词元，编号为 $(\mathtt{start} + f, \mathtt{start} + r, \mathtt{start} + c)$。之后 `start` 增加 $\max(h', w')$。

例如 `[("text", 3), ("image", (1, 4, 6)), ("text", 2)]` 在 `spatial_merge_size=2` 时共有 3 + 2 · 3 + 2 = 11 个词元：

| 词元 | 0 | 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9 | 10 |
|---|---|---|---|---|---|---|---|---|---|---|---|
| t | 0 | 1 | 2 | 3 | 3 | 3 | 3 | 3 | 3 | 6 | 7 |
| h | 0 | 1 | 2 | 3 | 3 | 3 | 4 | 4 | 4 | 6 | 7 |
| w | 0 | 1 | 2 | 3 | 4 | 5 | 3 | 4 | 5 | 6 | 7 |

（Hugging Face transformers 从 5.3 版起，在图像或视频之后从 `start` + $\max(h', w')$ 继续编号；Qwen2-VL 最初的代码则从该块的最大编号 + 1 继续。除非视频的时间图块数多于 $\max(h', w')$，两者结果相同；检查中不会出现这样的视频。）

写出 `mrope_position_ids(segments, spatial_merge_size=2)`：返回形状 `(3, seq)` 的 int64 张量，三行依次是 t、h、w 编号。""",
    },
}

# The pages of RoPE Explorer each exercise belongs to: their titles, as the app's catalog
# names them in each language (ui/navigation.py).
PAGES = ("Frequencies", "Rotation", "Derivation", "Long-term decay", "Context extension",
         "Images and video")
OUTRO = {
    "en": """## Where next

Each function here is a view of RoPE Explorer: the frequencies (*{Frequencies}*), the
rotation in both layouts (*{Rotation}*), the identity and the bound (*{Derivation}*,
*{Long-term decay}*), YaRN (*{Context extension}*) and M-RoPE (*{Images and video}*). The
solutions are in `notebooks/solutions/exercise_solutions.py`; `docs/notebooks.md` explains
how the checks tell what went wrong.""",
    "zh": """## 接下来

这里的每个函数都对应 RoPE Explorer 的一个页面：频率（“{Frequencies}”页）、两种布局下的旋转（“{Rotation}”页）、恒等式与上界（“{Derivation}”页、“{Long-term decay}”页）、YaRN（“{Context extension}”页）以及 M-RoPE（“{Images and video}”页）。参考答案在 `notebooks/solutions/exercise_solutions.py`；检查如何判断错在哪里，见 `docs/notebooks.md`。""",
}


def outro(lang: str) -> str:
    """The last cell, with the pages' titles in ``lang`` from the app's catalog."""
    translate = translator(lang)
    text = OUTRO[lang]
    for title in PAGES:
        text = text.replace("{" + title + "}", translate(title))
    return text


def solution_sources(path: Path = SOLUTIONS) -> dict[str, str]:
    """Each solution function's source (decorators none), by name, read without importing."""
    text = path.read_text(encoding="utf-8")
    return {node.name: ast.get_source_segment(text, node)
            for node in ast.parse(text).body if isinstance(node, ast.FunctionDef)}


def notebook(lang: str, solutions: dict[str, str] | None = None) -> nbformat.NotebookNode:
    """The exercises notebook in ``lang``; with ``solutions`` ({name: source}), the stubs of
    the exercises it names are replaced by those sources."""
    if lang not in LANGS:
        raise SystemExit(f"lang must be one of {LANGS}, not {lang!r}")
    v4 = nbformat.v4
    cells = [v4.new_markdown_cell(INTRO[lang], id="intro"),
             v4.new_markdown_cell(SETUP_TEXT[lang], id="setup-text"),
             v4.new_code_cell(SETUP.format(lang=lang), id="setup")]
    for name, stub in STUBS.items():
        code = (solutions or {}).get(name, stub + "\n    raise NotImplementedError")
        cells += [v4.new_markdown_cell(EXPLAIN[name][lang], id=f"explain-{name}"),
                  v4.new_code_cell(code, id=f"exercise-{name}",
                                   metadata={"tags": ["exercise"]}),
                  v4.new_code_cell(f"ex.check_{name}({name}, lang=LANG)", id=f"check-{name}",
                                   metadata={"tags": ["check"]})]
    cells.append(v4.new_markdown_cell(outro(lang), id="outro"))
    return v4.new_notebook(cells=cells, metadata={
        "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
        "language_info": {"name": "python"}})


def text(nb: nbformat.NotebookNode) -> str:
    """The file's bytes as text: nbformat's JSON (sorted keys, one-space indent)."""
    return nbformat.writes(nb) + "\n"


def path(lang: str, folder: Path = OUT) -> Path:
    return folder / f"exercises_{lang}.ipynb"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="exit 1 when a written notebook differs from this source")
    parser.add_argument("--solutions", type=Path, metavar="DIR",
                        help="write the notebooks with the solutions filled in, to DIR")
    args = parser.parse_args(argv)
    solutions = solution_sources() if args.solutions else None
    folder = args.solutions or OUT
    stale = []
    for lang in LANGS:
        wanted, target = text(notebook(lang, solutions)), path(lang, folder)
        if args.check:
            if not target.is_file() or target.read_text(encoding="utf-8") != wanted:
                stale.append(str(target.relative_to(ROOT)))
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(wanted, encoding="utf-8")
        print("wrote", target)
    if stale:
        print("not current (run python tools/make_exercises.py):", ", ".join(stale))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
