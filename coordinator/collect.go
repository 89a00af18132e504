package coordinator

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go/jetstream"

	"schedfarm/broker"
	"schedfarm/results"
	"schedfarm/results/collect"
	"schedfarm/simcore"
	"schedfarm/sweep"
)

// CollectOptions configure Collect.
type CollectOptions struct {
	// ResultsDir is the root of the output: <ResultsDir>/<sweep>/<run>/.
	ResultsDir string
	// Partial collects a run that has not finished; its missing jobs are
	// reported and have no row.
	Partial    bool
	Provenance results.Provenance
	// Sweeps, when not empty, collects only the sweeps named.
	Sweeps []string
}

// SweepCollected reports the collection of one sweep of a run.
type SweepCollected struct {
	Sweep string
	Dir   string
	*collect.Collected
}

// Collect merges the Parquet parts of a run into one folder per sweep. It
// reads everything from JetStream (the run record, the registry of finished
// jobs, the failures and the parts), so it can run on any machine. Jobs the
// run skipped because an earlier run had finished them are taken from that
// earlier run's parts: from the newest run that ran them, so a forced
// rerun's results supersede the ones it reran.
func Collect(ctx context.Context, farm *broker.Farm, reg *simcore.Registry, run string, opts CollectOptions) ([]SweepCollected, error) {
	e, err := farm.Runs.Get(ctx, run)
	if err != nil {
		if broker.IsNotFound(err) {
			return nil, fmt.Errorf("collect: run %s not found (`schedfarm status` lists runs)", run)
		}
		return nil, fmt.Errorf("collect run %s: %w", run, err)
	}
	var rec broker.RunRecord
	if err := json.Unmarshal(e.Value(), &rec); err != nil {
		return nil, fmt.Errorf("collect run %s: %w", run, err)
	}
	if !opts.Partial && rec.Status != broker.RunComplete {
		return nil, fmt.Errorf("collect: run %s is %s, not complete (wait for it, or pass --partial)", run, rec.Status)
	}
	f, err := sweep.Parse(rec.File, []byte(rec.Text), reg)
	if err != nil {
		return nil, fmt.Errorf("collect run %s: %w", run, err)
	}
	jobs, err := f.ExpandRunContext(ctx, rec.MaxJobs, rec.Rounds)
	if err != nil {
		return nil, fmt.Errorf("collect run %s: %w", run, err)
	}
	if len(opts.Sweeps) > 0 {
		jobs = slices.DeleteFunc(jobs, func(j sweep.Job) bool { return !slices.Contains(opts.Sweeps, j.Sweep) })
	}
	fails, err := ListFailures(ctx, farm, run)
	if err != nil {
		return nil, err
	}
	failures := make(map[uuid.UUID]collect.Failure, len(fails))
	for _, fr := range fails {
		id, err := uuid.Parse(fr.Job)
		if err != nil {
			continue
		}
		failures[id] = collect.Failure{Error: fr.Error, Attempts: fr.Attempts}
	}

	// The run's own parts, by sweep.
	own, err := partRecords(ctx, farm.Done, run+".*")
	if err != nil {
		return nil, err
	}
	covered := map[string]bool{}
	for _, p := range own {
		for _, id := range p.Jobs {
			covered[id] = true
		}
	}
	// Jobs skipped because an earlier run holds their results.
	var need []string
	for i := range jobs {
		id := jobs[i].ID.String()
		if !covered[id] {
			if _, failed := failures[jobs[i].ID]; !failed {
				need = append(need, id)
			}
		}
	}
	var others []registered
	if len(need) > 0 {
		all, err := partRecords(ctx, farm.Done, ">")
		if err != nil {
			return nil, err
		}
		want := make(map[string]bool, len(need))
		for _, id := range need {
			want[id] = true
		}
		for _, p := range all {
			if p.Run == run {
				continue
			}
			for _, id := range p.Jobs {
				if want[id] {
					others = append(others, p)
					break
				}
			}
		}
	}

	otherRank := runRanks(others)

	var out []SweepCollected
	for pos, s := range f.Sweeps {
		if len(opts.Sweeps) > 0 && !slices.Contains(opts.Sweeps, s.Name) {
			continue
		}
		var mine []sweep.Job
		ids := map[string]bool{}
		for i := range jobs {
			if jobs[i].Sweep == s.Name {
				mine = append(mine, jobs[i])
				ids[jobs[i].ID.String()] = true
			}
		}
		src := &objectSource{store: farm.Parts, names: map[string]string{}}
		// This run's parts holding any of the sweep's jobs (a job that two
		// sweeps share ran once, under one of them) come first; then the
		// earlier runs' parts, the newest run first, so that a forced rerun's
		// result supersedes the results it reran.
		for _, p := range own {
			for _, id := range p.Jobs {
				if ids[id] {
					src.add(0, p)
					break
				}
			}
		}
		for _, p := range others {
			for _, id := range p.Jobs {
				if ids[id] {
					src.add(otherRank[p.Run], p)
					break
				}
			}
		}
		dir := filepath.Join(opts.ResultsDir, s.Name, run)
		packing := packingOf(rec, s.Name)
		var packingJSON string
		if packing != nil {
			data, _ := json.Marshal(packing)
			packingJSON = string(data)
		}
		c, err := collect.Collect(ctx, src, collect.Input{
			RunID: run, Model: *s.Schema(), Jobs: mine, Failures: failures, SweepFile: rec.Text,
			Provenance: opts.Provenance, Replace: true, Packing: packingJSON,
		}, dir)
		if err != nil {
			return out, fmt.Errorf("collect run %s sweep %s: %w", run, s.Name, err)
		}
		if c.Missing > 0 && !opts.Partial {
			return out, fmt.Errorf("collect run %s sweep %s: %d job(s) have neither a result nor a failure record (first: %s)",
				run, s.Name, c.Missing, c.MissingIDs[0])
		}
		if err := writeRunInfo(dir, rec, s.Name, pos, packing); err != nil {
			return out, err
		}
		out = append(out, SweepCollected{Sweep: s.Name, Dir: dir, Collected: c})
	}
	return out, nil
}

// RunInfo is run.json, written beside a collected sweep's Parquet files: the
// run's record as the farm kept it, for reports and provenance.
type RunInfo = results.RunInfo

// RunInfoFile is the name of the run record written into each results folder.
const RunInfoFile = results.RunInfoFile

// packingOf returns the packing of a run's sweep, or nil when the run
// record has none (a run from before packing, or never decided).
func packingOf(rec broker.RunRecord, sweepName string) *results.Packing {
	for _, ch := range rec.Packing {
		if ch.Sweep == sweepName {
			return &results.Packing{K: ch.K, Policy: ch.Policy, Probed: ch.Probed, ProbeMeanMs: ch.ProbeMeanMs, Reason: ch.Reason}
		}
	}
	return nil
}

func writeRunInfo(dir string, rec broker.RunRecord, sweepName string, pos int, packing *results.Packing) error {
	host, _ := os.Hostname()
	info := RunInfo{Run: rec.ID, Sweep: sweepName, File: rec.File, Position: pos, Status: string(rec.Status), Created: rec.Created,
		Finished: rec.Finished, Total: rec.Total, Skipped: rec.Skipped, Done: rec.Done, Failed: rec.Failed,
		Owner: rec.Owner, CollectedBy: host, Packing: packing, Adaptive: rec.Adaptive}
	for _, rd := range rec.Rounds {
		if rd.Sweep == sweepName {
			info.Rounds = append(info.Rounds, rd)
		}
	}
	data, err := json.MarshalIndent(info, "", "  ")
	if err != nil {
		return err
	}
	tmp := filepath.Join(dir, "."+RunInfoFile+".tmp")
	if err := os.WriteFile(tmp, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", RunInfoFile, err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, RunInfoFile)); err != nil {
		return fmt.Errorf("write %s: %w", RunInfoFile, err)
	}
	return nil
}

// registered is a registry entry with its revision: the order in which
// parts were registered.
type registered struct {
	broker.PartRecord
	Revision uint64
}

// partRecords reads the registry entries whose keys match filter.
func partRecords(ctx context.Context, kv jetstream.KeyValue, filter string) ([]registered, error) {
	lister, err := kv.ListKeysFiltered(ctx, filter)
	if err != nil {
		return nil, fmt.Errorf("list registry %s: %w", filter, err)
	}
	var keys []string
	for k := range lister.Keys() {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]registered, 0, len(keys))
	for _, k := range keys {
		e, err := kv.Get(ctx, k)
		if err != nil {
			if broker.IsNotFound(err) {
				continue
			}
			return nil, fmt.Errorf("registry entry %s: %w", k, err)
		}
		var p broker.PartRecord
		if err := json.Unmarshal(e.Value(), &p); err != nil {
			return nil, fmt.Errorf("registry entry %s: %w", k, err)
		}
		out = append(out, registered{p, e.Revision()})
	}
	return out, nil
}

// runRanks orders the runs of parts from the newest to the oldest, by
// the registry revision of each run's first part (the server's order, not
// a clock): rank 1 is the newest. A job's current result is in the newest
// run that ran it: a run skips the jobs the registry holds, so only a
// forced rerun (or a run that overlapped the first) runs a job again, and
// its result supersedes the earlier ones.
func runRanks(parts []registered) map[string]int {
	first := map[string]uint64{}
	for _, p := range parts {
		if r, ok := first[p.Run]; !ok || p.Revision < r {
			first[p.Run] = p.Revision
		}
	}
	runs := make([]string, 0, len(first))
	for r := range first {
		runs = append(runs, r)
	}
	sort.Slice(runs, func(i, j int) bool { return first[runs[i]] > first[runs[j]] })
	rank := make(map[string]int, len(runs))
	for i, r := range runs {
		rank[r] = i + 1
	}
	return rank
}

// objectSource is a results.PartSource over the object store, limited to
// the objects of the given parts. Object names are <run>/<part>/<table>.parquet;
// the collector sees <rank>-<revision>-<part>/<table>.parquet, zero-padded:
// when a job has results in several parts, the collector keeps the part
// that sorts first. Rank 0 is the collected run's own parts, then earlier
// runs from the newest (runRanks), so a forced rerun supersedes what it
// reran; within a run, the part registered first (a redelivered job whose
// first worker was only slow keeps its first result), whichever worker
// clock made the part IDs.
type objectSource struct {
	store jetstream.ObjectStore
	names map[string]string // collector name → object name
}

func (s *objectSource) add(rank int, p registered) {
	for _, obj := range p.Objects {
		short := fmt.Sprintf("%06d-%020d-%s", rank, p.Revision, strings.TrimPrefix(obj, p.Run+"/"))
		s.names[short] = obj
	}
}

func (s *objectSource) List(context.Context) ([]string, error) {
	out := make([]string, 0, len(s.names))
	for k := range s.names {
		out = append(out, k)
	}
	sort.Strings(out)
	return out, nil
}

func (s *objectSource) Open(ctx context.Context, name string) (io.ReadCloser, error) {
	full, ok := s.names[name]
	if !ok {
		return nil, fmt.Errorf("object %s is not part of this collection", name)
	}
	r, err := s.store.Get(ctx, full)
	if err != nil {
		return nil, fmt.Errorf("object %s: %w", full, err)
	}
	return r, nil
}
