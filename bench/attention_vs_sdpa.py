#!/usr/bin/env python3
"""The attention sample against PyTorch's SDPA with the cuDNN backend, in alternating rounds
of one process: for each round and each row, `tilejit run` of the row's spec (a child
process, its median over --iters launches), then SDPA cuDNN on the same shape here (the
median of as many launches). Each side's figure per row is the median of its rounds'
medians; the ratio is ours / cuDNN. Round 1 also verifies ours against its host reference
(a row that fails verification is reported and gets no ratio).

Usage: attention_vs_sdpa.py TILEJIT SPEC [--rounds N] [--iters N] [--quick] [--seqs 1024,2048] [--dims 128]
       [--schedules grid,dynamic]
  SPEC: samples/specs/attention.json (its params are replaced per row).
Rows: batch x heads 16 (b1 h16) and 32 (b2 h16); seq 1k 2k 4k 8k 16k; d 64 and 128 (--dims: any
multiple of 8 up to 256); causal and not (--quick: seq 4k only). Where SDPA cuDNN refuses a shape (it may at d 256),
the row prints ours with the reference marked unavailable and the reason, and no ratio."""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import warnings

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel


def sdpa_ms(b, h, s, d, causal, iters):
    """SDPA cuDNN timed as tilejit times its launches (runtime/timing.cpp): the launches
    enqueued back to back, an event pair around each, one synchronize at the end, the
    median. The call is captured in a CUDA graph and replayed, so that PyTorch's host-side
    dispatch (tens of microseconds, more than a short kernel) does not count against it;
    where capture fails the call itself is enqueued, and the row says so."""
    q, k, v = (torch.randn(b, h, s, d, device="cuda", dtype=torch.bfloat16) for _ in range(3))
    with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
        call = lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal)
        try:
            with warnings.catch_warnings(record=True) as said:  # SDPA says why a backend was not used
                warnings.simplefilter("always")
                for _ in range(3):
                    call()
                torch.cuda.synchronize()
        except RuntimeError as e:  # no cuDNN kernel for this shape (e.g. some d 256 rows): no reference
            del q, k, v
            torch.cuda.empty_cache()
            lines = [x.strip() for w in said for x in str(w.message).splitlines() if x.strip()]
            lines += [x.strip() for x in str(e).splitlines() if x.strip()]
            return None, "unavailable: " + ("; ".join(lines[:2])[:160] or type(e).__name__).replace("|", "/")
        how = "graph"
        try:
            side = torch.cuda.Stream()
            side.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(side):
                call()
            torch.cuda.current_stream().wait_stream(side)
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph):
                call()
            run = graph.replay
        except RuntimeError:
            how, run = "direct", call
        run()
        events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(iters)]
        for start, end in events:
            start.record()
            run()
            end.record()
        events[-1][1].synchronize()
        times = [start.elapsed_time(end) for start, end in events]
    del q, k, v
    torch.cuda.empty_cache()
    return statistics.median(times), how


def ours_ms(tilejit, spec, row, iters, verify, schedule=None):
    b, h, s, d, causal = row
    spec = dict(spec)
    spec["params"] = dict(spec["params"], batch=b, heads=h, seq_q=s, seq_k=s, head_dim=d, causal=int(causal))
    if schedule:
        spec["params"]["schedule"] = schedule
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(spec, f)
        path = f.name
    try:
        args = [tilejit, "run", path, "--iters", str(iters)] + ([] if verify else ["--no-verify"])
        p = subprocess.run(args, capture_output=True, text=True)
    finally:
        os.unlink(path)
    out = p.stdout + p.stderr
    m = re.search(r"^time\s+median ([0-9.]+) ms", out, re.M)
    if p.returncode != 0 or not m:
        return None, f"tilejit run exited {p.returncode}: " + " | ".join(out.strip().splitlines()[-3:])
    status = ""
    if verify:
        v = re.search(r"^verify\s+(.*)$", out, re.M)
        status = v.group(1)[:60] if v else "no verify line"
    return float(m.group(1)), status


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tilejit")
    ap.add_argument("spec")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--iters", type=int, default=10)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--seqs", help="comma-separated sequence lengths (default 1k..16k; --quick: 4k)")
    ap.add_argument("--dims", default="64,128", help="comma-separated head dims")
    ap.add_argument("--causal", default="0,1", help="comma-separated: 0 (every key), 1 (causal) or both")
    ap.add_argument("--schedules", default="",
                    help="comma-separated attention schedules (grid, static, dynamic): a column each; default: the spec's")
    a = ap.parse_args()
    spec = json.load(open(a.spec))
    seqs = [4096] if a.quick else [1024, 2048, 4096, 8192, 16384]
    if a.seqs:
        seqs = [int(x) for x in a.seqs.split(",")]
    dims = [int(x) for x in a.dims.split(",")]
    if any(d % 8 or not 8 <= d <= 256 for d in dims):
        ap.error(f"--dims {a.dims}: the attention sample takes head dims that are multiples of 8 up to 256")
    scheds = [x for x in a.schedules.split(",") if x] or [None]
    causal = [x for x in a.causal.split(",") if x]
    if not causal or any(x not in ("0", "1") for x in causal):
        ap.error(f"--causal {a.causal}: give 0, 1 or 0,1")
    rows = [(b, 16, s, d, c == "1") for d in dims for c in causal for b in (1, 2) for s in seqs]
    ours = {(r, k): [] for r in rows for k in scheds}
    ref = {r: [] for r in rows}
    status, how, why = {}, {}, {}
    for rnd in range(a.rounds):
        for r in rows:
            for k in scheds:
                ms, st = ours_ms(a.tilejit, spec, r, a.iters, verify=(rnd == 0), schedule=k)
                if rnd == 0:
                    status[(r, k)] = st
                if ms is not None:
                    ours[(r, k)].append(ms)
            ms, note = sdpa_ms(*r, a.iters)
            if ms is not None:
                ref[r].append(ms)
                how[r] = note
            else:
                why[r] = note
        print(f"round {rnd + 1} of {a.rounds} done", file=sys.stderr, flush=True)
    print(f"{torch.cuda.get_device_name()}, torch {torch.__version__}, cuDNN {torch.backends.cudnn.version()}; "
          f"{a.rounds} alternating rounds, {a.iters} launches each, enqueued back to back (cuDNN: a CUDA graph of the call "
          f"unless the row says direct); TFLOP/s at the median of the rounds' medians")
    name = (lambda k: "" if k is None else f" ({k})")
    head = "".join(f" ours{name(k)} TFLOP/s | ratio |" for k in scheds)
    print(f"| b x h | seq | d | causal |{head} cuDNN TFLOP/s | verify (round 1) |")
    print("|---|---|---|---|" + "---|---|" * len(scheds) + "---|---|")
    for r in rows:
        b, h, s, d, c = r
        flops = 4.0 * b * h * s * s * d / (2 if c else 1)
        ref_tf = flops / statistics.median(ref[r]) / 1e9 if ref[r] else None
        cells, verdicts = "", []
        for k in scheds:
            st = status[(r, k)]
            verdicts.append(f"{k + ': ' if k else ''}{st}")
            if ours[(r, k)] and "fail" not in st.lower() and "exited" not in st:
                ours_tf = flops / statistics.median(ours[(r, k)]) / 1e9
                cells += f" {ours_tf:.1f} | {f'{ours_tf / ref_tf:.3f}' if ref_tf else '-'} |"
            else:
                cells += " - | - |"
        if ref_tf is None:
            ref_cell = f"- ({why[r]})"  # SDPA cuDNN refused the shape: why, in its words
        else:
            ref_cell = f"{ref_tf:.1f}{'' if how.get(r) == 'graph' else ' (direct)'}"
        print(f"| {b * h} | {s} | {d} | {int(c)} |{cells} {ref_cell} | {'; '.join(verdicts)} |")


if __name__ == "__main__":
    main()
