"""Benchmark rope_core.apply_rope against x.clone() and other RoPE formulations.

For x of shape (batch, heads, seq, dim) (default (1, 32, 4096, 128) float32) it
prints, per device, the median time over --repeats runs (after warm-up) and the
effective bandwidth 2 * x.nbytes / time (an ideal single pass reads x once and
writes the output once) of:

* x.clone()                                   -- the memory-bandwidth floor
* rope_core.apply_rope, layout="interleaved"  -- cos/sin computed inside the call
* rope_core.apply_rope, layout="half"
* dense matrices: einsum('...sd,sed->...se', x, R), i.e. x @ R_m^T per position,
  with the (seq, dim, dim) stack R built from cos/sin outside the timed region
* complex multiply (Meta LLaMA style): view_as_complex(x) * freqs_cis, with
  freqs_cis = torch.polar(...) precomputed outside the timed region
* rope_core.apply_rope_complex (angles and polar computed inside the call)
* Hugging Face transformers' apply_rotary_pos_emb (half layout, cos/sin of
  shape (seq, dim) = cat((freqs, freqs), -1) precomputed), if installed

Before timing, every formulation is checked against apply_rope (max abs diff);
the half-layout ones against apply_rope(layout="half").

Run from the repository root:
    .venv/bin/python benchmarks/bench_core.py [--shape 1 32 4096 128] [--repeats 10]
                                              [--device auto|cpu|cuda|all]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import torch  # noqa: E402

import rope_core  # noqa: E402

try:
    import transformers  # noqa: E402
    from transformers.models.llama.modeling_llama import apply_rotary_pos_emb  # noqa: E402
    HF_VERSION = transformers.__version__
except Exception as exc:  # ImportError, or a transformers without this module
    apply_rotary_pos_emb = None
    HF_VERSION = None
    HF_ERROR = f"{type(exc).__name__}: {exc}"

WARMUP = 3
DENSE_MAX_BYTES = 4 * 2**30  # skip the dense formulation when its R stack would exceed 4 GiB


def sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def time_round_robin(fns: dict, device: torch.device, repeats: int) -> dict:
    """Median and min wall time (ms) of each fn, after WARMUP untimed calls of each.

    The timed runs go round-robin (fn1, fn2, ..., fn1, fn2, ...) so that slow
    phases of a noisy machine hit every formulation alike rather than one.
    """
    for fn in fns.values():
        for _ in range(WARMUP):
            fn()
    sync(device)
    times = {name: [] for name in fns}
    for _ in range(repeats):
        for name, fn in fns.items():
            sync(device)
            t0 = time.perf_counter()
            fn()
            sync(device)
            times[name].append((time.perf_counter() - t0) * 1e3)
    return {name: (statistics.median(t), min(t)) for name, t in times.items()}


def dense_stack(cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    """(seq, dim, dim) stack of block-diagonal R_m, interleaved layout, from (seq, dim/2) cos/sin."""
    seq, half = cos.shape
    dim = 2 * half
    i = torch.arange(half, device=cos.device)
    a, b = 2 * i, 2 * i + 1
    R = torch.zeros(seq, dim, dim, dtype=cos.dtype, device=cos.device)  # (seq, dim, dim)
    R[:, a, a] = cos
    R[:, a, b] = -sin
    R[:, b, a] = sin
    R[:, b, b] = cos
    return R


def bench_device(device: torch.device, shape, repeats: int, base: float) -> None:
    torch.manual_seed(0)
    seq, dim = shape[-2:]
    x = torch.randn(*shape, dtype=torch.float32, device=device)  # (..., seq, dim)
    positions = torch.arange(seq, device=device)  # (seq,)
    theta = rope_core.theta(dim, base, device=device)  # (dim/2,) float64
    nbytes = 2 * x.nbytes

    # ---- precomputation (outside every timed region) -----------------------
    cos32, sin32 = rope_core.cos_sin(positions, theta, torch.float32)  # (seq, dim/2) each
    dense_bytes = seq * dim * dim * 4
    R = dense_stack(cos32, sin32) if dense_bytes <= DENSE_MAX_BYTES else None  # (seq, dim, dim)
    # freqs_cis as in LLaMA's precompute_freqs_cis, but with float64 angles (then
    # complex64) so that the comparison measures the multiply, not float32 angles.
    angle = torch.outer(positions.to(torch.float64), theta)  # (seq, dim/2)
    freqs_cis = torch.polar(torch.ones_like(angle), angle).to(torch.complex64)  # (seq, dim/2)
    # Hugging Face layout: emb = cat((freqs, freqs), -1), cos/sin (seq, dim); the
    # batch axis its rotary module returns is added with [None] at call time.
    hf_cos = torch.cat((cos32, cos32), dim=-1)  # (seq, dim)
    hf_sin = torch.cat((sin32, sin32), dim=-1)  # (seq, dim)
    hf_cos_b, hf_sin_b = hf_cos[None], hf_sin[None]  # (1, seq, dim)
    x4 = x.reshape(-1, 1, seq, dim) if x.ndim != 4 else x  # HF expects (batch, heads, seq, dim)
    k_empty = x4[:, :0]  # zero heads: k is rotated too, but costs ~nothing

    def f_clone():
        return x.clone()

    def f_inter():
        return rope_core.apply_rope(x, positions, theta, layout="interleaved")

    def f_half():
        return rope_core.apply_rope(x, positions, theta, layout="half")

    def f_dense():
        return torch.einsum("...sd,sed->...se", x, R)  # out[.., s, e] = sum_d R[s, e, d] x[.., s, d]

    def f_complex():
        xc = torch.view_as_complex(x.float().reshape(*x.shape[:-1], -1, 2))  # (..., seq, dim/2)
        return torch.view_as_real(xc * freqs_cis).flatten(-2).type_as(x)

    def f_rc_complex():
        return rope_core.apply_rope_complex(x, positions, theta)

    def f_cos_sin():
        return rope_core.cos_sin(positions, theta, torch.float32)

    def f_hf():
        q_embed, _ = apply_rotary_pos_emb(x4, k_empty, hf_cos_b, hf_sin_b, unsqueeze_dim=1)
        return q_embed.view(x.shape)

    # (label, fn, layout, note)
    cases = [
        ("x.clone()  [floor]", f_clone, None, ""),
        ("apply_rope interleaved", f_inter, "interleaved", "cos/sin per call"),
        ("apply_rope half", f_half, "half", "cos/sin per call"),
    ] + ([
        ("dense einsum x@R^T", f_dense, "interleaved", "R (seq,dim,dim) prebuilt"),
    ] if R is not None else [])
    cases += [
        ("complex (LLaMA)", f_complex, "interleaved", "freqs_cis prebuilt"),
        ("apply_rope_complex", f_rc_complex, "interleaved", "polar per call"),
    ]
    if apply_rotary_pos_emb is not None:
        cases.append(("HF apply_rotary_pos_emb", f_hf, "half", "cos/sin prebuilt, q only"))

    print(f"\n=== device: {device}  x {tuple(shape)} float32 ({x.nbytes / 2**20:.0f} MiB), "
          f"base {base:g}, torch {torch.__version__}, "
          f"threads {torch.get_num_threads() if device.type == 'cpu' else '-'}"
          f"{', ' + torch.cuda.get_device_name(device) if device.type == 'cuda' else ''} ===")
    if R is not None:
        print(f"dense R stack: {R.nbytes / 2**20:.0f} MiB, built from cos/sin outside the timed region "
              f"(its GB/s counts only x in + out, not R)")
    else:
        print(f"dense formulation skipped: its R stack would take {dense_bytes / 2**30:.1f} GiB "
              f"(limit {DENSE_MAX_BYTES / 2**30:.0f} GiB)")
    if apply_rotary_pos_emb is not None:
        print(f"transformers {HF_VERSION}: apply_rotary_pos_emb(q=x, k=empty, cos[None], sin[None]); "
              f"k has 0 heads so only q is rotated")
    else:
        print(f"transformers is not installed ({HF_ERROR}); "
              f"install it with: .venv/bin/pip install transformers")

    # ---- correctness, before timing ----------------------------------------
    ref = {"interleaved": f_inter(), "half": f_half()}
    if R is not None:
        sanity = rope_core.rotation_matrix(seq - 1, theta).to(torch.float32)
        print(f"dense stack R[{seq - 1}] vs rope_core.rotation_matrix: "
              f"max abs diff {(R[seq - 1] - sanity).abs().max().item():.2e}")
    print("\nagreement with apply_rope (max abs diff, same layout):")
    diffs = {}
    for label, fn, layout, _ in cases:
        if layout is None:
            continue
        out = fn()
        assert out.shape == x.shape and out.dtype == x.dtype, (label, out.shape, out.dtype)
        d = (out - ref[layout]).abs().max().item()
        diffs[label] = d
        ok = "ok" if d < 1e-4 else "MISMATCH"
        print(f"  {label:<26} vs apply_rope({layout!r:<13}): {d:.2e}  {ok}")
        del out
    del ref

    # ---- timing --------------------------------------------------------------
    fns = {label: fn for label, fn, _, _ in cases}
    fns["  (of which cos_sin)"] = f_cos_sin
    timed = time_round_robin(fns, device, repeats)
    results = {label: med for label, (med, _) in timed.items()}
    clone_ms = results["x.clone()  [floor]"]
    notes = {label: note for label, _, _, note in cases}
    notes["  (of which cos_sin)"] = "rope_core.cos_sin alone (float64 angles)"
    print(f"\n{'formulation':<26} {'median ms':>10} {'min ms':>8} {'GB/s':>7} {'/clone':>7}  note")
    print("-" * 84)
    for label, (ms, best) in timed.items():
        gbs = " " * 7 if label == "  (of which cos_sin)" else f"{nbytes / ms / 1e6:7.2f}"
        print(f"{label:<26} {ms:>10.2f} {best:>8.2f} {gbs} {ms / clone_ms:>6.2f}x  {notes[label]}")
    print(f"({repeats} timed runs each, round-robin, after {WARMUP} warm-up runs each; "
          f"GB/s = 2 * x.nbytes / median time)")

    # ---- verdicts ------------------------------------------------------------
    print("\nverdicts (median times):")
    best = {label: b for label, (_, b) in timed.items()}
    for layout in ("interleaved", "half"):
        ms = results[f"apply_rope {layout}"]
        ratio = ms / clone_ms
        min_ratio = best[f"apply_rope {layout}"] / best["x.clone()  [floor]"]
        print(f"  apply_rope {layout:<12}/ clone = {ratio:.2f}  -> "
              f"'<= 2x clone': {'MET' if ratio <= 2.0 else 'NOT MET'}   "
              f"(ratio of min times {min_ratio:.2f}: {'MET' if min_ratio <= 2.0 else 'NOT MET'})")
    hf_label = "HF apply_rotary_pos_emb"
    if hf_label in results:
        hf_ms = results[hf_label]
        for layout in ("half", "interleaved"):
            ms = results[f"apply_rope {layout}"]
            print(f"  apply_rope {layout:<12}vs transformers: {ms:.2f} ms vs {hf_ms:.2f} ms "
                  f"(transformers / apply_rope = {hf_ms / ms:.2f}) -> 'faster than transformers': "
                  f"{'MET' if ms < hf_ms else 'NOT MET'}")
    else:
        print("  'faster than transformers': not checked (transformers not installed; "
              ".venv/bin/pip install transformers)")
    bad = [k for k, d in diffs.items() if d >= 1e-4]
    print(f"  agreement: {'all formulations within 1e-4' if not bad else 'MISMATCH: ' + ', '.join(bad)}")


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--shape", type=int, nargs="+", default=[1, 32, 4096, 128],
                   help="shape of x, (..., seq, dim) with even dim (default: 1 32 4096 128)")
    p.add_argument("--repeats", type=int, default=10, help="timed runs per formulation (default 10)")
    p.add_argument("--device", default="auto", choices=("auto", "cpu", "cuda", "all"),
                   help="auto/all: CPU, plus CUDA when available (default); cpu; cuda")
    p.add_argument("--base", type=float, default=rope_core.DEFAULT_BASE, help="RoPE base (default 10000)")
    args = p.parse_args(argv)
    if len(args.shape) < 2 or args.shape[-1] % 2 or min(args.shape) < 1:
        p.error(f"--shape must be (..., seq, dim) with positive sizes and even dim, got {args.shape}")
    if args.repeats < 1:
        p.error("--repeats must be >= 1")
    if args.device == "cuda" and not torch.cuda.is_available():
        p.error("--device cuda: torch.cuda.is_available() is False on this machine")
    devices = [torch.device(args.device)] if args.device in ("cpu", "cuda") else (
        [torch.device("cpu")] + ([torch.device("cuda")] if torch.cuda.is_available() else []))
    load1 = os.getloadavg()[0]
    ncpu = os.cpu_count() or 1
    print(f"load average (1 min) before start: {load1:.2f} on {ncpu} CPUs"
          + ("  WARNING: other processes compete for the CPU; CPU timings are noisy"
             if load1 > 0.5 * ncpu else ""))
    for device in devices:
        bench_device(device, args.shape, args.repeats, args.base)


if __name__ == "__main__":
    main()
