package sweep

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	"schedfarm/simcore"
)

// WriteTable writes jobs as an aligned text table for `schedfarm expand`:
// index, sweep, replicate, seed, id, then one column per parameter in the
// order the models' schemas declare them (a job whose model lacks a column
// shows "-"). reg supplies that order; with a nil reg the columns are
// sorted by name.
func WriteTable(w io.Writer, jobs []Job, reg *simcore.Registry) error {
	cols := paramColumns(jobs, reg)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "index\tsweep\treplicate\tseed\tid")
	for _, c := range cols {
		fmt.Fprint(tw, "\t", c)
	}
	fmt.Fprintln(tw)
	for _, j := range jobs {
		fmt.Fprintf(tw, "%d\t%s\t%d\t%d\t%s", j.Index, j.Sweep, j.Replicate, j.Seed, j.ID)
		for _, c := range cols {
			v, ok := j.Params[c]
			switch {
			case !ok:
				fmt.Fprint(tw, "\t-")
			default:
				fmt.Fprint(tw, "\t", label(v))
			}
		}
		fmt.Fprintln(tw)
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("sweep: writing job table: %w", err)
	}
	return nil
}

func paramColumns(jobs []Job, reg *simcore.Registry) []string {
	seen := map[string]bool{}
	var cols []string
	add := func(name string) {
		if !seen[name] {
			seen[name] = true
			cols = append(cols, name)
		}
	}
	models := map[string]bool{}
	for _, j := range jobs {
		if models[j.Model] {
			continue
		}
		models[j.Model] = true
		if reg != nil {
			if m, ok := reg.Lookup(j.Model); ok {
				for _, p := range m.Schema().Params {
					add(p.Name)
				}
				continue
			}
		}
		for _, n := range j.Params.Names() {
			add(n)
		}
	}
	for _, j := range jobs {
		for _, n := range j.Params.Names() {
			add(n)
		}
	}
	return cols
}

// jsonJob is the machine-readable form of a job. The seed is a string as
// well as a number because seeds exceed 2^53, beyond which JSON readers
// that decode numbers as doubles (jq, JavaScript) silently round.
type jsonJob struct {
	Job
	SeedString string `json:"seed_string"`
}

// WriteJSON writes jobs as JSON Lines, one object per job with the fields of
// Job plus "seed_string", the seed in decimal as a string.
func WriteJSON(w io.Writer, jobs []Job) error {
	enc := json.NewEncoder(w)
	for _, j := range jobs {
		if err := enc.Encode(jsonJob{Job: j, SeedString: strconv.FormatUint(j.Seed, 10)}); err != nil {
			return fmt.Errorf("sweep: writing job %d of sweep %s: %w", j.Index, j.Sweep, err)
		}
	}
	return nil
}
