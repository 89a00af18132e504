// Package simcore is the shared simulator core of schedfarm: the Model
// interface every paper's model implements, the parameter and metric schemas
// models declare, and the registry the farm looks models up in.
//
// Models are pure: Run is a function of (parameters, seed) and of declared
// input files only. They read no wall clock, keep no package-level state and
// import nothing from the farm (sweep, coordinator, worker, results, NATS),
// so they can be tested alone and give bit-identical results wherever they run.
// The measured metrics (a scheduler's computation time) are the exception
// the caller allows: a model passes its decision code to Timed, and the
// clock is the caller's (WithClock; the worker's), so that a model's own
// tests see 0 and every other metric stays a function of (parameters, seed).
//
// The pipeline a model sits in:
//
//	sweep file → sweep (expand, job IDs, seeds) → coordinator → JetStream
//	  → worker → Model.Run(ctx, params, seed) → Result → Parquet part → results
package simcore
