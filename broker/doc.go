// Package broker is schedfarm's NATS plumbing: the embedded server, client
// connections (credentials, tokens, TLS), the JetStream resources the farm
// uses and the messages that cross them. Coordinator and worker share it so
// that both sides agree on names and encodings.
//
// Resources (all JetStream), shown for the default prefix "schedfarm"
// (another prefix, say "lab-a", gives lab-a.jobs.<run>, LAB_A_JOBS, ...;
// "lab_b" gives LAB--B_JOBS: see Names and Stem). The coordinator alone
// creates them (Create) and sets their configuration (Farm.Apply), and
// records the exact prefix in each one's metadata (MetaPrefix); workers and
// clients look them up (Bind), wait while they do not exist, and change
// nothing:
//
//	stream  SCHEDFARM_JOBS    work queue, subjects schedfarm.jobs.<run>; one
//	                          durable pull consumer "workers" shared by all workers
//	KV      SCHEDFARM_RUNS    run records, key <run>
//	KV      SCHEDFARM_DONE    registry of finished jobs: key <run>.<part> → the
//	                          job IDs whose results that stored part holds and
//	                          its objects' SHA-256; <run>.<part>.invalid marks
//	                          it invalid. Create-only on the server (parts.go)
//	KV      SCHEDFARM_FAILED  jobs that exhausted MaxDeliver: key <run>.<job>
//	object  SCHEDFARM_PARTS   Parquet parts: <run>/<part>/<table>.parquet
//
// Core NATS subjects: schedfarm.hb.<worker> (heartbeats),
// schedfarm.err.<run> (a job attempt failed), schedfarm.api.<verb> (requests
// to the coordinator), schedfarm.ctl.<worker> (drain a worker).
package broker
