package report_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"schedfarm/results/internal/runtest"
	"schedfarm/results/report"
)

// TestWriteContextCancelled: a report whose context has ended renders no
// figure and writes none of its files, with an error wrapping
// context.Canceled; the collected results stay as they were.
func TestWriteContextCancelled(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "big", "r1")
	runtest.CollectRun(t, dir, 200)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	r, err := report.WriteContext(ctx, dir, runtest.Registry(t))
	if !errors.Is(err, context.Canceled) || r != nil {
		t.Fatalf("WriteContext: report %t, err = %v; want no report and context.Canceled", r != nil, err)
	}
	for _, name := range []string{report.ReportMarkdown, report.ReportHTML, report.ClaimsJSON} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			t.Errorf("%s written by a cancelled report", name)
		}
	}
	if figs, _ := filepath.Glob(filepath.Join(dir, report.FiguresDir, "*")); len(figs) != 0 {
		t.Errorf("a cancelled report rendered %d figure files", len(figs))
	}
	if _, err := os.Stat(filepath.Join(dir, "summary.parquet")); err != nil {
		t.Errorf("the collected results: %v", err)
	}
	if _, err := report.WriteContext(t.Context(), dir, runtest.Registry(t)); err != nil {
		t.Errorf("the same report, not cancelled: %v", err)
	}
}
