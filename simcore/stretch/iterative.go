package stretch

// iterative is the iterative moldable scheduler of Sabin et al. (seed 003
// §5.4, SPECS.md §4.1), and with improved set Saule's improved variant.
// At each invocation every waiting task starts on one processor; the
// schedule is conservative backfilling in FCFS order. Repeatedly, the
// unfrozen task whose runtime drops most with more processors (one more,
// or for the improved variant the k ≥ 1 more maximising (p_x − p_{x+k})/k)
// gets them; the change is kept if the average flow time of the waiting
// tasks decreases, otherwise reverted and the task frozen.
type iterative struct {
	improved bool
	size     []int
	start    []float64
	frozen   []bool
	gain     []float64
	step     []int
}

func (*iterative) arrive(int, float64, *moldState) {}

// bestStep returns the gain and the step k of task i at its current size.
func (it *iterative) bestStep(st *moldState, i int) (float64, int) {
	T := st.tasks[i].Times
	x := it.size[i]
	if x >= st.P {
		return 0, 0
	}
	if !it.improved {
		return T[x-1] - T[x], 1
	}
	best, bk := 0.0, 0
	for k := 1; x+k <= st.P; k++ {
		if g := (T[x-1] - T[x+k-1]) / float64(k); g > best {
			best, bk = g, k
		}
	}
	return best, bk
}

func (it *iterative) plan(t float64, st *moldState) []startNow {
	if len(it.size) < len(st.tasks) {
		n := len(st.tasks)
		it.size, it.start, it.frozen = make([]int, n), make([]float64, n), make([]bool, n)
		it.gain, it.step = make([]float64, n), make([]int, n)
	}
	W := st.pending
	for _, i := range W {
		it.size[i], it.frozen[i] = 1, false
		it.gain[i], it.step[i] = it.bestStep(st, i)
	}
	F := conservative(st.baseProfile(t), t, st.tasks, W, it.size, it.start)
	for {
		j, g := -1, 0.0
		for _, i := range W {
			if !it.frozen[i] && (j < 0 || it.gain[i] > g) {
				j, g = i, it.gain[i]
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
		F2 := conservative(st.baseProfile(t), t, st.tasks, W, it.size, it.start)
		if F2 < F*(1-1e-12) {
			F = F2
			it.gain[j], it.step[j] = it.bestStep(st, j)
		} else {
			it.size[j] -= k
			it.frozen[j] = true
		}
	}
	conservative(st.baseProfile(t), t, st.tasks, W, it.size, it.start)
	return startsAt(t, W, it.start, it.size)
}
