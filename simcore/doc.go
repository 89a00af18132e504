// Package simcore is the shared simulator core of schedfarm: the Model
// interface every paper's model implements, the parameter and metric schemas
// models declare, and the registry the farm looks models up in.
//
// Models are pure: Run is a function of (parameters, seed) and of declared
// input files only. They read no wall clock, keep no package-level state and
// import nothing from the farm (sweep, coordinator, worker, results, NATS),
// so they can be tested alone and give bit-identical results wherever they run.
//
// The pipeline a model sits in:
//
//	sweep file → sweep (expand, job IDs, seeds) → coordinator → JetStream
//	  → worker → Model.Run(ctx, params, seed) → Result → Parquet part → results
package simcore
