// Package export turns a collected run folder into the formats other tools
// read. It has one job: read the Parquet files of results folders
// (<results-dir>/<sweep>/<run>/) and write them out again as
//
//   - Batsim's _jobs.csv (WriteBatsim), one file per schedule, for evalys's
//     Gantt charts and utilisation plots;
//   - an SWF log (WriteSWF), one file per schedule, for AccaSim, CQSim,
//     Alea and the Parallel Workloads Archive's tools;
//   - one Hive-partitioned Parquet dataset across all sweeps of a run
//     (WriteDataset), for DuckDB, polars and pandas.
//
// The pipeline of the schedule formats:
//
//	results folder ──ReadSweep──▶ Sweep (jobs.parquet + schedule.parquet)
//	    ──Schedules──▶ []Schedule (one per schedule-producing job, or per
//	                   night for dssp; times in seconds; per-model adapter)
//	    ──Allocate──▶ processor ids for models without numbered processors
//	                   (lowest free ids at start), then the schedule checker
//	                   (simcore/check) validates every allocation
//	    ──WriteBatsim / WriteSWF──▶ files
//
// Every model that emits a schedule table has an adapter (see adapters.go);
// docs/results.md documents the column mapping of each format.
package export
