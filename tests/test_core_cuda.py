"""The same numbers on a CUDA GPU as on the CPU (skipped where there is no GPU)."""

import pytest
import torch

import rope_core as rc

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(),
                                reason="no CUDA GPU on this machine")


@pytest.mark.parametrize("dtype,tol", [(torch.float64, 1e-12), (torch.float32, 1e-5)])
@pytest.mark.parametrize("layout", ["interleaved", "half"])
def test_apply_rope_cuda_matches_cpu(dtype, tol, layout):
    g = torch.Generator().manual_seed(0)
    x = torch.randn(2, 3, 16, 64, generator=g, dtype=torch.float64).to(dtype)
    pos = [10**6 + i for i in range(16)]
    th = rc.theta(64)
    cpu = rc.apply_rope(x, pos, th, layout=layout)
    gpu = rc.apply_rope(x.cuda(), pos, th.cuda(), layout=layout)
    assert gpu.device.type == "cuda" and gpu.dtype == dtype and gpu.shape == x.shape
    torch.testing.assert_close(gpu.cpu(), cpu, rtol=tol, atol=tol)
    if layout == "interleaved":
        gpu_c = rc.apply_rope_complex(x.cuda(), pos, th.cuda())
        torch.testing.assert_close(gpu_c.cpu(), cpu, rtol=tol, atol=tol)


def test_relative_upper_bound_cuda_matches_cpu():
    th = rc.theta(128)
    r = torch.arange(0, 200_000, 7, dtype=torch.float64)  # spans several chunks
    cpu = rc.relative_upper_bound(r, th)
    gpu = rc.relative_upper_bound(r, th.cuda())
    assert gpu.device.type == "cuda" and gpu.dtype == torch.float64
    torch.testing.assert_close(gpu.cpu(), cpu, rtol=1e-10, atol=1e-12)


def test_resolve_device_cuda():
    assert rc.resolve_device("cuda").type == "cuda"
    assert rc.resolve_device("auto").type == "cuda"
