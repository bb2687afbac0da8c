#!/usr/bin/env python3
"""Gustav against one peer, per product, from `gustav bench --json` output.

    perf_tests/compare_table.py RESULT.json PEER [VARIANT]

Prints a Markdown table: total time (symbolic + numeric, allocations
included), numeric-only reuse time and peak temporary memory of Gustav's
default and of PEER (e.g. cusparse, kk/kkmem), and the ratio peer / Gustav
(above 1: Gustav is faster or smaller). Rows where either did not run, or
where the peer disagreed with Gustav, say so. With VARIANT (e.g.
gustav/positions), three more columns give that Gustav variant's reuse
time, its ratio to PEER's reuse and its peak temporary memory.
"""
import json
import sys


def median(m, phase):
    return m[phase]["median_s"] * 1e3


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    data = json.load(open(sys.argv[1]))
    peer_name = sys.argv[2]
    variant = sys.argv[3] if len(sys.argv) == 4 else None
    extra_head = f" {variant} reuse ms | reuse speedup | {variant} temp MiB |" if variant else ""
    print(f"| product | products | Gustav ms | {peer_name} ms | speedup | Gustav reuse ms | "
          f"{peer_name} reuse ms | reuse speedup | Gustav temp MiB | {peer_name} temp MiB |{extra_head}")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |" + (" ---: | ---: | ---: |" if variant else ""))
    for p in data["products"]:
        impl = {m["name"]: m for m in p.get("implementations", [])}
        g, o = impl.get("gustav"), impl.get(peer_name)
        name = p["name"].replace(":1/aa", "").replace("/aa", "")
        if not g or not g["ran"]:
            print(f"| {name} | | Gustav did not run: {p.get('error', '')} |||||||")
            continue
        if not o or not o["ran"]:
            why = (o or {}).get("note", "not run")
            print(f"| {name} | {p['products']:,} | {median(g, 'total'):.2f} | {why} ||| "
                  f"{median(g, 'reuse'):.2f} |||{g['peak_temp_bytes'] / 2**20:.1f} | |")
            continue
        flag = "" if o["agrees"] else " (wrong C)"
        extra = ""
        if variant:
            v = impl.get(variant)
            if v and v["ran"]:
                vflag = "" if v["agrees"] else " (wrong C)"
                extra = (f" {median(v, 'reuse'):.2f}{vflag} | {median(o, 'reuse') / median(v, 'reuse'):.2f} | "
                         f"{v['peak_temp_bytes'] / 2**20:.1f} |")
            else:
                extra = " not run | | |"
        print(f"| {name} | {p['products']:,} | {median(g, 'total'):.2f} | {median(o, 'total'):.2f}{flag} | "
              f"{median(o, 'total') / median(g, 'total'):.2f} | {median(g, 'reuse'):.2f} | "
              f"{median(o, 'reuse'):.2f} | {median(o, 'reuse') / median(g, 'reuse'):.2f} | "
              f"{g['peak_temp_bytes'] / 2**20:.1f} | {o['peak_temp_bytes'] / 2**20:.1f} |{extra}")


if __name__ == "__main__":
    main()
