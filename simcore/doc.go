// Package simcore is the shared simulator core of schedfarm: the Model
// interface every paper's model implements, the parameter and metric schemas
// models declare, and the registry the farm looks models up in.
//
// Models are pure: Run is a function of (parameters, seed) and of declared
// input files only. They read no wall clock, keep no package-level state and
// import nothing from the farm (sweep, coordinator, worker, results, NATS),
// so they can be tested alone and give bit-identical results wherever they run.
// The measured metrics (a scheduler's computation time, declared with WallMs)
// are the exception the caller allows: a model hands its decision code to
// Timed as a hook, and the caller times it on its own clock (the worker and
// `schedfarm bench` put time.Now in the context with WithClock). No model
// calls time.Now; without a clock, as in a model's own tests, Timed reports
// 0, and every other metric stays a function of (parameters, seed).
//
// What models share lives under simcore: engine (the discrete-event
// queue and clock), pq (the priority queue with stated ties), rng, profile
// (the availability profile), check (the independent schedule checker),
// workload (SWF logs, their conventions, TraceCache, generators); the
// schema declarations in schema.go; and, for their tests only, modeltest.
//
// The pipeline a model sits in:
//
//	sweep file → sweep (expand, job IDs, seeds) → coordinator → JetStream
//	  → worker → Model.Run(ctx, params, seed) → Result → Parquet part → results
package simcore
