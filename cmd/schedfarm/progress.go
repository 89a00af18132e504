package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"schedfarm/coordinator"
)

// progress draws a run's progress: a bar redrawn in place on a terminal,
// a line every few seconds otherwise (logs, CI).
type progress struct {
	w        io.Writer
	tty      bool
	start    time.Time
	lastLine time.Time
	first    int // jobs finished when we started watching, for the rate
}

func newProgress(w io.Writer) *progress {
	tty := false
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil {
			tty = st.Mode()&os.ModeCharDevice != 0
		}
	}
	return &progress{w: w, tty: tty, start: time.Now(), first: -1}
}

func (p *progress) line(r *coordinator.RunProgress) string {
	work := r.Total - r.Skipped
	finished := r.Done + r.Failed
	if p.first < 0 {
		p.first = finished
	}
	elapsed := time.Since(p.start).Seconds()
	rate := 0.0
	if elapsed > 0 {
		rate = float64(finished-p.first) / elapsed
	}
	// No rate and no ETA before a job has finished: "0 jobs/s ETA ?"
	// says nothing.
	pace := "starting"
	if rate > 0 {
		eta := (time.Duration(float64(work-finished)/rate*1e9) * time.Nanosecond).Round(time.Second).String()
		pace = fmt.Sprintf("%.0f jobs/s  ETA %s", rate, eta)
	}
	frac := 1.0
	if work > 0 {
		frac = float64(finished) / float64(work)
	}
	const width = 30
	n := min(int(frac*width), width) // adaptive rounds can add jobs
	bar := strings.Repeat("=", n) + strings.Repeat(" ", width-n)
	return fmt.Sprintf("[%s] %d/%d %5.1f%%  %s  failed %d  retrying %d",
		bar, finished, work, 100*frac, pace, r.Failed, len(r.Retrying))
}

// clearLine returns to the start of the terminal's line and erases it, so
// that a shorter line leaves no stale characters.
const clearLine = "\r\x1b[K"

// drawn reports whether a line of the bar has been drawn.
func (p *progress) drawn() bool { return p.first >= 0 }

// note prints a message between the bar's lines.
func (p *progress) note(msg string) {
	if p.tty && p.drawn() {
		fmt.Fprint(p.w, "\n")
	}
	fmt.Fprintln(p.w, msg)
}

func (p *progress) update(r *coordinator.RunProgress) {
	l := p.line(r)
	if p.tty {
		fmt.Fprint(p.w, clearLine+l)
		return
	}
	if time.Since(p.lastLine) >= 5*time.Second {
		fmt.Fprintln(p.w, l)
		p.lastLine = time.Now()
	}
}

func (p *progress) finish(r *coordinator.RunProgress) {
	l := p.line(r)
	if p.tty {
		fmt.Fprint(p.w, clearLine+l+"\n")
		return
	}
	fmt.Fprintln(p.w, l)
}
