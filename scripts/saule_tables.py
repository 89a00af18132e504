#!/usr/bin/env python3
"""Saule et al. (model stretch): the paper-vs-ours tables of docs/models/stretch.md.

  scripts/saule_tables.py RESULTS_DIR

reads RESULTS_DIR/<sweep>/<latest run>/{summary.csv,claims.json} of the sweeps
scripts/saule_tables.sh runs (saule2012-table1b, saule2012-table1b-load302,
saule2012-sens-table1b-fcfs-spread, saule2012-dasedf-largest,
saule2012-dasedf-largest-rules, saule2012-fig1,
saule2012-fig2-reservation-dasedf, saule2012-fig5f-relax, saule2012-fig5-scojo-shrink,
saule2012-fig5-improved-select) and prints the markdown tables; a sweep not run
is said so. Standard library only. The published numbers come from
configs/published/saule_table1b.csv.
"""
import csv
import glob
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def latest(results, sweep):
    """The newest run folder of a sweep (by run.json's mtime), or None."""
    runs = glob.glob(os.path.join(results, sweep, "*", "summary.csv"))
    if not runs:
        return None
    return os.path.dirname(max(runs, key=os.path.getmtime))


def run_or_note(results, sweep, out):
    """The sweep's latest run folder, or None after noting that it was not run."""
    run = latest(results, sweep)
    if run is None:
        out.append(f"*{sweep}: not run.*\n")
    return run


def summary(run):
    with open(os.path.join(run, "summary.csv"), newline="") as f:
        return list(csv.DictReader(f))


def claims(run):
    with open(os.path.join(run, "claims.json")) as f:
        return json.load(f)


def num(r, col):
    return float(r[col])


def published():
    out = {}
    with open(os.path.join(ROOT, "configs", "published", "saule_table1b.csv"), newline="") as f:
        rows = [l for l in f if not l.startswith("#")]
    for r in csv.DictReader(rows):
        out[int(r["delta"])] = {k: float(v) for k, v in r.items() if k != "delta"}
    return out


def md_table(out, head, rows):
    """Appends a markdown table: head (cells) and rows (lists of cells), then a blank line."""
    out.append("| " + " | ".join(head) + " |")
    out.append("|" + "---|" * len(head))
    out.extend("| " + " | ".join(r) + " |" for r in rows)
    out.append("")


def within(ours, paper):
    return abs(ours - paper) <= 0.1 * abs(paper)


def table1b(results, out):
    pub = published()
    reads = [("saule2012-table1b", "(270, 310], the band §4.1 states (table1b.yaml)"),
             ("saule2012-table1b-load302", "(270, 302], the cap under which DASEDF's largest is 2.5 (table1b-load302.yaml)")]
    for sweep, what in reads:
        run = run_or_note(results, sweep, out)
        if run is None:
            continue
        v = {}
        for r in summary(run):
            v[(int(float(r["delta"])), r["algorithm"])] = r
        out.append(f"Loads above 270 in {what}; 0.55 of them above 290; mean (std) of the max stretch, "
                   "worst DASEDF instance, instances per Δ; ✓ = mean within 10 % of the paper's.\n")
        out.append("| Δ | FCFS paper | FCFS ours | DASEDF paper | DASEDF ours | DASEDF worst | n |")
        out.append("|---|---|---|---|---|---|---|")
        hits = {"FCFS": 0, "DASEDF": 0}
        shits = 0
        for d in sorted(pub):
            p = pub[d]
            f, a = v.get((d, "FCFS")), v.get((d, "DASEDF"))
            if f is None or a is None:
                continue
            fm, fs = num(f, "max_stretch_mean"), num(f, "max_stretch_std")
            am, as_ = num(a, "max_stretch_mean"), num(a, "max_stretch_std")
            fok, aok = within(fm, p["fcfs_mean"]), within(am, p["dasedf_mean"])
            hits["FCFS"] += fok
            hits["DASEDF"] += aok
            shits += within(fs, p["fcfs_std"]) + within(as_, p["dasedf_std"])
            out.append(f"| {d} | {p['fcfs_mean']:.2f} ({p['fcfs_std']:.2f}) | {fm:.2f} ({fs:.2f}){' ✓' if fok else ''} "
                       f"| {p['dasedf_mean']:.2f} ({p['dasedf_std']:.2f}) | {am:.2f} ({as_:.2f}){' ✓' if aok else ''} "
                       f"| {num(a, 'max_stretch_max'):.2f} | {int(f['n'])} |")
        out.append("")
        out.append(f"Means within 10 %: FCFS {hits['FCFS']}/8, DASEDF {hits['DASEDF']}/8 "
                   f"({hits['FCFS'] + hits['DASEDF']}/16); standard deviations within 10 %: {shits}/16.\n")
        out.append(verdicts(run, sweep))


def fcfs_spread(results, out):
    run = run_or_note(results, "saule2012-sens-table1b-fcfs-spread", out)
    if run is None:
        return
    pub = published()
    v = {(num(r, "load_hi"), int(num(r, "delta"))): r for r in summary(run)}
    his = sorted({k[0] for k in v})
    ds = sorted({k[1] for k in v})
    out.append("FCFS's standard deviation of the max stretch over the instances above load 270 against the "
               "upper end of the band (sens-table1b-fcfs-spread.yaml; the rest as table1b.yaml, "
               f"{int(next(iter(v.values()))['n'])} instances per point), and its growth from Δ = 5 and 20 to Δ = 100.\n")
    md_table(out, ["upper end"] + [f"std Δ {d}" for d in ds] + ["Δ 100 / Δ 5", "Δ 100 / Δ 20"],
             [["paper"] + [f"{pub[d]['fcfs_std']:.2f}" for d in ds]
              + [f"{pub[100]['fcfs_std'] / pub[5]['fcfs_std']:.1f}", f"{pub[100]['fcfs_std'] / pub[20]['fcfs_std']:.1f}"]]
             + [[f"{h:g}"] + [f"{num(v[(h, d)], 'max_stretch_std'):.2f}" for d in ds]
                + [f"{num(v[(h, 100)], 'max_stretch_std') / num(v[(h, 5)], 'max_stretch_std'):.1f}",
                   f"{num(v[(h, 100)], 'max_stretch_std') / num(v[(h, 20)], 'max_stretch_std'):.1f}"]
                for h in his])
    out.append(verdicts(run, "saule2012-sens-table1b-fcfs-spread"))


def verdicts(run, sweep):
    counts = {}
    for c in claims(run):
        counts[c["verdict"]] = counts.get(c["verdict"], 0) + 1
    fails = [c["id"] for c in claims(run) if c["verdict"] == "fail"]
    line = f"Claims of `{sweep}`: " + ", ".join(f"{n} {k}" for k, n in sorted(counts.items()))
    if fails:
        line += "; failing: " + ", ".join(f"`{i}`" for i in fails)
    return line + ".\n"


def largest(results, out):
    run = run_or_note(results, "saule2012-dasedf-largest", out)
    if run is None:
        return
    rows = summary(run)
    loads = sorted({num(r, "load") for r in rows})
    deltas = sorted({num(r, "delta") for r in rows})
    v = {(num(r, "delta"), num(r, "load")): r for r in rows}
    out.append("DASEDF's max stretch against the exact load: mean / worst of the instances "
               f"({int(rows[0]['n'])} per point); bold: worst above 2.5.\n")
    out.append("| Δ | " + " | ".join(f"{l:g}" for l in loads) + " |")
    out.append("|---|" + "---|" * len(loads))
    for d in deltas:
        cells = []
        for l in loads:
            r = v[(d, l)]
            w = num(r, "max_stretch_max")
            cell = f"{num(r, 'max_stretch_mean'):.2f} / {w:.2f}"
            cells.append(f"**{cell}**" if w > 2.5 else cell)
        out.append(f"| {d:g} | " + " | ".join(cells) + " |")
    out.append("")
    out.append(verdicts(run, "saule2012-dasedf-largest"))
    run = latest(results, "saule2012-dasedf-largest-rules")
    if run is None:
        return
    rows = summary(run)
    out.append("DASEDF's mean max stretch under the readings of its check and target "
               f"({int(rows[0]['n'])} instances per point):\n")
    keys = [("lemma", "instant"), ("strict_prefix", "instant"), ("no_running", "instant"), ("lemma", "keep_max")]
    v = {(num(r, "delta"), num(r, "load"), r["dasedf_check"], r["dasedf_target"]): r for r in rows}
    md_table(out, ["Δ", "load"] + [f"{c}, {t}" for c, t in keys],
             [[f"{d:g}", f"{l:g}"] + [f"{num(v[(d, l, c, t)], 'max_stretch_mean'):.3f}" if (d, l, c, t) in v else "–"
                                      for c, t in keys]
              for d in sorted({num(r, "delta") for r in rows}) for l in sorted({num(r, "load") for r in rows})])
    out.append(verdicts(run, "saule2012-dasedf-largest-rules"))


def fig1(results, out):
    run = run_or_note(results, "saule2012-fig1", out)
    if run is None:
        return
    rows = summary(run)
    loads = sorted({num(r, "load") for r in rows})
    v = {(num(r, "delta"), r["algorithm"], num(r, "load")): r for r in rows}
    out.append("Fig. 1 (fig1.yaml, target loads with the exponential draws' spread): mean / worst max stretch "
               f"per target load ({int(rows[0]['n'])} instances per point).\n")
    md_table(out, ["Δ", "algorithm"] + [f"{l:g}" for l in loads],
             [[f"{d:g}", a] + [f"{num(v[(d, a, l)], 'max_stretch_mean'):.2f} / {num(v[(d, a, l)], 'max_stretch_max'):.2f}"
                               for l in loads]
              for d in sorted({num(r, "delta") for r in rows}) for a in ("FCFS", "DASEDF")])
    out.append(verdicts(run, "saule2012-fig1"))


def reservation(results, out):
    run = run_or_note(results, "saule2012-fig2-reservation-dasedf", out)
    if run is None:
        return
    rows = summary(run)
    none, fixed = {}, []
    for r in rows:
        key = (r["delta"], r["load"], r["reservation_x"], r["reservation_t"], r["reservation_side"])
        if r["reservation"] == "none":
            none[key] = r
        else:
            fixed.append((key, r))
    out.append("DASEDF with a fixed (X, T) against no reservation, on the same instances "
               f"({int(rows[0]['n'])} per point): change of the mean over instances of the "
               "average stretch / the max stretch, in %.\n")
    sides = sorted({k[4] for k, _ in fixed})
    xts = sorted({(int(k[2]), float(k[3])) for k, _ in fixed})
    cols = sorted({(float(k[0]), float(k[1])) for k, _ in fixed})
    out.append("| X | T | side | " + " | ".join(f"Δ {d:g}, load {l:g}" for d, l in cols) + " |")
    out.append("|---|---|---|" + "---|" * len(cols))
    v = {k: r for k, r in fixed}
    for x, t in xts:
        for side in sides:
            cells = []
            for d, l in cols:
                k = next((k for k in v if float(k[0]) == d and float(k[1]) == l and int(k[2]) == x
                          and float(k[3]) == t and k[4] == side), None)
                if k is None or k not in none:
                    cells.append("–")
                    continue
                a, b = v[k], none[k]
                dm = 100 * (num(a, "mean_stretch_mean") / num(b, "mean_stretch_mean") - 1)
                dx = 100 * (num(a, "max_stretch_mean") / num(b, "max_stretch_mean") - 1)
                cells.append(f"{dm:+.1f} / {dx:+.1f}")
            out.append(f"| {x} | {t:g} | {side} | " + " | ".join(cells) + " |")
    out.append("")
    out.append(verdicts(run, "saule2012-fig2-reservation-dasedf"))


def moldable(results, out):
    run = run_or_note(results, "saule2012-fig5f-relax", out)
    if run:
        rows = summary(run)
        out.append(f"DBOS's mean average stretch against ρ ({int(rows[0]['n'])} instances per point); "
                   "bold: the best ρ of the row.\n")
        rhos = sorted({num(r, "rho") for r in rows})
        v = {(num(r, "load"), r["dbos_relax"], num(r, "rho")): num(r, "mean_stretch_mean") for r in rows}
        body = []
        for l in sorted({num(r, "load") for r in rows}):
            for rel in ("target", "schedule"):
                vals = [v.get((l, rel, x)) for x in rhos]
                best = min(x for x in vals if x is not None)
                body.append([f"{l:g}", rel] + [("**%.3f**" if x == best else "%.3f") % x if x is not None else "–"
                                               for x in vals])
        md_table(out, ["load", "dbos_relax"] + [f"ρ = {x:g}" for x in rhos], body)
        out.append(verdicts(run, "saule2012-fig5f-relax"))
    run = run_or_note(results, "saule2012-fig5-scojo-shrink", out)
    if run:
        rows = summary(run)
        out.append("SCOJO-P at load 153–165 (the paper's max stretch: about 40): mean (worst) max stretch, "
                   f"mean average stretch ({int(rows[0]['n'])} instances).\n")
        md_table(out, ["scojo_shrink", "max stretch", "average stretch"],
                 [[r["scojo_shrink"], f"{num(r, 'max_stretch_mean'):.1f} ({num(r, 'max_stretch_max'):.1f})",
                   f"{num(r, 'mean_stretch_mean'):.3f}"] for r in rows])
        out.append(verdicts(run, "saule2012-fig5-scojo-shrink"))
    run = run_or_note(results, "saule2012-fig5-improved-select", out)
    if run:
        rows = summary(run)
        out.append("Average flow time (s) at load 470–509, Iterative and Improved Iterative "
                   f"({int(rows[0]['n'])} instances).\n")
        v = {(r["improved_select"], r["algorithm"]): num(r, "mean_flow_mean") for r in rows}
        md_table(out, ["improved_select", "Iterative", "Improved Iterative"],
                 [[sel, f"{v[(sel, 'Iterative')]:.0f}", f"{v[(sel, 'ImprovedIterative')]:.0f}"]
                  for sel in ("per_processor", "total") if (sel, "Iterative") in v and (sel, "ImprovedIterative") in v])
        out.append(verdicts(run, "saule2012-fig5-improved-select"))


def main():
    if len(sys.argv) != 2:
        print("usage: scripts/saule_tables.py RESULTS_DIR", file=sys.stderr)
        sys.exit(2)
    out = ["### Table 1(b)\n"]
    table1b(sys.argv[1], out)
    fcfs_spread(sys.argv[1], out)
    out.append("### DASEDF's largest max stretch\n")
    largest(sys.argv[1], out)
    out.append("### Fig. 1\n")
    fig1(sys.argv[1], out)
    out.append("### Reservation with DASEDF\n")
    reservation(sys.argv[1], out)
    out.append("### Readings of the moldable algorithms\n")
    moldable(sys.argv[1], out)
    print("\n".join(out).rstrip() + "\n")


if __name__ == "__main__":
    main()
