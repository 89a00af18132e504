package stretch

import "math"

// iterative is the iterative moldable scheduler of Sabin et al. (saule2012
// §5.4, docs/models/stretch.md A5), and with improved set Saule's improved variant.
// At each invocation every waiting task starts on one processor; the
// schedule is conservative backfilling in FCFS order. Repeatedly, the
// unfrozen task whose runtime drops most with more processors (one more,
// or for the improved variant the k ≥ 1 more maximising (p_x − p_{x+k})/k)
// gets them; the change is kept if the average flow time of the waiting
// tasks decreases, otherwise reverted and the task frozen.
type iterative struct {
	improved bool
	// selectTotal (improved only): the task grown next is the one whose
	// best step cuts its runtime most, p_x − p_{x+k}, instead of the one
	// with the largest cut per processor (p_x − p_{x+k})/k
	// (MoldConfig.ImprovedSelectTotal).
	selectTotal bool
	size        []int
	start       []float64
	frozen      []bool
	gain        []float64
	step        []int
	bf          incBackfill
	// The improved variant's best step of a waiting task at each size is
	// a function of the task and the size alone: memoK holds k+1 (0: not
	// yet computed) and memoG the gain, filled as sizes are visited, and
	// drops[x] the largest drop T[j-1] − T[j] over j > x. All are per
	// task, allocated at its first scan and dropped when it starts.
	memoG [][]float64
	memoK [][]int32
	drops [][]float64
	mono  []bool // per task: Times non-increasing (pruning allowed)
}

func (*iterative) arrive(int, float64, *moldState) {}

// stepMargin is the relative margin by which the first drop must exceed
// every later one for k = 1 to be taken without a scan: far above the
// rounding of the gains (a few ulps), so the scan could not answer
// otherwise.
const stepMargin = 1e-9

// bestStep returns the gain and the step k of task i at its current size:
// for the improved variant the first k maximising (T[x-1] − T[x+k-1])/k,
// with 0, 0 if no k gains.
func (it *iterative) bestStep(st *moldState, i int) (float64, int) {
	T := st.tasks[i].Times
	x := it.size[i]
	if x >= st.P {
		return 0, 0
	}
	if !it.improved {
		return T[x-1] - T[x], 1
	}
	if it.memoK[i] == nil {
		it.prepareSteps(st, i)
	}
	if k := it.memoK[i][x-1]; k > 0 {
		return it.memoG[i][x-1], int(k - 1)
	}
	best, bk := 0.0, 0
	// If the first drop d exceeds every later drop by the margin, every
	// gain with k >= 2 (an average of d and later drops) is below d by
	// far more than rounding: k = 1 wins, its gain is d/1 = d exactly.
	if d := T[x-1] - T[x]; d > 0 && it.drops[i][x] <= d*(1-stepMargin) {
		best, bk = d, 1
	} else {
		// On a non-increasing table (T[x-1] − T[x+k-1])/k is at most
		// (T[x-1] − T[P-1])/k, which falls with k (and so do their
		// roundings): once that bound is <= best no larger k can win the
		// strict comparison, so the scan stops with the full scan's answer.
		span := T[x-1] - T[st.P-1]
		prune := it.mono[i]
		for k := 1; x+k <= st.P; k++ {
			fk := float64(k)
			if prune && span/fk <= best {
				break
			}
			if g := (T[x-1] - T[x+k-1]) / fk; g > best {
				best, bk = g, k
			}
		}
	}
	it.memoG[i][x-1], it.memoK[i][x-1] = best, int32(bk+1)
	return best, bk
}

// prepareSteps allocates task i's step cache and computes its later-drop
// maxima and monotonicity.
func (it *iterative) prepareSteps(st *moldState, i int) {
	T := st.tasks[i].Times[:st.P]
	P := st.P
	it.memoG[i], it.memoK[i] = make([]float64, P), make([]int32, P)
	// dr[x] is the largest drop T[j-1] − T[j] over x < j < P (the drops
	// after the one from x to x+1 processors); -Inf if none.
	dr := make([]float64, P)
	dr[P-1] = math.Inf(-1)
	mono := true
	for x := P - 2; x >= 0; x-- {
		d := T[x] - T[x+1] // the drop from x+1 to x+2 processors
		if d < 0 {
			mono = false
		}
		dr[x] = math.Max(dr[x+1], d)
	}
	it.drops[i], it.mono[i] = dr, mono
}

// forget drops the step caches of the tasks that start now.
func (it *iterative) forget(starts []startNow) {
	if !it.improved {
		return
	}
	for _, s := range starts {
		it.memoG[s.task], it.memoK[s.task], it.drops[s.task] = nil, nil, nil
	}
}

func (it *iterative) plan(t float64, st *moldState) []startNow {
	if len(it.size) < len(st.tasks) {
		n := len(st.tasks)
		it.size, it.start, it.frozen = make([]int, n), make([]float64, n), make([]bool, n)
		it.gain, it.step = make([]float64, n), make([]int, n)
		if it.improved {
			it.memoG, it.memoK = make([][]float64, n), make([][]int32, n)
			it.drops, it.mono = make([][]float64, n), make([]bool, n)
		}
	}
	W := st.pending
	for _, i := range W {
		it.size[i], it.frozen[i] = 1, false
		it.gain[i], it.step[i] = it.bestStep(st, i)
	}
	// Each trial re-plans only from the grown task on (incBackfill): the
	// same sums and schedules as conservative over all of W each time.
	F := it.bf.reset(st.baseProfile(t), t, st.tasks, W, it.size)
	for {
		j, g, pj := -1, 0.0, -1
		for p, i := range W {
			gi := it.gain[i]
			if it.selectTotal {
				gi *= float64(it.step[i])
			}
			if !it.frozen[i] && (j < 0 || gi > g) {
				j, g, pj = i, gi, p
			}
		}
		if j < 0 {
			break
		}
		if g <= 0 {
			it.frozen[j] = true
			continue
		}
		k := it.step[j]
		it.size[j] += k
		thr := F * (1 - 1e-12)
		if F2, done := it.bf.trial(pj, t, st.tasks, it.size, thr); done && F2 < thr {
			it.bf.accept()
			F = F2
			it.gain[j], it.step[j] = it.bestStep(st, j)
		} else {
			it.size[j] -= k
			it.frozen[j] = true
		}
	}
	for p, i := range W {
		it.start[i] = it.bf.start[p]
	}
	starts := startsAt(t, W, it.start, it.size)
	it.forget(starts)
	return starts
}
