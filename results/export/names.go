package export

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// MaxStem bounds a schedule file's stem in bytes: with a collision suffix
// and the longest format suffix ("_jobs.csv") a name stays far below the
// 255 bytes common file systems allow.
const MaxStem = 120

// stemRE is what a file stem may hold: the characters of sweep and model
// names (partitionRE) and "=".
var stemRE = regexp.MustCompile(`^[A-Za-z0-9_.=-]+$`)

// stemRune reports whether r may stand in a stem as it is.
func stemRune(r rune) bool {
	return r == '=' || r == '_' || r == '.' || r == '-' || ('0' <= r && r <= '9') || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z')
}

// sanitise maps a parameter's name or value to stem characters: every
// other character (a path separator, white space, a control or non-ASCII
// character, a quote) becomes "-", and a run of dots becomes one dot, so a
// stem never holds "..".
func sanitise(s string) string {
	var b strings.Builder
	for _, r := range s {
		if !stemRune(r) {
			r = '-'
		}
		if r == '.' && strings.HasSuffix(b.String(), ".") {
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// safeStem reports whether a stem can name a file inside a sweep's folder
// (the rules of safeName, with "=").
func safeStem(s string) bool {
	return stemRE.MatchString(s) && !strings.HasPrefix(s, ".") && !strings.Contains(s, "..")
}

// FileStems returns the file stem of each of one sweep's schedules, in
// order: the parameters whose values differ between the schedules, as
// name=value joined by "_" in schema order ("order=FCFS_backfill=easy"),
// then replicate=N when the schedules come from several replicates, then
// the instance (dssp: "_night39"). A sweep of one job has no varying
// parameter: its stem is job-NNNN (the job index). Characters outside
// [A-Za-z0-9_.=-] become "-" and runs of dots one dot; a stem longer than
// MaxStem is cut and ends in "_" and 8 hex digits of the SHA-256 of what it
// stood for. Stems that would still coincide, ignoring case (as macOS and
// Windows compare file names), get "_job-NNNN" appended (and, should that
// meet another stem, "-2", "-3", ...): the stems are unique. The index file written beside the files (IndexFile) maps each
// file to its job and every parameter.
func FileStems(scheds []*Schedule) []string {
	vary := map[string]bool{}
	reps := map[int64]bool{}
	first := map[string]string{}
	for i, s := range scheds {
		reps[s.Replicate] = true
		for _, p := range s.Params {
			if i == 0 {
				first[p.Name] = p.Value
			} else if first[p.Name] != p.Value {
				vary[p.Name] = true
			}
		}
	}
	stems := make([]string, len(scheds))
	for i, s := range scheds {
		var parts, full []string
		for _, p := range s.Params {
			if vary[p.Name] {
				parts = append(parts, sanitise(p.Name)+"="+sanitise(p.Value))
				full = append(full, strconv.Quote(p.Name)+"="+strconv.Quote(p.Value))
			}
		}
		if len(reps) > 1 {
			parts = append(parts, fmt.Sprintf("replicate=%d", s.Replicate))
		}
		if len(parts) == 0 {
			parts = append(parts, fmt.Sprintf("job-%04d", s.JobIndex))
		}
		if s.Instance != "" {
			parts = append(parts, sanitise(s.Instance))
			full = append(full, strconv.Quote(s.Instance))
		}
		stem := strings.Join(parts, "_")
		if len(stem) > MaxStem {
			sum := sha256.Sum256([]byte(strings.Join(full, " ") + fmt.Sprintf(" replicate=%d", s.Replicate)))
			stem = strings.TrimRight(stem[:MaxStem-9], ".") + "_" + hex.EncodeToString(sum[:4])
		}
		stems[i] = stem
	}
	seen := map[string]int{}
	for _, st := range stems {
		seen[strings.ToLower(st)]++
	}
	for i, st := range stems {
		if seen[strings.ToLower(st)] > 1 {
			stems[i] = st + fmt.Sprintf("_job-%04d", scheds[i].JobIndex)
		}
	}
	// A suffixed stem can meet a parameter value that spells the same
	// suffix; a counter settles what is left, in schedule order.
	used := map[string]bool{}
	for i, st := range stems {
		for n := 2; used[strings.ToLower(stems[i])]; n++ {
			stems[i] = st + "-" + strconv.Itoa(n)
		}
		used[strings.ToLower(stems[i])] = true
	}
	return stems
}
