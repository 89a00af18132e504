package coordinator

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode/utf8"
)

// ReplyBudget is the most bytes a status reply may take on a connection
// whose server's max_payload is maxPayload: three quarters of it (room to
// spare for the reply's envelope and headers), or of nats-server's default
// of 1 MiB when the limit is unknown.
func ReplyBudget(maxPayload int64) int {
	if maxPayload <= 0 {
		maxPayload = 1 << 20
	}
	return int(maxPayload / 4 * 3)
}

// fitSteps returns the cuts fit makes for a reply of budget bytes, in
// order, until it fits: shorter errors and no jobs in flight listed, then
// fewer workers (the lost ones first, then halving while the workers take
// more than half the budget), then fewer jobs listed per run and no store
// errors, then fewer workers again, no jobs listed, and last fewer runs
// (the oldest go first, halving). A run's counts are never cut. Each step
// reports whether it cut anything; fit repeats one until the reply fits
// or it has nothing left to cut.
func fitSteps(budget int) []func(st *Status, cut *StatusCut) bool {
	return []func(st *Status, cut *StatusCut) bool{
		func(st *Status, cut *StatusCut) bool { return cutErrors(st, cut, 1000) },
		func(st *Status, cut *StatusCut) bool { return cutInFlight(st, cut) },
		func(st *Status, cut *StatusCut) bool { return cutErrors(st, cut, 200) },
		func(st *Status, cut *StatusCut) bool { return cutLostWorkers(st, cut) },
		func(st *Status, cut *StatusCut) bool { return jsonSize(st.Workers) > budget/2 && halveWorkers(st, cut) },
		func(st *Status, cut *StatusCut) bool { return cutLists(st, cut, 10) },
		func(st *Status, cut *StatusCut) bool { return cutStoreErrors(st, cut) },
		func(st *Status, cut *StatusCut) bool { return cutLists(st, cut, 1) },
		func(st *Status, cut *StatusCut) bool { return halveWorkers(st, cut) },
		func(st *Status, cut *StatusCut) bool { return cutLists(st, cut, 0) },
		func(st *Status, cut *StatusCut) bool { return halveRuns(st, cut) },
	}
}

// jsonSize is the size of v in JSON (max int if it cannot be encoded).
func jsonSize(v any) int {
	b, err := json.Marshal(v)
	if err != nil {
		return math.MaxInt
	}
	return len(b)
}

// fit cuts st until its JSON takes at most budget bytes, recording what it
// cut in st.Cut (which it completes with the counts of the usual bounds
// and the notes, or sets to nil when nothing is left out); detail: st
// answers a request for one run. It fails only when even a reply without
// runs and workers is over budget.
func fit(st *Status, budget int, detail bool) error {
	cut := st.Cut
	if cut == nil {
		cut = &StatusCut{}
	}
	st.Cut = nil
	for _, p := range st.Runs { // the usual bounds
		cut.Failures += p.FailuresCut
		cut.Retrying += p.RetryingCut
		cut.StoreErrors += p.StoreErrorsCut
		cut.Errors += countCut(p.Failures) + countCut(p.Retrying)
	}
	for _, w := range st.Workers {
		cut.InFlight += w.InFlightCut
	}
	size := func() int {
		st.Cut = cut
		cut.Notes = cutNotes(st, cut, detail)
		return jsonSize(st)
	}
	if size() > budget {
		cut.Fitted, cut.Budget = true, budget
		fitted := false
		for _, step := range fitSteps(budget) {
			for step(st, cut) {
				if size() <= budget {
					fitted = true
					break
				}
			}
			if fitted {
				break
			}
		}
		if !fitted {
			return fmt.Errorf("status: the reply does not fit in %d bytes even without runs and workers", budget)
		}
	}
	if len(cut.Notes) == 0 {
		st.Cut = nil
	}
	return nil
}

// countCut counts the shortened errors of a list.
func countCut(list []JobFailure) int {
	n := 0
	for _, f := range list {
		if f.ErrorCut > 0 {
			n++
		}
	}
	return n
}

// cutError shortens the job's error to at most n bytes, the last three
// an ellipsis ("…"), on a character boundary, adding the bytes of the
// error it no longer shows to ErrorCut.
func (f *JobFailure) cutError(n int) bool {
	const ellipsis = "…"
	if len(f.Error) <= n {
		return false
	}
	text := f.Error
	if f.ErrorCut > 0 {
		text = strings.TrimSuffix(text, ellipsis) // cut before: the ellipsis is ours
	}
	i := max(n-len(ellipsis), 0)
	for i > 0 && !utf8.RuneStart(text[i]) {
		i--
	}
	f.ErrorCut += len(text) - i
	f.Error = text[:i] + ellipsis
	return true
}

// cutErrors shortens every listed error to n bytes; it reports whether it
// changed anything (once: a second call has nothing left to cut).
func cutErrors(st *Status, cut *StatusCut, n int) bool {
	changed := false
	for i := range st.Runs {
		for _, list := range [][]JobFailure{st.Runs[i].Failures, st.Runs[i].Retrying} {
			for j := range list {
				was := list[j].ErrorCut
				if list[j].cutError(n) {
					changed = true
					if was == 0 {
						cut.Errors++
					}
				}
			}
		}
	}
	return changed
}

// cutLists lists at most n failed and n retrying jobs per run.
func cutLists(st *Status, cut *StatusCut, n int) bool {
	changed := false
	for i := range st.Runs {
		p := &st.Runs[i]
		if k := len(p.Failures) - n; k > 0 {
			cut.Errors -= countCut(p.Failures[n:])
			p.Failures, p.FailuresCut, cut.Failures = p.Failures[:n:n], p.FailuresCut+k, cut.Failures+k
			changed = true
		}
		if k := len(p.Retrying) - n; k > 0 {
			cut.Errors -= countCut(p.Retrying[n:])
			p.Retrying, p.RetryingCut, cut.Retrying = p.Retrying[:n:n], p.RetryingCut+k, cut.Retrying+k
			changed = true
		}
		if n == 0 {
			p.Failures, p.Retrying = nil, nil
		}
	}
	return changed
}

// cutInFlight lists no job in flight and describes no worker's current job.
func cutInFlight(st *Status, cut *StatusCut) bool {
	for i := range st.Workers {
		st.Workers[i].Current = nil
	}
	return cutAll(st.Workers, func(w *WorkerInfo) (*[]string, *int) { return &w.InFlight, &w.InFlightCut }, &cut.InFlight)
}

// cutStoreErrors lists no store error.
func cutStoreErrors(st *Status, cut *StatusCut) bool {
	return cutAll(st.Runs, func(p *RunProgress) (*[]WorkerStoreError, *int) { return &p.StoreErrors, &p.StoreErrorsCut }, &cut.StoreErrors)
}

// cutAll empties the list that list picks of each item, adding its length
// to the item's count of what was cut and to total.
func cutAll[T, E any](items []T, list func(*T) (*[]E, *int), total *int) bool {
	changed := false
	for i := range items {
		if l, n := list(&items[i]); len(*l) > 0 {
			*n += len(*l)
			*total += len(*l)
			*l = nil
			changed = true
		}
	}
	return changed
}

// cutLostWorkers lists no lost worker.
func cutLostWorkers(st *Status, cut *StatusCut) bool {
	n := len(st.Workers)
	st.Workers = slices.DeleteFunc(st.Workers, func(w WorkerInfo) bool {
		if w.Lost {
			cut.InFlight -= w.InFlightCut // counted of the workers listed only
		}
		return w.Lost
	})
	cut.Workers += n - len(st.Workers)
	return n > len(st.Workers)
}

// halveWorkers lists half the workers (the live ones first).
func halveWorkers(st *Status, cut *StatusCut) bool {
	if len(st.Workers) == 0 {
		return false
	}
	keep := len(st.Workers) / 2
	cut.Workers += len(st.Workers) - keep
	st.Workers = keepWorkers(st.Workers, keep)
	cut.InFlight = 0 // counted of the workers listed only
	for _, w := range st.Workers {
		cut.InFlight += w.InFlightCut
	}
	return true
}

// keepWorkers returns n of the workers, the live ones first, sorted by name.
func keepWorkers(ws []WorkerInfo, n int) []WorkerInfo {
	ws = slices.Clone(ws)
	slices.SortStableFunc(ws, func(a, b WorkerInfo) int {
		switch {
		case a.Lost == b.Lost:
			return 0
		case a.Lost:
			return 1
		}
		return -1
	})
	ws = ws[:n]
	slices.SortFunc(ws, func(a, b WorkerInfo) int { return strings.Compare(a.Name, b.Name) })
	return ws
}

// halveRuns lists the newer half of the runs; Older then continues with
// the oldest run kept.
func halveRuns(st *Status, cut *StatusCut) bool {
	if len(st.Runs) == 0 {
		return false
	}
	drop := len(st.Runs) - len(st.Runs)/2
	for _, p := range st.Runs[:drop] {
		cut.Failures -= p.FailuresCut
		cut.Retrying -= p.RetryingCut
		cut.StoreErrors -= p.StoreErrorsCut
		cut.Errors -= countCut(p.Failures) + countCut(p.Retrying)
	}
	cut.Runs += drop
	st.Runs = st.Runs[drop:]
	st.Older = ""
	if len(st.Runs) > 0 {
		st.Older = st.Runs[0].ID
	}
	return true
}

// cutNotes says in words what st leaves out.
func cutNotes(st *Status, cut *StatusCut, detail bool) []string {
	var notes []string
	if cut.Fitted {
		notes = append(notes, fmt.Sprintf("cut to fit %s, three quarters of the NATS server's max_payload", bytesText(int64(cut.Budget))))
	}
	if cut.Runs > 0 {
		more := ""
		if st.Older != "" {
			more = fmt.Sprintf(": `schedfarm status --before %s` lists them", st.Older)
		} else if cut.Fitted {
			more = ": `schedfarm status RUN` shows one"
		}
		notes = append(notes, fmt.Sprintf("%d older %s not listed%s", cut.Runs, plural(cut.Runs, "run", "runs"), more))
	}
	if cut.Failures > 0 {
		where := fmt.Sprintf("`schedfarm status RUN` lists up to %d of a run's, and its collected jobs.parquet has every one", listLimit)
		if detail {
			where = "the run's collected jobs.parquet has every one"
		}
		notes = append(notes, fmt.Sprintf("%d failed %s not listed (the counts are exact; %s)", cut.Failures, plural(cut.Failures, "job", "jobs"), where))
	}
	if cut.Retrying > 0 {
		notes = append(notes, fmt.Sprintf("%d retrying %s not listed", cut.Retrying, plural(cut.Retrying, "job", "jobs")))
	}
	if cut.Errors > 0 {
		notes = append(notes, fmt.Sprintf("%d error %s shortened (ending in …)", cut.Errors, plural(cut.Errors, "text", "texts")))
	}
	if cut.StoreErrors > 0 {
		notes = append(notes, fmt.Sprintf("%d workers' store errors not listed", cut.StoreErrors))
	}
	if cut.Workers > 0 {
		notes = append(notes, fmt.Sprintf("%d %s not listed", cut.Workers, plural(cut.Workers, "worker", "workers")))
	}
	if cut.InFlight > 0 {
		notes = append(notes, fmt.Sprintf("%d %s in flight not listed", cut.InFlight, plural(cut.InFlight, "job", "jobs")))
	}
	return notes
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
