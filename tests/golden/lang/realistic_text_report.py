# Formatting a small table report from records.
records = [
    {"name": "vadd", "blocks": 8, "ms": 0.125},
    {"name": "matmul", "blocks": 64, "ms": 12.5},
    {"name": "softmax", "blocks": 16, "ms": 1.0625},
]
header = f"{'kernel':<10}{'blocks':>8}{'ms':>10}"
print(header)  # expect: kernel      blocks        ms
print("-" * len(header))  # expect: ----------------------------
for r in sorted(records, key=lambda r: r["ms"], reverse=True):
    print(f"{r['name']:<10}{r['blocks']:>8}{r['ms']:>10.3f}")
# expect: matmul          64    12.500
# expect: softmax         16     1.062
# expect: vadd             8     0.125
total = sum(r["ms"] for r in records)
print(f"{'total':<10}{sum(r['blocks'] for r in records):>8}{total:>10.3f}")
# expect: total           88    13.688
