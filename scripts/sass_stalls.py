#!/usr/bin/env python3
"""Where a kernel's warps stall, from ncu's source page as CSV (`ncu -i REPORT --page source
--print-source sass --csv`): the share of the stall samples per opcode and the instructions
with the most samples, each with its index in the listing and how often it executed.

    scripts/sass_stalls.py sass_ours.csv [TOP]
"""
import csv
import sys


def number(text):
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return 0.0


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    top = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    rows = list(csv.reader(open(sys.argv[1], newline="")))
    header_at = next((i for i, r in enumerate(rows) if "Source" in r), None)
    if header_at is None:
        sys.exit(f"{sys.argv[1]}: no header row with a 'Source' column: not ncu's source page as CSV")
    header, body = rows[header_at], rows[header_at + 1:]
    samples_col = next((i for i, c in enumerate(header) if c.startswith("Warp Stall Sampling (All")), None)
    if samples_col is None:
        sys.exit(f"{sys.argv[1]}: no 'Warp Stall Sampling (All Samples)' column (was SourceCounters collected?)")
    source_col = header.index("Source")
    executed_col = header.index("Instructions Executed") if "Instructions Executed" in header else None
    listing = [r for r in body if len(r) > max(samples_col, source_col)]
    total = sum(number(r[samples_col]) for r in listing)
    if total == 0:
        sys.exit(f"{sys.argv[1]}: no stall samples")
    by_opcode = {}
    for r in listing:
        words = r[source_col].split()
        if words and words[0].startswith("@"):
            words = words[1:]
        opcode = words[0].split(".")[0] if words else "?"
        by_opcode[opcode] = by_opcode.get(opcode, 0.0) + number(r[samples_col])
    print(f"{total:.0f} stall samples over {len(listing)} instructions")
    for opcode, n in sorted(by_opcode.items(), key=lambda x: -x[1])[:12]:
        print(f"  {opcode:14s} {100 * n / total:5.1f}%")
    print(f"the {top} instructions with the most samples (index, share, executed, instruction):")
    ranked = sorted(range(len(listing)), key=lambda i: -number(listing[i][samples_col]))[:top]
    for i in ranked:
        r = listing[i]
        executed = r[executed_col] if executed_col is not None else "?"
        print(f"  {i:5d} {100 * number(r[samples_col]) / total:5.1f}% {executed:>9s}  {r[source_col].strip()[:90]}")


if __name__ == "__main__":
    main()
