#!/usr/bin/env python3
"""The README's GEMM table from a tilejit_bench_gemm log (scripts/gpu_session.sh readme-table):
one row per shape, with what the default path decided (schedule, tile, cluster) read from the
log's `gemm ...` and `tuned ...` lines beside the bench's own figures."""
import re
import sys


def decided(header, line):
    """'schedule, tile width, cluster' from a shape's header (its clusters) and auto line."""
    cluster = re.search(r"clusters of (\d+)x(\d+)x(\d+)", header)
    xy = f"{cluster.group(1)}x{cluster.group(2)}" + (f"x{cluster.group(3)}" if cluster and cluster.group(3) != "1" else "") if cluster else "?"
    sched = "static"
    for m in re.finditer(r"schedule auto -> ([a-z_]+)(?: \(splits (\d+)\))?", line):
        sched = {"stream_k": "stream-K", "split_k": "split-K " + (m.group(2) or "")}.get(m.group(1), m.group(1)).strip()
    if "schedule static for it" in line:
        sched = "static"
    widths = re.findall(r"(?:bn 0 -> |packing -> bn |long split -> bn |stream-K tile -> bn )(\d+)", line)
    width = f"bn {widths[-1]}" if widths else "bn ?"
    if "bm 128 -> 64, consumers 2 -> 1" in line:
        width = f"64x{widths[-1] if widths else '?'} of one warpgroup"
    rows = re.search(r"bm 128 -> (\d+), consumers 2 -> (\d+)", line)
    if rows and rows.group(1) != "64":
        width = f"{rows.group(1)}x{widths[-1] if widths else '?'}"
    swap = re.search(r"small M -> swap 1, bm (\d+), bn (\d+)", line)
    if swap:
        width = f"swapped, {swap.group(1)} of B's rows x {swap.group(2)} of A's"
    without = " without multicast" if "without multicast" in line and xy != "1x1" else ""
    return f"{sched}, {width}, {xy}{without}"


def main(path):
    # Each shape's `gemm MxNxK ...` header and the `tuned ...` line after it, by shape: the
    # bench prints them as it runs each shape and its table of rows at the end.
    seen, shape_now = {}, None
    out = []
    for text in open(path, encoding="utf-8", errors="replace"):
        if text.startswith("gemm "):
            shape_now = text.split()[1]
            seen[shape_now] = [text, ""]
        elif text.lstrip().startswith("tuned") and shape_now:
            seen[shape_now][1] = text
        elif re.match(r"^\| \d+x\d+x\d+ \|", text):
            cells = [c.strip() for c in text.strip().strip("|").split("|")]
            if cells[0] not in seen:
                sys.exit(f"readme_table: no `gemm {cells[0]} ...` line before its row; no table written")
            header, line = seen[cells[0]]
            shape, ours, cublas, ratio, per_rep = cells[0], cells[3], cells[4], cells[5], cells[6]
            sustained = cells[7] if len(cells) > 8 else "-"
            verified = cells[-1]
            if verified != "yes":
                sys.exit(f"readme_table: {shape} was not verified ({verified}); no table written")
            out.append(f"| {shape} | {decided(header, line)} | {ours} | {cublas} | {ratio} | {per_rep} | {sustained} |")
    if not out:
        sys.exit(f"readme_table: no rows in {path}")
    print("| M x N x K | schedule, tile width, cluster | ours TFLOP/s (min / median / max) | cuBLAS TFLOP/s (min / median / max) "
          "| ours / cuBLAS | per rep (min / median / max) | sustained (min / median / max) |")
    print("|---|---|---|---|---|---|---|")
    print("\n".join(out))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: readme_table.py BENCH_LOG")
    main(sys.argv[1])
