"""Plots the CSV files of scripts/soak.sh: resident memory, threads and descriptors over time.

  soak_plot.py OUT.png A.csv [B.csv ...]
"""
import csv
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    out, paths = sys.argv[1], sys.argv[2:]
    figure, axes = plt.subplots(len(paths), 3, figsize=(15, 3.6 * len(paths)), squeeze=False)
    for row, path in enumerate(paths):
        with open(path) as handle:
            rows = list(csv.DictReader(handle))
        t = [float(r["seconds"]) for r in rows]
        name = os.path.splitext(os.path.basename(path))[0]
        series = [("rss_kib", "resident memory (MiB)", 1 / 1024), ("threads", "threads", 1), ("fds", "open descriptors", 1)]
        for column, (key, label, scale) in enumerate(series):
            ax = axes[row][column]
            values = [float(r[key]) * scale for r in rows]
            ax.plot(t, values)
            ax.set_title(f"{name}: {label}")
            ax.set_xlabel("seconds")
            ax.set_ylim(0, max(values + [1]) * 1.15)
            ax.grid(True, alpha=0.3)
    figure.tight_layout()
    figure.savefig(out, dpi=90)


if __name__ == "__main__":
    main()
