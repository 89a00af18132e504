// Command chaoscheck reads collected jobs.parquet files with parquet-go's
// generic reader (not the farm's own reader) and checks that each holds
// exactly the expected number of jobs, each job ID once, every one ok:
//
//	go run ./scripts/chaoscheck FILE N [FILE N ...]
//
// scripts/chaos.sh runs it on each farm's results.
package main

import (
	"fmt"
	"os"
	"strconv"

	"github.com/parquet-go/parquet-go"
)

// row is the part of a jobs.parquet row checked here.
type row struct {
	JobID  string `parquet:"job_id"`
	Status string `parquet:"status"`
}

func main() {
	args := os.Args[1:]
	if len(args) == 0 || len(args)%2 != 0 {
		fmt.Fprintln(os.Stderr, "usage: chaoscheck FILE N [FILE N ...]")
		os.Exit(2)
	}
	bad := false
	for i := 0; i < len(args); i += 2 {
		want, err := strconv.Atoi(args[i+1])
		if err != nil {
			fmt.Fprintf(os.Stderr, "chaoscheck: %q is not a job count\n", args[i+1])
			os.Exit(2)
		}
		if err := check(args[i], want); err != nil {
			fmt.Fprintln(os.Stderr, "chaoscheck:", err)
			bad = true
		}
	}
	if bad {
		os.Exit(1)
	}
}

// check reads file and compares its rows with want jobs, each once and ok.
func check(file string, want int) error {
	rows, err := parquet.ReadFile[row](file)
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	seen := make(map[string]bool, len(rows))
	notOK := 0
	for _, r := range rows {
		if seen[r.JobID] {
			return fmt.Errorf("%s: job %s appears more than once", file, r.JobID)
		}
		seen[r.JobID] = true
		if r.Status != "ok" {
			notOK++
		}
	}
	if len(rows) != want || notOK != 0 {
		return fmt.Errorf("%s: %d rows (%d distinct jobs, %d not ok), want %d jobs, all ok", file, len(rows), len(seen), notOK, want)
	}
	fmt.Printf("%s: %d jobs, each once, all ok\n", file, want)
	return nil
}
