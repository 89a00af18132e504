package coordinator

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

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
	// Invalid are the invalid parts whose jobs the sweep misses (unless
	// another valid part holds them): found bad by this collection (Found)
	// or invalidated before.
	Invalid []InvalidPart
}

// InvalidPart is an invalid stored part a collection met.
type InvalidPart struct {
	Run, Part string
	// Jobs is how many jobs the part holds.
	Jobs int
	// Reason is why it is invalid: the damage found, or the reason the
	// marker records.
	Reason string
	// Found: this collection found it bad (Object names the object) and
	// marked it invalid, unless MarkError says why it could not.
	Found     bool
	Object    string
	MarkError string
}

// Name is the part as `schedfarm parts` names it: <run>/<part>.
func (p InvalidPart) Name() string { return p.Run + "/" + p.Part }

// Collect merges the Parquet parts of a run into one folder per sweep. It
// reads everything from JetStream (the run record, the registry of finished
// jobs, the failures and the parts), so it can run on any machine. Jobs the
// run skipped because an earlier run had finished them are taken from that
// earlier run's parts: from the newest run that ran them, so a forced
// rerun's results supersede the ones it reran.
//
// Every object read is checked against the digest its part's registry
// entry records. A part one of whose objects is damaged, lost or cannot be
// decoded is left out, reported (SweepCollected.Invalid) and marked
// invalid in the registry (an InvalidRecord beside its entry; nothing is
// deleted), so that its jobs count as not done and the next submission of
// the sweep runs them again. Parts invalidated before are left out too. A
// job whose current result is in invalid parts only is missing, never
// taken from an older run that it superseded. Collect fails when jobs are
// missing, unless Partial; when they are missing because of invalid parts
// its error wraps a *collect.PartError naming one of them.
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

	rv := &registryView{kv: farm.Done, run: run}
	found := map[string]InvalidPart{} // bad parts this collection found, by registry key
	var out []SweepCollected
	for pos, s := range f.Sweeps {
		if len(opts.Sweeps) > 0 && !slices.Contains(opts.Sweeps, s.Name) {
			continue
		}
		var mine []sweep.Job
		for i := range jobs {
			if jobs[i].Sweep == s.Name {
				mine = append(mine, jobs[i])
			}
		}
		dir := filepath.Join(opts.ResultsDir, s.Name, run)
		packing := packingOf(rec, s.Name)
		var packingJSON string
		if packing != nil {
			data, _ := json.Marshal(packing)
			packingJSON = string(data)
		}
		var c *collect.Collected
		var pl *collectPlan
		for {
			if pl, err = rv.plan(ctx, farm, mine, failures, found); err != nil {
				return out, fmt.Errorf("collect run %s sweep %s: %w", run, s.Name, err)
			}
			c, err = collect.Collect(ctx, pl.src, collect.Input{
				RunID: run, Model: *s.Schema(), Jobs: mine, Failures: failures, SweepFile: rec.Text,
				Provenance: opts.Provenance, Replace: true, Packing: packingJSON, Withheld: pl.withheld,
			}, dir)
			var bad *collect.BadPartsError
			if !errors.As(err, &bad) || ctx.Err() != nil {
				break
			}
			// Leave the bad parts out (marked invalid) and collect again.
			fresh := 0
			for _, pe := range bad.Parts {
				p, ok := pl.src.partOf(pe.Object)
				if !ok {
					continue
				}
				key := broker.DoneKey(p.Run, p.Part)
				if _, seen := found[key]; seen {
					continue
				}
				fresh++
				ip := InvalidPart{Run: p.Run, Part: p.Part, Jobs: len(p.Jobs), Reason: pe.Err.Error(), Found: true, Object: pl.src.names[pe.Object]}
				if _, err := farm.Invalidate(ctx, broker.InvalidRecord{Run: p.Run, Part: p.Part, Jobs: p.Jobs,
					Reason: ip.Reason, By: "collect on " + hostName(), At: time.Now().UTC()}); err != nil {
					ip.MarkError = err.Error()
				}
				found[key] = ip
			}
			if fresh == 0 {
				break // the error names no part of the source: report it as it is
			}
		}
		if err != nil {
			return out, fmt.Errorf("collect run %s sweep %s: %w", run, s.Name, err)
		}
		sc := SweepCollected{Sweep: s.Name, Dir: dir, Collected: c, Invalid: pl.invalidMet(found)}
		if c.Missing > 0 && !opts.Partial {
			return append(out, sc), missingError(run, s.Name, c, sc.Invalid)
		}
		if err := writeRunInfo(dir, rec, s.Name, pos, packing); err != nil {
			return out, err
		}
		out = append(out, sc)
	}
	return out, nil
}

// missingError is Collect's error for a sweep with missing jobs.
func missingError(run, sweepName string, c *collect.Collected, invalid []InvalidPart) error {
	msg := fmt.Sprintf("collect run %s sweep %s: %d job(s) have neither a result nor a failure record (first: %s)",
		run, sweepName, c.Missing, c.MissingIDs[0])
	if len(invalid) == 0 {
		return errors.New(msg)
	}
	p := invalid[0]
	what := "was invalidated before (" + p.Reason + ")"
	if p.Found {
		what = "is bad (" + p.Reason + "): it was left out and marked invalid"
		if p.MarkError != "" {
			what = "is bad (" + p.Reason + "): it was left out, but marking it invalid failed (" + p.MarkError + ")"
		}
	}
	if len(invalid) > 1 {
		what += fmt.Sprintf("; %d more parts are invalid", len(invalid)-1)
	}
	object := p.Object
	if object == "" {
		object = p.Name()
	}
	return &InvalidPartsError{
		msg: fmt.Sprintf("%s: their results were in stored part %s, which %s; submit the sweep again (or `schedfarm run` it again) to run them, then collect",
			msg, p.Name(), what),
		part: &collect.PartError{Object: object, Err: errors.New(p.Reason)},
	}
}

// InvalidPartsError is Collect's error for jobs missing because the parts
// holding their results are invalid: damaged, lost or undecodable, or
// invalidated by `schedfarm parts invalidate`. It unwraps to a
// *collect.PartError naming one of them.
type InvalidPartsError struct {
	msg  string
	part *collect.PartError
}

func (e *InvalidPartsError) Error() string { return e.msg }

// Unwrap returns the *collect.PartError of the first invalid part.
func (e *InvalidPartsError) Unwrap() error { return e.part }

// hostName is this machine's name, for the markers a collection writes.
func hostName() string {
	h, err := os.Hostname()
	if err != nil {
		return "unknown host"
	}
	return h
}

// collectPlan is what one sweep's collection reads: the valid parts of the
// run and, for the jobs it skipped, of the runs that hold their current
// results; and the jobs withheld because their current result is in
// invalid parts only.
type collectPlan struct {
	src      *objectSource
	withheld map[uuid.UUID]bool
	// invalid are the invalid parts holding any of the sweep's jobs.
	invalid []invalidPart
}

type invalidPart struct {
	registered
	reason string
}

// invalidMet lists the invalid parts the plan met, those the collection
// found bad with what it found.
func (pl *collectPlan) invalidMet(found map[string]InvalidPart) []InvalidPart {
	var out []InvalidPart
	for _, p := range pl.invalid {
		if ip, ok := found[p.key()]; ok {
			out = append(out, ip)
			continue
		}
		out = append(out, InvalidPart{Run: p.Run, Part: p.Part, Jobs: len(p.Jobs), Reason: p.reason})
	}
	return out
}

// registryView is the registry as one Collect call reads it: the run's
// own entries, and all of them once a sweep needs another run's parts.
type registryView struct {
	kv  jetstream.KeyValue
	run string
	// own and ownMarkers are the run's parts and markers; all and
	// allMarkers every run's, read at the first need.
	own, all               []registered
	ownMarkers, allMarkers map[string]broker.InvalidRecord
}

// plan plans the collection of the jobs mine of the run: its own valid
// parts come first; jobs none of them holds (and that did not fail) are
// taken from the newest other run holding them, if that run's part is
// valid, and withheld otherwise (as they are when only invalid parts of
// the run itself hold them). found are the parts this collection found
// bad, invalid whether or not their markers could be written.
func (rv *registryView) plan(ctx context.Context, farm *broker.Farm, mine []sweep.Job, failures map[uuid.UUID]collect.Failure,
	found map[string]InvalidPart) (*collectPlan, error) {
	run := rv.run
	if rv.ownMarkers == nil {
		var err error
		if rv.own, rv.ownMarkers, err = readRegistry(ctx, rv.kv, run+".*", run+".*"+broker.InvalidSuffix); err != nil {
			return nil, err
		}
	}
	own, markers := rv.own, rv.ownMarkers
	ids := make(map[string]bool, len(mine))
	for i := range mine {
		ids[mine[i].ID.String()] = true
	}
	holds := func(p registered) bool {
		for _, id := range p.Jobs {
			if ids[id] {
				return true
			}
		}
		return false
	}
	// reason says why a part is invalid, if it is; markers grows to every
	// run's below.
	reason := func(p registered) (string, bool) {
		if ip, ok := found[p.key()]; ok {
			return ip.Reason, true
		}
		m, ok := markers[p.key()]
		return m.Reason, ok
	}
	pl := &collectPlan{src: &objectSource{farm: farm, names: map[string]string{}, parts: map[string]registered{}, digests: map[string]string{}},
		withheld: map[uuid.UUID]bool{}}
	// Jobs the run's own valid parts hold. Those only its invalid parts
	// hold lost their results here: they are taken from a newer run that
	// ran them again, or withheld.
	covered, lostOwn := map[string]bool{}, map[string]bool{}
	var ownBad []registered
	for _, p := range own {
		if !holds(p) {
			continue
		}
		if why, bad := reason(p); bad {
			pl.invalid = append(pl.invalid, invalidPart{p, why})
			ownBad = append(ownBad, p)
			for _, id := range p.Jobs {
				lostOwn[id] = true
			}
			continue
		}
		pl.src.add(0, p)
		for _, id := range p.Jobs {
			covered[id] = true
		}
	}
	need := map[string]bool{}
	for i := range mine {
		id := mine[i].ID.String()
		if covered[id] {
			continue
		}
		if _, failed := failures[mine[i].ID]; !failed || lostOwn[id] {
			need[id] = true
		}
	}
	if len(need) == 0 {
		pl.keepRelevant(found)
		return pl, nil
	}
	// Jobs skipped because an earlier run holds their results.
	if rv.allMarkers == nil {
		var err error
		if rv.all, rv.allMarkers, err = readRegistry(ctx, rv.kv, ">"); err != nil {
			return nil, err
		}
	}
	markers = rv.allMarkers
	var others []registered
	for _, p := range rv.all {
		if p.Run == run {
			continue
		}
		for _, id := range p.Jobs {
			if need[id] {
				others = append(others, p)
				break
			}
		}
	}
	// The current result of a needed job is the newest run's holding it
	// (runRanks, the collected run's own invalid parts included); it is
	// withheld when that run's parts holding it are all invalid.
	rank := runRanks(append(slices.Clone(others), own...))
	type holder struct {
		rank  int
		valid bool
	}
	current := make(map[string]holder, len(need))
	for _, p := range append(slices.Clone(others), ownBad...) {
		r := rank[p.Run]
		_, bad := reason(p)
		for _, id := range p.Jobs {
			if !need[id] {
				continue
			}
			if h, ok := current[id]; !ok || r < h.rank {
				current[id] = holder{r, !bad}
			} else if r == h.rank && !bad {
				h.valid = true
				current[id] = h
			}
		}
	}
	for i := range mine {
		if h, ok := current[mine[i].ID.String()]; ok && !h.valid {
			pl.withheld[mine[i].ID] = true
		}
	}
	for _, p := range others {
		if !holds(p) {
			continue
		}
		if why, bad := reason(p); bad {
			pl.invalid = append(pl.invalid, invalidPart{p, why})
			continue
		}
		pl.src.add(rank[p.Run], p)
	}
	pl.keepRelevant(found)
	return pl, nil
}

// keepRelevant keeps, of the invalid parts the plan met, those holding a
// withheld job (the ones whose loss the collection shows) and those this
// collection found bad.
func (pl *collectPlan) keepRelevant(found map[string]InvalidPart) {
	pl.invalid = slices.DeleteFunc(pl.invalid, func(p invalidPart) bool {
		if _, ok := found[p.key()]; ok {
			return false
		}
		for _, s := range p.Jobs {
			if id, err := uuid.Parse(s); err == nil && pl.withheld[id] {
				return false
			}
		}
		return true
	})
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

// key is the part's registry key.
func (p registered) key() string { return broker.DoneKey(p.Run, p.Part) }

// readRegistry reads the registry entries whose keys match any of
// filters: the parts, and the invalidation markers by the key of the part
// they invalidate.
func readRegistry(ctx context.Context, kv jetstream.KeyValue, filters ...string) ([]registered, map[string]broker.InvalidRecord, error) {
	lister, err := kv.ListKeysFiltered(ctx, filters...)
	if err != nil {
		return nil, nil, fmt.Errorf("list registry %s: %w", strings.Join(filters, " "), err)
	}
	var keys []string
	for k := range lister.Keys() {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []registered
	markers := map[string]broker.InvalidRecord{}
	for _, k := range keys {
		run, part, invalid, ok := broker.ParseDoneKey(k)
		if !ok {
			continue // not a key of the registry's forms
		}
		e, err := kv.Get(ctx, k)
		if err != nil {
			if broker.IsNotFound(err) {
				continue
			}
			return nil, nil, fmt.Errorf("registry entry %s: %w", k, err)
		}
		if invalid {
			var m broker.InvalidRecord
			if err := json.Unmarshal(e.Value(), &m); err != nil {
				return nil, nil, fmt.Errorf("registry entry %s: %w", k, err)
			}
			markers[broker.DoneKey(run, part)] = m
			continue
		}
		var p broker.PartRecord
		if err := json.Unmarshal(e.Value(), &p); err != nil {
			return nil, nil, fmt.Errorf("registry entry %s: %w", k, err)
		}
		parts = append(parts, registered{p, e.Revision()})
	}
	return parts, markers, nil
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
// clock made the part IDs. Open reads an object whole and checks it
// against the digest of its part's registry entry: a mismatch, like an
// object lost or damaged in the store, wraps collect.ErrDamaged.
type objectSource struct {
	farm *broker.Farm
	// reader, made at the first Open, reads and checks objects.
	mu      sync.Mutex
	reader  *broker.PartReader
	names   map[string]string     // collector name → object name
	parts   map[string]registered // collector part ID → registry entry
	digests map[string]string     // collector name → SHA-256 recorded ("": none)
}

func (s *objectSource) add(rank int, p registered) {
	id := fmt.Sprintf("%06d-%020d-%s", rank, p.Revision, p.Part)
	s.parts[id] = p
	verified := len(p.SHA256) == len(p.Objects)
	for i, obj := range p.Objects {
		short := fmt.Sprintf("%06d-%020d-%s", rank, p.Revision, strings.TrimPrefix(obj, p.Run+"/"))
		s.names[short] = obj
		switch {
		case verified:
			s.digests[short] = p.SHA256[i]
		case len(p.SHA256) > 0:
			s.digests[short] = "malformed" // matches no digest: the entry is bad
		}
	}
}

// partOf returns the registry entry of the part a collector object name
// belongs to.
func (s *objectSource) partOf(name string) (registered, bool) {
	id, _, ok := results.ParsePartObjectName(name)
	if !ok {
		return registered{}, false
	}
	p, ok := s.parts[id]
	return p, ok
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
	s.mu.Lock()
	if s.reader == nil {
		r, err := s.farm.NewPartReader(ctx)
		if err != nil {
			s.mu.Unlock()
			return nil, err
		}
		s.reader = r
	}
	reader := s.reader
	s.mu.Unlock()
	data, err := reader.Read(ctx, full)
	if err != nil {
		if errors.Is(err, broker.ErrDamaged) {
			return nil, damagedError{err}
		}
		return nil, err
	}
	if want := s.digests[name]; want != "" && broker.Digest(data) != want {
		return nil, damagedError{fmt.Errorf("object %s: its bytes do not match the SHA-256 its registry entry records (changed or damaged since it was stored)", full)}
	}
	return io.NopCloser(bytes.NewReader(data)), nil
}

// damagedError is an object lost or damaged for good: collect.ErrDamaged.
type damagedError struct{ err error }

func (e damagedError) Error() string        { return e.err.Error() }
func (e damagedError) Unwrap() error        { return e.err }
func (e damagedError) Is(target error) bool { return target == collect.ErrDamaged }
