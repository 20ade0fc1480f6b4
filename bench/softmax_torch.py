#!/usr/bin/env python3
"""torch.softmax over the last dimension on the shapes of tilejit_bench_softmax (8192x4096,
16384x1024, 4096x16384 f32; 8192x4096 bf16), each interleaved with a device-to-device copy
of the same bytes (y.copy_(x)): the reference that scripts/gpu_session.sh's `softmax`
section prints beside the bench. Each repetition times ITERS softmaxes and ITERS copies
between CUDA events, alternating which goes first; TB/s counts bytes read plus bytes
written, at the median repetition. A separate process from ours: compare its TB/s and its
fraction of the copy with the bench's.
Usage: softmax_torch.py [REPS [ITERS]]"""
import sys

import torch

SHAPES = ((8192, 4096, torch.float32), (16384, 1024, torch.float32), (4096, 16384, torch.float32),
          (8192, 4096, torch.bfloat16))


def per_call_ms(fn, iters):
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(iters):
        fn()
    end.record()
    end.synchronize()
    return start.elapsed_time(end) / iters


def median(values):
    v = sorted(values)
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def main():
    reps = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    iters = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    print(f"torch {torch.__version__} on {torch.cuda.get_device_name()}: torch.softmax(x, dim=-1) vs y.copy_(x), "
          f"{reps} reps of {iters} calls each, interleaved")
    for rows, cols, dtype in SHAPES:
        x = torch.randn(rows, cols, device="cuda", dtype=dtype) * 8
        y = torch.empty_like(x)
        ref = torch.softmax(x.double(), dim=-1)
        err = ((torch.softmax(x, dim=-1).double() - ref).abs() / ref.clamp_min(1e-30)).max().item()
        del ref
        soft = lambda: torch.softmax(x, dim=-1)
        copy = lambda: y.copy_(x)
        for fn in (soft, copy):  # warm-up
            for _ in range(3):
                fn()
        soft_ms, copy_ms, paired = [], [], []
        for r in range(reps):
            order = (soft, copy) if r % 2 == 0 else (copy, soft)
            ms = {fn: per_call_ms(fn, iters) for fn in order}
            soft_ms.append(ms[soft])
            copy_ms.append(ms[copy])
            paired.append(ms[copy] / ms[soft])
        moved = 2.0 * x.numel() * x.element_size()
        s, c = median(soft_ms), median(copy_ms)
        name = "f32" if dtype == torch.float32 else "bf16"
        print(f"torch.softmax {rows}x{cols} {name}: median {s:.4f} ms, {moved / s / 1e9:.2f} TB/s; copy {c:.4f} ms, "
              f"{moved / c / 1e9:.2f} TB/s; of copy {c / s:.3f} (per rep {min(paired):.3f} / {median(paired):.3f} / "
              f"{max(paired):.3f}); max relative error vs double {err:.2e}")


if __name__ == "__main__":
    main()
