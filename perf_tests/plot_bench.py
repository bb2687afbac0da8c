#!/usr/bin/env python3
"""Charts from `gustav bench --json` output.

    perf_tests/plot_bench.py RESULT.json [MORE.json ...] --out DIR

For each JSON file, writes into DIR:
  <stem>_speedup.png  speedup of Gustav (total time, symbolic + numeric with
                      allocations) over every peer, per product; peers that
                      disagreed with Gustav are hatched and labelled;
  <stem>_gflops.png   Gustav's GFLOP/s (2 * products / time) per phase:
                      symbolic, numeric, total, numeric-only reuse;
  <stem>_table.md     the same numbers as a Markdown table, for the README.
Only Debian's python3-matplotlib is needed.
"""
import argparse
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def load(path):
    with open(path) as f:
        return json.load(f)


def short_name(name):
    """lap3d:120:7/aa -> lap3d:120:7; ../shared/matrices/x.mtx * T -> x.mtx * T."""
    if ".mtx" in name:
        return " * ".join(os.path.basename(part.strip()) for part in name.split("*"))
    name = name[:-3] if name.endswith("/aa") else name
    return name[:-2] if name.endswith(":1") and name.startswith(("rmat:", "er:")) else name


def by_name(product):
    return {m["name"]: m for m in product["implementations"]}


def median(m, phase):
    return m[phase]["median_s"] if m.get("ran") and m[phase]["seconds"] else None


def title_of(report):
    machine = report["machine"]
    if machine["space"] == "cuda":
        where = machine["device"]
    else:
        where = f"{machine['threads']} threads of {machine.get('cpu', 'the CPU')}"
    return f"{machine['space']} on {where}, Kokkos {machine['kokkos_version']}, {machine['date'][:10]}"


def plot_speedup(report, out):
    products = [p for p in report["products"] if not p.get("error")]
    peers = []
    for p in products:
        for m in p["implementations"]:
            if m["name"] != "gustav" and not m["name"].startswith("gustav/") and m["name"] not in peers:
                peers.append(m["name"])
    if not products or not peers:
        return False
    fig, ax = plt.subplots(figsize=(max(6, 1.2 * len(products) * max(1, len(peers)) / 2), 4.5))
    width = 0.8 / len(peers)
    for k, peer in enumerate(peers):
        xs, ys, hatches = [], [], []
        for i, p in enumerate(products):
            impl = by_name(p)
            g, q = impl.get("gustav"), impl.get(peer)
            if not g or not q or median(q, "total") is None or median(g, "total") is None:
                continue
            xs.append(i + (k - (len(peers) - 1) / 2) * width)
            ys.append(median(q, "total") / median(g, "total"))
            hatches.append("" if q["agrees"] else "//")
        bars = ax.bar(xs, ys, width, label=peer)
        for bar, h in zip(bars, hatches):
            bar.set_hatch(h)
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_yscale("log")
    ax.set_xticks(range(len(products)))
    ax.set_xticklabels([short_name(p["name"]) for p in products], rotation=30, ha="right")
    ax.set_ylabel("speedup of Gustav (peer time / Gustav time)")
    ax.set_title(f"Gustav vs peers, total time\n{title_of(report)}", fontsize=9)
    ax.legend(fontsize=8, title="hatched: result disagreed", title_fontsize=7)
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    plt.close(fig)
    return True


def plot_gflops(report, out):
    products = [p for p in report["products"] if not p.get("error")]
    phases = ["symbolic", "numeric", "total", "reuse"]
    if not products:
        return False
    fig, ax = plt.subplots(figsize=(max(6, 1.0 * len(products)), 4.5))
    width = 0.8 / len(phases)
    for k, phase in enumerate(phases):
        xs, ys = [], []
        for i, p in enumerate(products):
            g = by_name(p).get("gustav")
            if g and median(g, phase):
                xs.append(i + (k - 1.5) * width)
                ys.append(g[phase]["gflops_median"])
        ax.bar(xs, ys, width, label=phase)
    ax.set_xticks(range(len(products)))
    ax.set_xticklabels([short_name(p["name"]) for p in products], rotation=30, ha="right")
    ax.set_ylabel("GFLOP/s (2 x products / time)")
    ax.set_title(f"Gustav by phase\n{title_of(report)}", fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    plt.close(fig)
    return True


def table(report):
    lines = [
        f"Measured {report['machine']['date']} on {title_of(report)}.",
        "",
        "| product | products | nnz(C) | implementation | total ms | GFLOP/s | reuse ms | temp MiB | check |",
        "| --- | ---: | ---: | --- | ---: | ---: | ---: | ---: | --- |",
    ]
    for p in report["products"]:
        if p.get("error"):
            lines.append(f"| {short_name(p['name'])} | | | failed: {p['error']} | | | | | |")
            continue
        for m in p["implementations"]:
            if not m["ran"]:
                lines.append(f"| {short_name(p['name'])} | | | {m['name']} | did not run | | | | {m['note']} |")
                continue
            total = m["total"]["median_s"] * 1e3
            reuse = m["reuse"]["median_s"] * 1e3 if m["reuse"]["seconds"] else float("nan")
            check = "agrees" if m["agrees"] else ("disagrees" + ("" if m["trusted"] else " (untrusted)"))
            lines.append(
                f"| {short_name(p['name'])} | {p['products']:,} | {p['nnz_c']:,} | {m['name']} | {total:.3f} | "
                f"{m['total']['gflops_median']:.2f} | {reuse:.3f} | {m['peak_temp_bytes'] / 2**20:.1f} | {check} |")
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("json", nargs="+")
    parser.add_argument("--out", default=".")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    for path in args.json:
        report = load(path)
        stem = os.path.splitext(os.path.basename(path))[0]
        made = []
        if plot_speedup(report, os.path.join(args.out, stem + "_speedup.png")):
            made.append(stem + "_speedup.png")
        if plot_gflops(report, os.path.join(args.out, stem + "_gflops.png")):
            made.append(stem + "_gflops.png")
        with open(os.path.join(args.out, stem + "_table.md"), "w") as f:
            f.write(table(report))
        made.append(stem + "_table.md")
        print(f"{path}: wrote {', '.join(made)} in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
