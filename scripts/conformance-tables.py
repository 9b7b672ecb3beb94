#!/usr/bin/python3
"""Summarises `iohw run --json` reports as the Markdown tables of
docs/CONFORMANCE.md: statuses by category, worst error ratio per dtype, and
the reasons for UNSUPPORTED.

    scripts/conformance-tables.py REPORT.json [REPORT.json ...]
"""
import collections
import json
import re
import sys

STATUSES = ["PASS", "FAIL", "UNSUPPORTED", "ERROR", "CRASH", "TIMEOUT", "INVALID", "WAIVED"]


def ratio(v):
    if isinstance(v, (int, float)):
        return v
    return float("inf")


def table(path):
    with open(path) as f:
        rep = json.load(f)
    be = rep["run"]["backend"]
    print(f"#### {be['name']} ({be['version']}), {len(rep['cases'])} cases: `{path}`\n")
    by_cat = collections.OrderedDict()
    worst = {}
    why = collections.Counter()
    for c in rep["cases"]:
        cat = c["id"].split(".")[1] if c["id"].count(".") >= 2 else c["id"]
        by_cat.setdefault(cat, collections.Counter())[c["status"]] += 1
        dt = re.search(r"dt=(\w+)", c["descriptor"]).group(1)
        if c["status"] in ("PASS", "FAIL", "WAIVED"):
            worst[dt] = max(worst.get(dt, 0.0), ratio(c["worst_ratio"]))
        if c["status"] == "UNSUPPORTED":
            why[re.sub(r"\(.*", "", c["message"]).strip()[:80]] += 1
    used = [s for s in STATUSES if any(v[s] for v in by_cat.values())]
    print("| category | " + " | ".join(used) + " |")
    print("|---|" + "---|" * len(used))
    for cat, cnt in by_cat.items():
        print(f"| {cat} | " + " | ".join(str(cnt[s]) for s in used) + " |")
    tot = collections.Counter()
    for cnt in by_cat.values():
        tot.update(cnt)
    print("| **all** | " + " | ".join(f"**{tot[s]}**" for s in used) + " |\n")
    if worst:
        print("worst error (u·err_bound) among compared cases: " +
              ", ".join(f"{dt} {('%.3g' % v) if v != float('inf') else 'inf (NaN/Inf rule)'}"
                        for dt, v in sorted(worst.items())) + "\n")
    if why:
        print("UNSUPPORTED because: " + "; ".join(f"{k} ({n})" for k, n in why.most_common(6)) + "\n")


for p in sys.argv[1:]:
    table(p)
