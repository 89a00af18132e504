#!/usr/bin/env python3
"""Load a schedfarm run with pandas and with DuckDB.

    python3 scripts/notebook_example.py runs/smoke/<run-id>

Needs pandas, pyarrow and duckdb (pip install pandas pyarrow duckdb). The
column names used here are checked against real runs by the Go test
results/notebook_test.go (CI has no Python packages).
"""
import sys

import duckdb
import pandas as pd
import pyarrow.parquet as pq

run = sys.argv[1] if len(sys.argv) > 1 else "configs/golden/smoke"

# --- pandas -----------------------------------------------------------------
summary = pd.read_parquet(f"{run}/summary.parquet")  # one row per point
print(summary[["size", "variant", "n", "n_failed", "value_mean", "value_ci95",
               "value_median", "value_q1", "value_q3", "value_min", "value_max"]])

try:
    jobs = pd.read_parquet(f"{run}/jobs.parquet")  # one row per job
except FileNotFoundError:  # a golden folder holds only the summary
    jobs = None
if jobs is not None:
    ok = jobs[jobs["status"] == "ok"]
    print(ok.groupby(["variant", "size"])["value"].agg(["mean", "std", "count"]))
    print("CPU time (s):", jobs["cpu_ms"].sum() / 1000, "wall (s):", jobs["duration_ms"].sum() / 1000)
    print(jobs.loc[jobs["status"] == "failed", ["job_id", "job_index", "attempts", "error"]])
    samples = pd.read_parquet(f"{run}/samples.parquet")  # bench's extra table
    print(samples[["job_id", "replicate", "size", "variant", "i", "u"]].head())

# Provenance: the Parquet key-value metadata.
meta = pq.read_schema(f"{run}/summary.parquet").metadata
for key in [b"schedfarm.sweep", b"schedfarm.model", b"schedfarm.model_version",
            b"schedfarm.version", b"schedfarm.vcs_revision", b"schedfarm.go_version"]:
    print(key.decode(), "=", meta[key].decode())
print(meta[b"schedfarm.sweep_file"].decode())

# --- DuckDB -----------------------------------------------------------------
con = duckdb.connect()
print(con.sql(f"""
    SELECT variant, size, n, value_mean, value_ci95
    FROM '{run}/summary.parquet'
    ORDER BY variant, size
""").df())
if jobs is not None:
    print(con.sql(f"""
        SELECT variant, count(*) AS jobs, avg(value) AS value, sum(cpu_ms) / 1000 AS cpu_s, sum(duration_ms) / 1000 AS wall_s
        FROM '{run}/jobs.parquet'
        WHERE status = 'ok'
        GROUP BY ALL ORDER BY variant
    """).df())
