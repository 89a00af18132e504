package stretch

import (
	"math"

	"schedfarm/simcore/profile"
)

// scojo approximates SCOJO-P (Barsanti & Sodan 2006) from its published
// description (saule2012 §5.5, docs/models/stretch.md A6; the original is a Java program
// that was never published): on arrival a task gets its "optimal" size n*
// (minimum n/S(n)², i.e. runtime over efficiency), scaled so that about
// U* = 95% of the processors are predicted busy during its run; the
// prediction adds running work, queued work and the work expected to
// arrive (rate and mean work of the last 100 arrivals). The task starts at
// once if it fits, or at once on fewer processors (down to half) if that
// ends it earlier than waiting; otherwise it keeps its size and is placed
// by conservative backfilling. Sizes are fixed from then on.
//
// The prediction Û is a demand: the work in the system and expected over
// the task's span, per processor and second, so it exceeds 1 when more
// work waits than the span can hold and then scales a short task down to
// one processor (MoldConfig.ScojoLoadBusy caps it at 1 instead).
//
// Sizes never change and runtimes are exact, so re-planning the waiting
// tasks by conservative backfilling at every event would put each where it
// already is: every planned start is an event (now, or the end of a
// reservation, i.e. a completion) at which the task does start, and the
// profile seen by each task from now on is the same function. The planner
// therefore keeps one profile across events and places each task once, on
// arrival, at the start that re-planning would give it.
//
// With atStart (scojo_size_at: start) sizes are not fixed at arrival: at
// every event each waiting task is sized again from the prediction then
// and the waiting tasks are re-planned, in release order, on a profile of
// the running ones; that is a re-plan, so it rebuilds the profile.
type scojo struct {
	size   []int
	start  []float64
	window []int // last arrivals (task indices), oldest first
	prof   profile.Profile
	init   bool
	// shrinkAny: the smaller sizes tried go down to 1, not n/2
	// (MoldConfig.ScojoShrinkAny).
	shrinkAny bool
	// busyCap: Û is the fraction of processors predicted busy, at most 1
	// (MoldConfig.ScojoLoadBusy).
	busyCap bool
	// atStart: a waiting task's size is decided when it starts, from the
	// prediction then, not fixed at its arrival (MoldConfig.ScojoSizeAtStart).
	atStart bool
}

const (
	scojoTarget = 0.95
	scojoWindow = 100
)

func newScojo(n int) *scojo {
	return &scojo{size: make([]int, n), start: make([]float64, n)}
}

// optimalSize is n* = argmin n·T(n)² (ties: smaller n) and the smallest
// size reaching the minimum runtime.
func optimalSize(T []float64) (nstar, nmax int) {
	best := math.Inf(1)
	for n := 1; n <= len(T); n++ {
		if v := float64(n) * T[n-1] * T[n-1]; v < best {
			best, nstar = v, n
		}
	}
	nmax = len(T)
	for nmax > 1 && T[nmax-2] <= T[len(T)-1] {
		nmax--
	}
	return nstar, nmax
}

// scaledSize is SCOJO-P's size for task i at time t: n* scaled by
// 0.95/Û, where Û predicts the load over the task's span at n* from the
// running tasks, the other waiting tasks (others, at their sizes in size)
// and the work expected to arrive (rate and mean work of window), at most
// the task's smallest size reaching its minimum runtime.
func (sc *scojo) scaledSize(i int, t float64, st *moldState, others []int) int {
	T := st.tasks[i].Times[:st.P]
	nstar, nmax := optimalSize(T)
	span := T[nstar-1]
	// Predicted busy processor-time over [t, t+span).
	busy := 0.0
	for _, r := range st.running {
		busy += float64(r.node) * math.Min(math.Max(r.end-t, 0), span)
	}
	for _, k := range others {
		if k != i {
			busy += float64(sc.size[k]) * st.tasks[k].Times[sc.size[k]-1]
		}
	}
	if len(sc.window) >= 2 {
		first, last := st.tasks[sc.window[0]].Release, st.tasks[sc.window[len(sc.window)-1]].Release
		if last > first {
			rate := float64(len(sc.window)-1) / (last - first)
			w := 0.0
			for _, k := range sc.window {
				w += st.tasks[k].Seq()
			}
			busy += rate * w / float64(len(sc.window)) * span
		}
	}
	u := busy / (float64(st.P) * span)
	if sc.busyCap {
		u = math.Min(u, 1)
	}
	n := int(math.Round(float64(nstar) * scojoTarget / math.Max(u, 0.05)))
	return max(1, min(n, st.P, nmax))
}

// startSize is the size a task of size n starts on at t in prof: n if it
// fits now, else the smaller size (down to n/2, or 1 with shrinkAny) that
// fits now and ends it earliest, if that is earlier than waiting for n.
func (sc *scojo) startSize(prof *profile.Profile, T []float64, n int, t float64) int {
	if prof.FitsAt(n, T[n-1], t) {
		return n
	}
	wait, _ := prof.EarliestFit(n, T[n-1], t)
	bestEnd, bestN := wait+T[n-1], n
	lo := max(1, n/2)
	if sc.shrinkAny {
		lo = 1
	}
	for k := lo; k < n; k++ {
		if prof.FitsAt(k, T[k-1], t) && t+T[k-1] < bestEnd {
			bestEnd, bestN = t+T[k-1], k
		}
	}
	return bestN
}

func (sc *scojo) arrive(i int, t float64, st *moldState) {
	T := st.tasks[i].Times[:st.P]
	n := sc.scaledSize(i, t, st, st.pending[:len(st.pending)-1]) // i was appended last
	defer sc.remember(i)
	if sc.atStart {
		sc.size[i] = n // the queue's demand until the task is sized again at the next plan
		return
	}
	if !sc.init {
		resetProfile(&sc.prof, st.P, t, st.ends)
		sc.init = true
	}
	prof := &sc.prof
	prof.Advance(t)
	n = sc.startSize(prof, T, n, t)
	sc.size[i] = n
	sc.start[i] = mustPlace(prof, n, T[n-1], t)
}

// remember adds task i to the window of recent arrivals.
func (sc *scojo) remember(i int) {
	sc.window = append(sc.window, i)
	if len(sc.window) > scojoWindow {
		sc.window = sc.window[1:]
	}
}

func (sc *scojo) plan(t float64, st *moldState) []startNow {
	if !sc.atStart {
		return startsAt(t, st.pending, sc.start, sc.size)
	}
	// Sizes decided at start: every waiting task, in release order, is
	// sized again from the prediction at t and placed by conservative
	// backfilling on a profile of the running tasks; those placed at t
	// start.
	prof := st.baseProfile(t)
	var out []startNow
	for _, i := range st.pending {
		T := st.tasks[i].Times
		n := sc.scaledSize(i, t, st, st.pending)
		n = sc.startSize(prof, T, n, t)
		sc.size[i] = n
		if mustPlace(prof, n, T[n-1], t) <= t {
			out = append(out, startNow{i, n})
		}
	}
	return out
}
