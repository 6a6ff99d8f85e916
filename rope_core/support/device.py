"""Choosing the compute device."""

from __future__ import annotations

import torch

from ._checks import RopeError, check_choice

DEVICES = ("auto", "cpu", "cuda")


def resolve_device(name: str = "auto") -> torch.device:
    """"auto" -> CUDA when available, else CPU; "cpu"; "cuda" (must be available).

    Raises:
        ValueError: unknown name, or "cuda" asked for where no GPU exists.
    """
    name = check_choice(name, "device", DEVICES)
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name == "cuda" and not torch.cuda.is_available():
        raise RopeError("device='cuda' is not allowed: no CUDA GPU is available on this "
                        "machine; device must be 'auto' or 'cpu'.")
    return torch.device(name)
