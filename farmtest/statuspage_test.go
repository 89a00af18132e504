package farmtest

import (
	"fmt"
	"regexp"
	"syscall"
	"testing"
	"time"

	"schedfarm/statuspage"
)

var pageURLRE = regexp.MustCompile(`status page: (http://\S+/)`)

// TestStatusPageThroughCoordinatorKill: `status --serve` in its own process
// keeps serving while the coordinator is killed (-9) mid-run: its document
// says the coordinator is unreachable and keeps the run, then, once a new
// coordinator has taken the dead one's lease, shows the failover from one
// to the other and the run going to 100 %. (The browser test in
// cmd/schedfarm checks that the page shows the same.) The run's jobs are
// held in flight (a file gate) until the new coordinator is started.
func TestStatusPageThroughCoordinatorKill(t *testing.T) {
	t.Parallel()
	c := newCluster(t, "5s")
	c.start("coordinator", "coordinator", "--name", "coord-a")
	for i := 0; i < 2; i++ {
		c.start(fmt.Sprintf("worker%d", i), "worker", "--workers", "1", "--name", fmt.Sprintf("w%d", i))
	}
	g := newFileGate(t)
	run := c.submit(c.writeSweep("page.yaml", fmt.Sprintf(holdSweep, g.Variant(), 20))) // 80 jobs
	c.start("status", "status", "--serve", "127.0.0.1:0")
	var url string
	waitDoc := func(what string, ok func(*statuspage.Document) bool) *statuspage.Document {
		t.Helper()
		deadline := time.Now().Add(eventWait)
		for {
			if m := pageURLRE.FindStringSubmatch(c.log("status")); m != nil {
				url = m[1]
			}
			if url != "" {
				var d statuspage.Document
				if err := GetJSON(url+"status.json", &d); err != nil {
					t.Fatal(err)
				}
				if ok(&d) {
					return &d
				}
				if time.Now().After(deadline) {
					t.Fatalf("the page's document never showed %s; last: %+v", what, d)
				}
			} else if time.Now().After(deadline) {
				t.Fatalf("status --serve printed no address:\n%s", c.log("status"))
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	waitDoc("the run under coord-a", func(d *statuspage.Document) bool {
		return d.Coordinator == "coord-a" && len(d.Runs) == 1 && d.Runs[0].ID == run
	})
	c.kill("coordinator", syscall.SIGKILL, eventWait)
	down := waitDoc("the coordinator unreachable", func(d *statuspage.Document) bool { return d.Unreachable != nil })
	if len(down.Runs) != 1 || down.Coordinator != "coord-a" {
		t.Errorf("while unreachable the document lost the last answer: %+v", down)
	}
	c.start("coordinator2", "coordinator", "--name", "coord-b")
	g.Open()
	end := waitDoc("the failover and the run complete", func(d *statuspage.Document) bool {
		return d.Coordinator == "coord-b" && d.Unreachable == nil && len(d.Runs) == 1 && d.Runs[0].Percent == 100
	})
	var kinds []string
	for _, e := range end.Events {
		kinds = append(kinds, e.Kind)
		if e.Kind == statuspage.EventFailover && (e.Previous != "coord-a" || e.Coordinator != "coord-b" || !e.DownSince.Equal(down.Unreachable.Since)) {
			t.Errorf("failover event %+v: want coord-a → coord-b, down since %v", e, down.Unreachable.Since)
		}
	}
	if fmt.Sprint(kinds) != "[unreachable failover]" {
		t.Errorf("events %v, want [unreachable failover]", kinds)
	}
	if r := end.Runs[0]; r.Done != 80 || r.Status != "complete" {
		t.Errorf("the run at the end: %+v", r)
	}
}
