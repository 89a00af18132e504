package profile

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func ExampleProfile_EarliestFit() {
	p := New(4, 0)
	_ = p.Reserve(0, 10, 3) // one processor free until 10
	_ = p.Reserve(5, 20, 1) // none free during [5, 10), three during [10, 20)
	t, _ := p.EarliestFit(2, 4, 0)
	fmt.Println(t)
	t, _ = p.EarliestFit(1, 5, 0)
	fmt.Println(t)
	t, _ = p.EarliestFit(4, 1, 0)
	fmt.Println(t)
	// Output:
	// 10
	// 0
	// 20
}

// brute is a reference profile: the free count per unit slot on a grid.
type brute struct{ free []int }

func (b *brute) fits(k int, t, d int) bool {
	for x := t; x < t+d || x == t; x++ {
		if x >= len(b.free) {
			return true
		}
		if b.free[x] < k {
			return false
		}
	}
	return true
}

func TestAgainstBruteForce(t *testing.T) {
	for seed := uint64(1); seed <= 40; seed++ {
		r := rand.New(rand.NewPCG(seed, 7))
		const horizon, capacity = 200, 8
		p := New(capacity, 0)
		b := &brute{free: make([]int, horizon+50)}
		for i := range b.free {
			b.free[i] = capacity
		}
		for step := 0; step < 300; step++ {
			k := r.IntN(capacity + 1)
			d := r.IntN(20)
			after := r.IntN(horizon)
			got, _ := p.EarliestFit(k, float64(d), float64(after))
			want := after
			for !b.fits(k, want, d) {
				want++
			}
			if got != float64(want) {
				t.Fatalf("seed %d step %d: EarliestFit(%d, %d, %d) = %v, want %d", seed, step, k, d, after, got, want)
			}
			if d > 0 && want+d < horizon && r.IntN(2) == 0 {
				if err := p.Reserve(float64(want), float64(want+d), k); err != nil {
					t.Fatalf("seed %d: %v", seed, err)
				}
				for x := want; x < want+d; x++ {
					b.free[x] -= k
				}
			} else if r.IntN(4) == 0 {
				// Try an over-reservation: must fail exactly when brute says so.
				s := r.IntN(horizon)
				ok := true
				for x := s; x < s+d; x++ {
					ok = ok && b.free[x] >= k
				}
				err := p.Reserve(float64(s), float64(s+d), k)
				if (err == nil) != ok {
					t.Fatalf("seed %d: Reserve(%d,%d,%d) err=%v, brute ok=%v", seed, s, s+d, k, err, ok)
				}
				if err == nil {
					for x := s; x < s+d; x++ {
						b.free[x] -= k
					}
				}
			}
			for x := 0; x < horizon; x += 7 {
				if f := p.Free(float64(x)); f != b.free[x] {
					t.Fatalf("seed %d: Free(%d) = %d, want %d", seed, x, f, b.free[x])
				}
			}
			// MinFree over a random interval (its start alone if empty)
			a := r.IntN(horizon)
			e := a + r.IntN(30)
			want = b.free[a]
			for x := a + 1; x < e; x++ {
				want = min(want, b.free[x])
			}
			if f := p.MinFree(float64(a), float64(e)); f != want {
				t.Fatalf("seed %d: MinFree(%d, %d) = %d, want %d", seed, a, e, f, want)
			}
		}
	}
}

func TestReleaseAndMerge(t *testing.T) {
	p := New(4, 0)
	_ = p.Reserve(2, 8, 2)
	_ = p.Reserve(4, 6, 1)
	if p.Len() != 5 {
		t.Fatalf("steps = %d", p.Len())
	}
	_ = p.Release(4, 6, 1)
	_ = p.Release(2, 8, 2)
	if p.Len() != 1 || p.Free(5) != 4 {
		t.Fatalf("after release: %d steps, free %d", p.Len(), p.Free(5))
	}
	if err := p.Release(0, 1, 1); err == nil {
		t.Fatal("release above capacity accepted")
	}
	_ = p.Reserve(1, math.Inf(1), 4)
	if f, ok := p.EarliestFit(1, 1, 0); f != 0 || !ok {
		t.Fatalf("fit before an endless reservation: %v %v", f, ok)
	}
	if f, _ := p.EarliestFit(1, 2, 0); !math.IsInf(f, 1) {
		t.Fatalf("fit across an endless reservation: %v", f)
	}
	p.Advance(3)
	if p.Origin() != 3 || p.Free(0) != 0 {
		t.Fatalf("advance: origin %v free %d", p.Origin(), p.Free(0))
	}
}

// BenchmarkProfile_ReserveFit: a rolling window of ~100 live reservations on
// 512 processors, as a conservative-backfilling scheduler sees it: one
// EarliestFit, one Reserve and one Advance per operation, at ~90% load.
func BenchmarkProfile_ReserveFit(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 4))
	p := New(512, 0)
	now := 0.0
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		k := 1 + r.IntN(128)
		d := 1 + r.Float64()*100
		t, _ := p.EarliestFit(k, d, now)
		_ = p.Reserve(t, t+d, k)
		now += 7 // mean work 64.5·50.5 over 512 processors ≈ 6.4
		p.Advance(now)
	}
}

// BenchmarkProfile_EarliestFit1000: queries on a profile of ~1000 steps.
func BenchmarkProfile_EarliestFit1000(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 6))
	p := New(512, 0)
	for p.Len() < 1000 {
		s := r.Float64() * 10000
		_ = p.Reserve(s, s+r.Float64()*50, 1+r.IntN(8))
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_, _ = p.EarliestFit(1+r.IntN(64), r.Float64()*100, r.Float64()*10000)
	}
}

// TestEarliestFitBeforeMatchesReleaseRefit checks EarliestFitBefore(Stop)
// and FitsAt against the operations they stand for, on random profiles.
func TestEarliestFitBeforeMatchesReleaseRefit(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for it := 0; it < 3000; it++ {
		p := New(16, 0)
		type res struct {
			s, e float64
			k    int
		}
		var rs []res
		for range 1 + rng.IntN(12) {
			s := float64(rng.IntN(40))
			e := s + float64(rng.IntN(20))
			k := 1 + rng.IntN(8)
			if p.Reserve(s, e, k) == nil && e > s {
				rs = append(rs, res{s, e, k})
			}
		}
		if len(rs) == 0 {
			continue
		}
		own := rs[rng.IntN(len(rs))]
		after := float64(rng.IntN(int(own.s) + 1))
		stop := own.s
		if rng.IntN(2) == 0 {
			stop = after + float64(rng.IntN(int(own.s-after)+1))
		}
		got, ok := p.EarliestFitBeforeStop(own.k, own.e-own.s, after, own.s, stop)
		if err := p.Release(own.s, own.e, own.k); err != nil {
			t.Fatal(err)
		}
		want, _ := p.EarliestFit(own.k, own.e-own.s, after)
		if p.Reserve(own.s, own.e, own.k) != nil {
			t.Fatal("re-reserve")
		}
		if ok != (want < stop) || ok && got != want {
			t.Fatalf("it %d: EarliestFitBeforeStop(%d, %v, %v, %v, %v) = %v, %v; release+EarliestFit gives %v",
				it, own.k, own.e-own.s, after, own.s, stop, got, ok, want)
		}
		k, d, at := 1+rng.IntN(16), float64(rng.IntN(15)), float64(rng.IntN(50))
		if w, _ := p.EarliestFit(k, d, at); p.FitsAt(k, d, at) != (w == at) {
			t.Fatalf("it %d: FitsAt(%d, %v, %v) = %v, EarliestFit %v", it, k, d, at, !(w == at), w)
		}
		// a job of no duration: releasing nothing, it fits where k are free
		lim := at + float64(rng.IntN(30))
		if got, ok := p.EarliestFitBefore(k, 0, at, lim); func() bool {
			w, _ := p.EarliestFit(k, 0, at)
			return ok != (w < lim) || ok && got != w
		}() {
			t.Fatalf("it %d: EarliestFitBefore(%d, 0, %v, %v) = %v, %v, not what EarliestFit gives", it, k, at, lim, got, ok)
		}
	}
}

// randomProfile reserves n random intervals (integer times, some sharing
// ends) on a cluster of capacity 16 and returns them.
func randomProfile(rng *rand.Rand, n int) (*Profile, [][3]float64) {
	p := New(16, 0)
	var rs [][3]float64
	for range n {
		s := float64(rng.IntN(2000))
		e := s + float64(1+rng.IntN(120))
		k := 1 + rng.IntN(6)
		if p.Reserve(s, e, k) == nil {
			rs = append(rs, [3]float64{s, e, float64(k)})
		}
	}
	return p, rs
}

// TestEarliestFitBeforeLongProfiles repeats the release+refit comparison
// on profiles of hundreds of steps, where the search skips whole blocks,
// with edits (moves) between the queries so that the block summaries go
// stale and are rebuilt.
func TestEarliestFitBeforeLongProfiles(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	for it := 0; it < 40; it++ {
		p, rs := randomProfile(rng, 300+rng.IntN(300))
		if p.Len() < 4*blk {
			t.Fatalf("it %d: only %d steps", it, p.Len())
		}
		for q := 0; q < 200; q++ {
			x := rng.IntN(len(rs))
			own := rs[x]
			k, d := int(own[2]), own[1]-own[0]
			after := float64(rng.IntN(int(own[0]) + 1))
			stop := own[0]
			if rng.IntN(2) == 0 {
				stop = after + float64(rng.IntN(int(own[0]-after)+1))
			}
			got, ok := p.EarliestFitBeforeStop(k, d, after, own[0], stop)
			// from the start of the step containing after
			si := p.Search(after)
			if si == p.Len() || si > 0 && func() bool { t, _ := p.Step(si); return t > after }() {
				si--
			}
			s0, _ := p.Step(si)
			g1, ok1 := p.EarliestFitBeforeStopStep(k, d, after, own[0], stop)
			g2, ok2 := p.EarliestFitBeforeStop(k, d, s0, own[0], stop)
			if g1 != g2 || ok1 != ok2 {
				t.Fatalf("it %d q %d: EarliestFitBeforeStopStep(%v) = %v, %v; from the step start %v: %v, %v", it, q, after, g1, ok1, s0, g2, ok2)
			}
			if err := p.Release(own[0], own[1], k); err != nil {
				t.Fatal(err)
			}
			want, _ := p.EarliestFit(k, d, after)
			if err := p.Reserve(own[0], own[1], k); err != nil {
				t.Fatal(err)
			}
			if ok != (want < stop) || ok && got != want {
				t.Fatalf("it %d q %d: EarliestFitBeforeStop(%d, %v, %v, %v, %v) = %v, %v; release+EarliestFit gives %v",
					it, q, k, d, after, own[0], stop, got, ok, want)
			}
			if ok {
				// move it there, as a compression does
				if err := p.Move(own[0], got, d, k); err != nil {
					t.Fatal(err)
				}
				rs[x] = [3]float64{got, got + d, own[2]}
			}
			if q%50 == 0 {
				p.Advance(float64(rng.IntN(20)))
			}
		}
	}
}

// TestMoveMatchesReleaseReserve checks Move against Release then Reserve:
// the same steps, and an error (leaving the profile unchanged) exactly
// when the new interval does not fit.
func TestMoveMatchesReleaseReserve(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 1))
	steps := func(p *Profile) [][2]float64 {
		checkSlack(t, p)
		return canonical(p)
	}
	for it := 0; it < 2000; it++ {
		p, rs := randomProfile(rng, 20+rng.IntN(200))
		q := &Profile{capacity: p.capacity, times: append([]float64(nil), p.times...), free: append([]int(nil), p.free...)}
		own := rs[rng.IntN(len(rs))]
		k, d := int(own[2]), own[1]-own[0]
		to := float64(rng.IntN(int(own[0]) + 1))
		if it%7 == 3 {
			// a reservation at +Inf (nothing to release) goes anywhere
			own = [3]float64{math.Inf(1), math.Inf(1), own[2]}
		}
		switch it % 4 {
		case 1: // the new interval ends where the old one starts
			to = max(0, own[0]-d)
		case 2: // a short move: the intervals overlap
			to = max(0, own[0]-1)
		}
		before := steps(p)
		err := p.Move(own[0], to, d, k)
		if e := q.Release(own[0], own[1], k); e != nil {
			t.Fatal(e)
		}
		want := q.Reserve(to, to+d, k)
		if (err == nil) != (want == nil) {
			t.Fatalf("it %d: Move(%v, %v, %v, %d) = %v, Release+Reserve %v", it, own[0], to, d, k, err, want)
		}
		got := steps(p)
		if err != nil {
			if fmt.Sprint(got) != fmt.Sprint(before) {
				t.Fatalf("it %d: failed Move changed the profile", it)
			}
			continue
		}
		if fmt.Sprint(got) != fmt.Sprint(steps(q)) {
			t.Fatalf("it %d: Move(%v, %v, %v, %d) gives %v, Release+Reserve %v", it, own[0], to, d, k, got, steps(q))
		}
	}
}

// TestMoveAllMatchesMoves: MoveAll of a group of reservations sharing a
// start gives the steps (and the error) of one Move per reservation, on
// random profiles, with integer and fractional times, items shorter than
// the shift (the fallback) and moves that do not fit.
func TestMoveAllMatchesMoves(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 3))
	steps := func(p *Profile) string {
		checkSlack(t, p)
		return fmt.Sprint(canonical(p))
	}
	fails, directOK, directFail := 0, 0, 0
	for it := 0; it < 3000; it++ {
		p, _ := randomProfile(rng, 10+rng.IntN(150))
		scale := 1.0
		if it%3 == 0 {
			scale = math.Pi / 3
		}
		from := float64(100+rng.IntN(1900)) * scale
		g := 1 + rng.IntN(6)
		items := make([]Item, 0, g)
		for range g {
			it := Item{D: float64(1+rng.IntN(150)) * scale, K: 1 + rng.IntN(4)}
			if rng.IntN(3) == 0 && len(items) > 0 {
				it.D = items[0].D // equal ends
			}
			if p.Reserve(from, from+it.D, it.K) == nil {
				items = append(items, it)
			}
		}
		if len(items) == 0 {
			continue
		}
		to := from - float64(1+rng.IntN(40))*scale
		if it%5 == 0 {
			to = max(0, from-float64(rng.IntN(300))*scale)
		}
		q := &Profile{capacity: p.capacity, times: append([]float64(nil), p.times...), free: append([]int(nil), p.free...)}
		before := steps(p)
		direct := len(items) > 1
		for _, x := range items {
			direct = direct && x.D >= from-to
		}
		err := p.MoveAll(from, to, items)
		var want error
		for _, x := range items {
			if want = q.Move(from, to, x.D, x.K); want != nil {
				break
			}
		}
		if (err == nil) != (want == nil) {
			t.Fatalf("it %d: MoveAll(%v, %v, %v) = %v, Moves %v", it, from, to, items, err, want)
		}
		if err != nil {
			fails++
			if direct {
				directFail++
			}
			if direct && steps(p) != before {
				t.Fatalf("it %d: failed MoveAll changed the profile", it)
			}
			continue
		}
		if direct {
			directOK++
		}
		if got := steps(p); got != steps(q) {
			t.Fatalf("it %d: MoveAll(%v, %v, %v) gives\n%v\nMoves give\n%v", it, from, to, items, got, steps(q))
		}
		// the block summaries follow the edit
		if k := 1 + rng.IntN(8); true {
			d := float64(1+rng.IntN(100)) * scale
			a, _ := p.EarliestFit(k, d, 0)
			b, _ := q.EarliestFit(k, d, 0)
			if a != b {
				t.Fatalf("it %d: EarliestFit after MoveAll %v, after Moves %v", it, a, b)
			}
		}
	}
	if fails == 0 || directOK == 0 || directFail == 0 {
		t.Fatalf("MoveAll tried %d times in one pass, %d of them not fitting (%d failures in all): too few", directOK, directFail, fails)
	}
}

// TestIndexNearMatchesIndex checks the galloping look-up against the
// binary search from every starting hint (before, inside and past the
// steps, as an edit can leave it), for times on, between and around the
// breakpoints.
func TestIndexNearMatchesIndex(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for trial := range 50 {
		p := New(16, 0)
		for range rng.IntN(40) {
			a := float64(rng.IntN(200))
			_ = p.Reserve(a, a+1+float64(rng.IntN(30)), 1+rng.IntN(4))
		}
		n := p.Len()
		for hint := -2; hint <= n+2; hint++ {
			for _, q := range []float64{-1, 0, 0.5, 1, 7.25, 63, 199.5, 230, 1e9} {
				p.hint = hint
				if got, want := p.indexNear(q), p.index(q); got != want {
					t.Fatalf("trial %d, %d steps, hint %d: indexNear(%v) = %d, index = %d", trial, n, hint, q, got, want)
				}
			}
			for i := range n {
				ti, _ := p.Step(i)
				p.hint = hint
				if got := p.indexNear(ti); got != i {
					t.Fatalf("trial %d, hint %d: indexNear(step %d's start %v) = %d", trial, hint, i, ti, got)
				}
			}
		}
	}
}

// canonical returns the steps of p with the redundant ones (the count of
// the step before) left out: the step function itself.
func canonical(p *Profile) [][2]float64 {
	var s [][2]float64
	for i := range p.Len() {
		t, f := p.Step(i)
		if len(s) > 0 && s[len(s)-1][1] == float64(f) {
			continue
		}
		s = append(s, [2]float64{t, float64(f)})
	}
	return s
}

// checkSlack checks that the breakpoints increase strictly and that pads
// bounds the redundant steps from above.
func checkSlack(t *testing.T, p *Profile) {
	t.Helper()
	red := 0
	for i := 1; i < p.Len(); i++ {
		a, fa := p.Step(i - 1)
		b, fb := p.Step(i)
		if !(a < b) {
			t.Fatalf("steps %d and %d start at %v and %v", i-1, i, a, b)
		}
		if fa == fb {
			red++
		}
	}
	if red > p.pads {
		t.Fatalf("%d redundant steps, pads %d", red, p.pads)
	}
	// the block summaries taken as valid (before clean) are
	for b := 0; b < p.clean; b++ {
		lo, hi := b<<blkShift, min((b+1)<<blkShift, len(p.free))
		if lo >= hi {
			t.Fatalf("block %d of %d steps taken as valid", b, len(p.free))
		}
		mn, mx := slices.Min(p.free[lo:hi]), slices.Max(p.free[lo:hi])
		if p.bmin[b] != mn || p.bmax[b] != mx {
			t.Fatalf("block %d: summary %d..%d, steps %d..%d", b, p.bmin[b], p.bmax[b], mn, mx)
		}
	}
}

// TestMovesKeepSlack moves reservations of long random profiles earlier
// as a compression does, many times over, and checks after every move
// that the profile (which keeps redundant steps to spare shifts) is the
// same step function as a copy edited by Release and Reserve only, that
// the searches agree on both, and that redundant steps were kept, reused
// and compacted along the way.
func TestMovesKeepSlack(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 4))
	sawRedundant, sawCompact := false, false // sawCompact: a recount or a compaction
	for it := 0; it < 30; it++ {
		p, rs := randomProfile(rng, 300+rng.IntN(400))
		if it%2 == 0 {
			p.slackFrom = 0 // spare every shift, not only the long ones
		}
		q := &Profile{capacity: p.capacity, times: append([]float64(nil), p.times...), free: append([]int(nil), p.free...), slackFrom: math.MaxInt}
		for mv := 0; mv < 400; mv++ {
			x := rng.IntN(len(rs))
			own := rs[x]
			k, d := int(own[2]), own[1]-own[0]
			after := float64(rng.IntN(int(own[0]) + 1))
			got, ok := p.EarliestFitBefore(k, d, after, own[0])
			want, wok := q.EarliestFitBefore(k, d, after, own[0])
			if got != want || ok != wok {
				t.Fatalf("it %d mv %d: EarliestFitBefore = %v, %v; on the canonical copy %v, %v", it, mv, got, ok, want, wok)
			}
			// from a step start at or before the earliest fit from the
			// origin (which a redundant step may make later than where
			// the count last changed), as a compression searches
			o := p.Origin()
			if w, _ := q.EarliestFit(k, d, o); w < own[0] {
				tt := o + rng.Float64()*(w-o)
				stop := own[0] - rng.Float64()*(own[0]-o)/4
				g1, ok1 := p.EarliestFitBeforeStopStep(k, d, tt, own[0], stop)
				g2, ok2 := q.EarliestFitBeforeStop(k, d, o, own[0], stop)
				if g1 != g2 || ok1 != ok2 {
					t.Fatalf("it %d mv %d: EarliestFitBeforeStopStep(%v) = %v, %v; from the origin on the canonical copy %v, %v", it, mv, tt, g1, ok1, g2, ok2)
				}
			}
			if !ok {
				continue
			}
			before := p.pads
			if err := p.Move(own[0], got, d, k); err != nil {
				t.Fatalf("it %d mv %d: %v", it, mv, err)
			}
			if before-p.pads > 4 {
				// a move reuses at most 4 redundant steps (2 per edit):
				// only a recount or a compaction drops more
				sawCompact = true
			}
			if red := p.Len() - len(canonical(p)); red > slackMax(p.Len())+4 {
				t.Fatalf("it %d mv %d: %d redundant steps in %d, over the bound %d", it, mv, red, p.Len(), slackMax(p.Len()))
			}
			if err := q.Release(own[0], own[1], k); err != nil {
				t.Fatal(err)
			}
			if err := q.Reserve(got, got+d, k); err != nil {
				t.Fatal(err)
			}
			rs[x] = [3]float64{got, got + d, own[2]}
			checkSlack(t, p)
			if p.Len() != len(canonical(p)) {
				sawRedundant = true
			}
			if a, b := fmt.Sprint(canonical(p)), fmt.Sprint(canonical(q)); a != b {
				t.Fatalf("it %d mv %d: Move(%v, %v, %v, %d) gives\n%v\nRelease+Reserve give\n%v", it, mv, own[0], got, d, k, a, b)
			}
			if mv%100 == 99 {
				a := float64(rng.IntN(30))
				p.Advance(a)
				q.Advance(a)
			}
		}
	}
	if !sawRedundant || !sawCompact {
		t.Fatalf("redundant steps kept: %v, compacted: %v", sawRedundant, sawCompact)
	}
}

// TestCut cuts random intervals out of long random profiles (some with
// redundant steps left by moves) and checks the result against the old
// step function read before and after the cut, at every old breakpoint and
// around the cut, and that the slices stay well formed.
func TestCut(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 9))
	for it := 0; it < 300; it++ {
		p, rs := randomProfile(rng, 20+rng.IntN(400))
		if it%3 == 0 {
			// moves leave redundant steps in a long profile
			p.slackFrom = 0
			for range 50 {
				own := rs[rng.IntN(len(rs))]
				k, d := int(own[2]), own[1]-own[0]
				if w, ok := p.EarliestFitBefore(k, d, 0, own[0]); ok {
					if err := p.Move(own[0], w, d, k); err != nil {
						t.Fatal(err)
					}
					for x := range rs {
						if rs[x] == own {
							rs[x] = [3]float64{w, w + d, own[2]}
							break
						}
					}
				}
			}
		}
		if it%4 == 1 {
			p.Advance(float64(rng.IntN(200)))
		}
		old := &Profile{capacity: p.capacity, times: append([]float64(nil), p.times...), free: append([]int(nil), p.free...)}
		o := p.Origin()
		var at, d float64
		switch it % 5 {
		case 0: // at a breakpoint, to a breakpoint
			at, _ = old.Step(rng.IntN(old.Len()))
			e, _ := old.Step(rng.IntN(old.Len()))
			d = max(e-at, 1)
		case 1: // past the last breakpoint
			at, _ = old.Step(old.Len() - 1)
			at += float64(rng.IntN(5))
			d = float64(1 + rng.IntN(50))
		case 2: // at the origin
			at, d = o, float64(1+rng.IntN(300))
		default:
			at, d = o+float64(rng.IntN(2100)), float64(1+rng.IntN(300))
		}
		if err := p.Cut(at, d); err != nil {
			t.Fatalf("it %d: Cut(%v, %v): %v", it, at, d, err)
		}
		checkSlack(t, p)
		probes := []float64{o, at - 1, at, at + 0.5, at + d, at + d + 1, 1e9}
		for i := range old.Len() {
			u, _ := old.Step(i)
			probes = append(probes, u, u-0.5, u-d, u-d-0.5, u-d+0.5)
		}
		for _, u := range probes {
			if u < o {
				continue
			}
			want := old.Free(u)
			if u >= at {
				want = old.Free(u + d)
			}
			if got := p.Free(u); got != want {
				t.Fatalf("it %d: after Cut(%v, %v) %d free at %v, want %d\nbefore %v\nafter  %v",
					it, at, d, got, u, want, canonical(old), canonical(p))
			}
		}
		if red := p.Len() - len(canonical(p)); red > p.pads {
			t.Fatalf("it %d: %d redundant steps, pads %d", it, red, p.pads)
		}
	}
	p := New(4, 10)
	for _, c := range [][2]float64{{10, 0}, {10, -1}, {9, 1}, {math.Inf(1), 1}, {10, math.Inf(1)}, {10, math.NaN()}, {math.NaN(), 1}} {
		if err := p.Cut(c[0], c[1]); err == nil {
			t.Errorf("Cut(%v, %v) took it", c[0], c[1])
		}
	}
	if p.Len() != 1 || p.Origin() != 10 {
		t.Errorf("a refused cut changed the profile: %v", canonical(p))
	}
}
