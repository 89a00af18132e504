#!/usr/bin/env python3
"""Casanova 2010 (model ptg): sensitivity sweeps and the paper-vs-ours tables.

  scripts/ptg_sens.py gen
      writes configs/casanova2010/sens-<name>.yaml for every combination of
      COMBOS below: two sweeps each, <name>-t2 (Table 2: the cluster axis,
      REPS_T2 scenarios per cluster) and <name>-q (the quoted quartiles: the
      cluster drawn per scenario, REPS_Q scenarios), with the claims of
      table2.yaml (10 points) and of the quoted quartiles (10 % relative).
  scripts/ptg_sens.py table RESULTS_DIR [--detail NAME,NAME] [NAME ...]
      reads RESULTS_DIR/<sweep>/<latest run>/summary.csv of the Table 2 and
      quartile sweeps and prints, per combination (NAME: a key of COMBOS, or
      paper-scale for table2.yaml and quartiles.yaml; default all), the
      Table 2 cells within 10 points (point estimates), the mean gap, the
      quoted quartiles within 10 %, and the paper-vs-ours tables of the
      combinations named by --detail (default: all) as markdown.
      Standard library only.

The published numbers come from configs/published/casanova2010_*.csv.
"""
import csv
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CFG = os.path.join(ROOT, "configs", "casanova2010")
PUB = os.path.join(ROOT, "configs", "published")

ALGS = ["SELFISH", "SELFISH_ORDER", "SELFISH_WEIGHT", "C1", "C4", "F1", "F2",
        "CRA_NDAGS", "CRA_NDAGS_WEIGHT", "CRA_WORK", "CRA_WORK_WEIGHT", "CRA_WIDTH", "CRA_WIDTH_WEIGHT",
        "CAFM_CRA", "CAFM_CRA_WEIGHT", "CAFM_SAF", "CAFM_SPTF", "CAFM_LPTF", "CAFM_K_SHELVES"]
CLUSTERS = ["chti", "grillon", "grelon", "gdx"]
REPS_T2 = 50   # scenarios per cluster in the first round (the paper: 375)
MAX_T2 = 400   # adaptive replicates: undecided cells get rounds up to this many
REPS_Q = 300   # scenarios for the quartiles (the paper: 1,500)

# name -> (parameters, the reading and its source)
COMBOS = {
    "default": ({}, "the model's defaults (hcpa_max_inflation 3, calibrated) at sensitivity scale"),
    "guard15": ({"hcpa_max_inflation": 1.5}, "hcpa_max_inflation: 1.5, the work-inflation guard the model page proposes"),
    "noguard": ({"hcpa_max_inflation": 0}, "hcpa_max_inflation: 0, CPA's allocation loop without a work-inflation guard (Radulescu and van Gemund, ref. [25])"),
    "noguard-nolevelcap": ({"hcpa_max_inflation": 0, "hcpa_level_cap": False}, "plain CPA: no level cap (MCPA's guard, ref. [2]) and no inflation guard"),
    "noguard-seedrule": ({"hcpa_max_inflation": 0, "hcpa_rule": "seed"}, "no inflation guard, HCPA choice by the smallest T(v,p+1)/(p+1) as casanova2010 §4.1 words it"),
    "noguard-ready": ({"hcpa_max_inflation": 0, "mapping": "ready"}, "no inflation guard, every list-scheduled algorithm maps ready tasks in simulated time (the CRA mapping, casanova2010 §4.3)"),
    "noguard-insertion": ({"hcpa_max_inflation": 0, "mapping": "insertion"}, "no inflation guard, insertion-based mapping into the profile's holes (iCASLB, ref. [31])"),
    "noguard-repeat": ({"hcpa_max_inflation": 0, "backfill": "repeat"}, "no inflation guard, backfilling repeated until no task moves (ref. [19])"),
    "noguard-clusterarea": ({"hcpa_max_inflation": 0, "cra_area": "cluster"}, "no inflation guard, share-bounded HCPA with the average area over the whole cluster"),
    "ready-clusterarea": ({"mapping": "ready", "cra_area": "cluster"}, "the default guard, ready-task mapping for all and the whole-cluster average area for CRA"),
    "nolevelcap": ({"hcpa_level_cap": False}, "the default guard without MCPA's level cap (ref. [2])"),
    "nobackfill": ({"backfill": "none"}, "the default guard without the backfilling compaction (measures what §4.1's compaction adds)"),
}


# The comparative claims of paper.yaml (Section 5.2) that fail or stay
# undecided at the defaults, re-checked under the readings of PAPER_COMBOS
# (sens-paper-<name>.yaml: the paper's 1,500-scenario grid, adaptive
# replicates up to MAX_PAPER). The scheduling-time claims are left out: they
# compare implementations, not readings of the model.
PAPER_CLAIMS = ["order-avg-stretch-below-cafm-k-shelves", "selfish-avg-stretch-above-c4",
                "cra-work-makespan-below-selfish", "cra-work-weight-makespan-below-selfish",
                "cafm-cra-makespan-25pct-below-selfish", "c4-fairer-than-selfish", "f1-fairer-than-selfish",
                "f2-fairer-than-selfish", "order-max-stretch-10x-below-selfish", "c4-fairer-than-f2"] + \
               [f"fig8-c4-below-selfish-n{n}" for n in (2, 4, 6, 8, 10)]
PAPER_COMBOS = ["noguard", "ready-clusterarea"]
MAX_PAPER = 100


def paper_claim_blocks():
    """The claim blocks of paper.yaml named in PAPER_CLAIMS, as text lines."""
    with open(os.path.join(CFG, "paper.yaml")) as f:
        lines = f.read().split("\n")
    blocks, cur = {}, None
    for l in lines:
        if l.startswith("      - id: "):
            cur = l.split(": ", 1)[1].strip()
            blocks[cur] = [l]
        elif cur is not None and l.startswith("        ") and not l.lstrip().startswith("explained_by"):
            blocks[cur].append(l)
        else:
            cur = None
    return [l for c in PAPER_CLAIMS for l in blocks[c]]


def read_util():
    out = {}
    with open(os.path.join(PUB, "casanova2010_utilization.csv")) as f:
        rows = [r for r in csv.reader(l for l in f if not l.startswith("#"))]
    head = rows[0]
    for r in rows[1:]:
        for i, c in enumerate(head[1:], 1):
            out[(r[0], c)] = float(r[i]) / 100
    return out


def read_quart():
    out = []
    with open(os.path.join(PUB, "casanova2010_quartiles.csv")) as f:
        for r in csv.reader(l for l in f if not l.startswith("#")):
            out.append((r[0], r[1], r[2], float(r[3])))
    return out


def slug(s):
    return s.lower().replace("_", "-")


def yaml_params(base, extra):
    items = dict(base)
    items.update(extra)
    def fmt(v):
        if isinstance(v, bool):
            return "true" if v else "false"
        return str(v)
    return "{" + ", ".join(f"{k}: {fmt(v)}" for k, v in items.items()) + "}"


def table2_claims():
    util = read_util()
    lines = []
    for a in ALGS:
        for c in CLUSTERS:
            v = util[(a, c)]
            lines += [f"      - id: table2-{slug(a)}-{c}",
                      "        source: \"Table 2\"",
                      f"        text: \"utilisation of {a} on {c} within 10 points of the published {v*100:.2f}%\"",
                      f"        published: {{metric: utilisation, where: {{algorithm: {a}, cluster: {c}}}, value: {v:g}, tol: 0.1}}"]
    lines += ["      - id: utilisation-above-75pct",
              "        source: \"Section 5.2.6, Table 2\"",
              "        text: \"all utilization levels of the table are above 75%\"",
              "        published: {metric: utilisation, above: 0.75}"]
    return lines


def quartile_claims():
    lines = []
    for m, a, s, v in read_quart():
        lines += [f"      - id: {slug(m)}-{slug(a)}-{s}",
                  "        source: \"Section 5.2\"",
                  f"        text: \"{s} of {m} of {a} within 10% of the published {v:g}\"",
                  f"        published: {{metric: {m}_{s}, where: {{algorithm: {a}}}, value: {v:g}, tol: {round(v*0.1, 6):g}}}"]
    return lines


def gen():
    algs = "[" + ", ".join(ALGS) + "]"
    for name, (params, reading) in COMBOS.items():
        path = os.path.join(CFG, f"sens-{name}.yaml")
        sens = "" if name == "default" else f"    sensitivity: \"{reading}\"\n"
        doc = [f"# casanova2010, sensitivity of Table 2 and the quoted quartiles to one reading",
               f"# of the model: {reading}.",
               f"# Generated by scripts/ptg_sens.py gen (edit COMBOS there, not this file).",
               f"# Scale: {REPS_T2} scenarios per cluster for Table 2 (paper: 375), adaptive",
               f"# replicates up to {MAX_T2} for the cells still undecided; {REPS_Q} drawn",
               f"# scenarios for the quartiles (paper: 1,500); same seeds as table2.yaml and",
               f"# quartiles.yaml, so the scenarios are those of the default runs.",
               f"# Tolerances: 10 points on Table 2, 10% relative on the quartiles.",
               f"#   go run ./cmd/schedfarm run configs/casanova2010/sens-{name}.yaml",
               f"#   scripts/ptg_sens.py table RESULTS_DIR",
               "sweeps:"]
        body = [f"  - name: casanova2010-sens-{name}-t2"]
        if sens:
            body.append(sens.rstrip("\n"))
        body += ["    model: ptg", "    seed: 20100306", f"    replicates: {{min: {REPS_T2}, max: {MAX_T2}}}",
                 f"    params: {yaml_params({'n_ptgs': 0, 'ptg_class': 'mixed'}, params)}",
                 "    axes:", f"      - {{name: cluster, values: [{', '.join(CLUSTERS)}]}}",
                 f"      - {{name: algorithm, values: {algs}}}", "    claims:"] + table2_claims()
        body += [f"  - name: casanova2010-sens-{name}-q"]
        if sens:
            body.append(sens.rstrip("\n"))
        body += ["    model: ptg", "    seed: 20100307", f"    replicates: {REPS_Q}",
                 f"    params: {yaml_params({'n_ptgs': 0, 'ptg_class': 'mixed', 'cluster': 'mixed'}, params)}",
                 "    axes:", f"      - {{name: algorithm, values: {algs}}}", "    claims:"] + quartile_claims()
        with open(path, "w") as f:
            f.write("\n".join(doc + body) + "\n")
        print(os.path.relpath(path, ROOT))
    for name in PAPER_COMBOS:
        params, reading = COMBOS[name]
        path = os.path.join(CFG, f"sens-paper-{name}.yaml")
        doc = [f"# casanova2010, sensitivity of the comparative statements of Section 5.2 that fail",
               f"# or stay undecided at the defaults (paper.yaml) to one reading of the model",
               f"#: {reading}.",
               f"# Generated by scripts/ptg_sens.py gen (edit PAPER_CLAIMS there, not this file).",
               f"# The paper's grid and seed (paper.yaml), adaptive replicates up to {MAX_PAPER}.",
               f"#   go run ./cmd/schedfarm run configs/casanova2010/sens-paper-{name}.yaml",
               "sweeps:",
               f"  - name: casanova2010-sens-paper-{name}",
               f"    sensitivity: \"{reading}\"",
               "    model: ptg", "    seed: 20100305", f"    replicates: {{min: 25, max: {MAX_PAPER}}}",
               f"    params: {yaml_params({}, params)}",
               "    axes:",
               "      - {name: ptg_class, values: [random, strassen, fft]}",
               "      - {name: cluster, values: [chti, grillon, grelon, gdx]}",
               "      - {name: n_ptgs, values: [2, 4, 6, 8, 10]}",
               f"      - {{name: algorithm, values: {algs}}}",
               "    claims:"] + paper_claim_blocks()
        with open(path, "w") as f:
            f.write("\n".join(doc) + "\n")
        print(os.path.relpath(path, ROOT))


def latest_run(results, sweep):
    d = os.path.join(results, sweep)
    if not os.path.isdir(d):
        return None
    runs = [os.path.join(d, r) for r in os.listdir(d) if os.path.isfile(os.path.join(d, r, "summary.csv"))]
    if not runs:
        return None
    return max(runs, key=lambda r: os.path.getmtime(os.path.join(r, "summary.csv")))


def latest_summary(results, sweep):
    run = latest_run(results, sweep)
    if run is None:
        return None
    with open(os.path.join(run, "summary.csv")) as f:
        return list(csv.DictReader(f))


def verdicts(results, sweep, prefix):
    """pass/fail/inconclusive counts of the sweep's claims whose id starts with prefix."""
    run = latest_run(results, sweep)
    if run is None or not os.path.isfile(os.path.join(run, "claims.json")):
        return "–"
    with open(os.path.join(run, "claims.json")) as f:
        cs = [c for c in json.load(f) if c["id"].startswith(prefix)]
    n = {v: sum(1 for c in cs if c["verdict"] == v) for v in ("pass", "fail", "inconclusive")}
    return f"{n['pass']} / {n['fail']} / {n['inconclusive']}"


def score(t2rows, qrows):
    util = read_util()
    cells = {}
    if t2rows:
        for r in t2rows:
            cells[(r["algorithm"], r["cluster"])] = float(r["utilisation_mean"])
    quart = {}
    if qrows:
        by = {r["algorithm"]: r for r in qrows}
        for m, a, s, v in read_quart():
            if a in by:
                quart[(m, a, s)] = (v, float(by[a][f"{m}_{s}"]))
    n_t2 = sum(1 for k, v in cells.items() if abs(v - util[k]) <= 0.1 + 1e-12)
    gap = sum(v - util[k] for k, v in cells.items()) / max(1, len(cells))
    n_q = sum(1 for (p, o) in quart.values() if abs(o - p) <= 0.1 * abs(p) + 1e-12)
    return cells, quart, n_t2, gap, n_q


def claim_numbers(results, sweep):
    run = latest_run(results, sweep)
    if run is None or not os.path.isfile(os.path.join(run, "claims.json")):
        return {}
    with open(os.path.join(run, "claims.json")) as f:
        return {c["id"]: c for c in json.load(f)}


def short(c):
    """verdict and the mean the claim decided on, from its numbers line."""
    if c is None:
        return "–"
    num = c["numbers"]
    val = num.rsplit("= ", 1)[-1].split(" (want")[0] if "= " in num else ""
    return f"{c['verdict']} ({val})" if val else c["verdict"]


def paper_table(results):
    cols = [("defaults", "casanova2010-paper")] + [(n, f"casanova2010-sens-paper-{n}") for n in PAPER_COMBOS]
    got = [(n, claim_numbers(results, sw)) for n, sw in cols]
    if not got[0][1]:
        return
    print("\n#### Comparative claims of paper.yaml under the readings (verdict, mean paired difference or ratio ± 95 %)\n")
    print("| claim | " + " | ".join(n for n, _ in got) + " |")
    print("|---|" + "---|" * len(got))
    for cid in PAPER_CLAIMS:
        print(f"| {cid} | " + " | ".join(short(g.get(cid)) for _, g in got) + " |")


def table(results, names, detail_names=None):
    util = read_util()
    print("| combination | Table 2 cells within 10 points | Table 2 claims pass / fail / undecided | mean gap (points) | quartiles within 10 % | reading |")
    print("|---|---|---|---|---|---|")
    detail = []
    for name in names:
        t2name, qname = f"casanova2010-sens-{name}-t2", f"casanova2010-sens-{name}-q"
        if name == "paper-scale":
            t2name, qname = "casanova2010-table2", "casanova2010-quartiles"
        t2, q = latest_summary(results, t2name), latest_summary(results, qname)
        if t2 is None and q is None:
            continue
        cells, quart, n_t2, gap, n_q = score(t2, q)
        reading = COMBOS.get(name, ({}, "table2.yaml and quartiles.yaml at paper scale"))[1]
        print(f"| {name} | {n_t2}/{len(cells)} | {verdicts(results, t2name, 'table2-')} | {gap*100:+.1f} | {n_q}/{len(quart)} | {reading} |")
        if detail_names is None or name in detail_names:
            detail.append((name, cells, quart))
    paper_table(results)
    for name, cells, quart in detail:
        print(f"\n#### {name}: Table 2 (ours / paper, %)\n")
        print("| algorithm | " + " | ".join(CLUSTERS) + " |")
        print("|---|" + "---|" * len(CLUSTERS))
        for a in ALGS:
            row = []
            for c in CLUSTERS:
                if (a, c) in cells:
                    row.append(f"{cells[(a, c)]*100:.1f} / {util[(a, c)]*100:.2f}")
                else:
                    row.append("–")
            print(f"| {a} | " + " | ".join(row) + " |")
        if quart:
            print(f"\n#### {name}: quoted quartiles (ours / paper)\n")
            print("| metric | algorithm | statistic | ours | paper | within 10 % |")
            print("|---|---|---|---|---|---|")
            for (m, a, s), (p, o) in quart.items():
                ok = "yes" if abs(o - p) <= 0.1 * abs(p) + 1e-12 else "no"
                print(f"| {m} | {a} | {s} | {o:.3g} | {p:g} | {ok} |")


def main():
    if len(sys.argv) >= 2 and sys.argv[1] == "gen":
        gen()
        return
    if len(sys.argv) >= 3 and sys.argv[1] == "table":
        args, detail = sys.argv[3:], None
        if len(args) >= 2 and args[0] == "--detail":
            detail, args = args[1].split(","), args[2:]
        table(sys.argv[2], args or ["paper-scale"] + list(COMBOS), detail)
        return
    sys.exit(__doc__)


if __name__ == "__main__":
    main()
