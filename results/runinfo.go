package results

import (
	"time"

	"schedfarm/sweep"
)

// RunInfo is run.json, written by the coordinator's collector beside a
// sweep's Parquet files: the run's record as the farm kept it.
type RunInfo struct {
	Run   string `json:"run"`
	Sweep string `json:"sweep"`
	File  string `json:"file"`
	// Position is the sweep's place in the file's sweeps (0-based), so a
	// suite's report lists them in file order.
	Position int       `json:"position"`
	Status   string    `json:"status"`
	Created  time.Time `json:"created"`
	Finished time.Time `json:"finished"`
	// Total jobs of the whole file; Skipped were done by earlier runs.
	Total   int    `json:"total"`
	Skipped int    `json:"skipped"`
	Done    int    `json:"done"`
	Failed  int    `json:"failed"`
	Owner   string `json:"coordinator"`
	// CollectedBy is the host that collected the run.
	CollectedBy string `json:"collected_by"`
	// Packing is how the farm sent the sweep's jobs: k jobs per message,
	// and why. Results do not depend on it.
	Packing *Packing `json:"packing,omitempty"`
	// Rounds are the rounds of adaptive replicates the coordinator added
	// to this sweep, and Adaptive how the run's rounds ended (see
	// broker.RunRecord).
	Rounds   []sweep.Round `json:"rounds,omitempty"`
	Adaptive string        `json:"adaptive,omitempty"`
}

// Packing is the coordinator's packing of a sweep's jobs into messages.
type Packing struct {
	// K jobs per message (probe jobs were sent alone); Policy is auto, off
	// or a fixed size.
	K      int    `json:"k"`
	Policy string `json:"policy"`
	// Probed results, of ProbeMeanMs mean model time, the choice rests on.
	Probed      int     `json:"probed,omitempty"`
	ProbeMeanMs float64 `json:"probe_mean_ms,omitempty"`
	Reason      string  `json:"reason"`
}

// RunInfoFile is the name of the run record in each results folder.
const RunInfoFile = "run.json"
