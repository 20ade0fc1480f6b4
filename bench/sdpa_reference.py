#!/usr/bin/env python3
"""PyTorch's scaled_dot_product_attention (cuDNN and FlashAttention backends) on the shape of
samples/specs/attention.json: the reference that scripts/gpu_session.sh's `attention`
section prints beside `tilejit run` of that spec. Sequential in one call, not interleaved
with ours: an indication, not a benchmark of record.
Usage: sdpa_reference.py BATCH HEADS SEQ HEAD_DIM"""
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel


def time_ms(fn, iters=20, warmup=5):
    for _ in range(warmup):
        fn()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times = []
    for _ in range(iters):
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    times.sort()
    return times[len(times) // 2]


def main():
    b, h, s, d = (int(x) for x in sys.argv[1:5])
    q, k, v = (torch.randn(b, h, s, d, device="cuda", dtype=torch.bfloat16) for _ in range(3))
    for name, backend in (("cuDNN", SDPBackend.CUDNN_ATTENTION), ("flash", SDPBackend.FLASH_ATTENTION)):
        for causal in (False, True):
            flops = 4.0 * b * h * s * s * d / (2 if causal else 1)
            try:
                with sdpa_kernel(backend):
                    ms = time_ms(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal))
                print(f"sdpa {name:5s} b{b} h{h} s{s} d{d} causal {int(causal)}: median {ms:.4f} ms, {flops / ms / 1e9:.1f} TFLOP/s")
            except RuntimeError as e:  # a backend this build or GPU lacks
                print(f"sdpa {name:5s} causal {int(causal)}: not available: {str(e).splitlines()[0]}")


if __name__ == "__main__":
    main()
