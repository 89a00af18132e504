package stretch

import (
	"math/rand/v2"
	"testing"

	"schedfarm/simcore/profile"
)

// sameProfile fails unless p and q hold the same steps (after merging, as
// simcore/profile keeps them).
func sameProfile(t *testing.T, what string, p *moldProfile, q *profile.Profile) {
	t.Helper()
	if len(p.times) != q.Len() {
		t.Fatalf("%s: %d steps, simcore/profile %d", what, len(p.times), q.Len())
	}
	for i := range p.times {
		if at, f := q.Step(i); at != p.times[i] || f != p.free[i] {
			t.Fatalf("%s: step %d (%v, %d), simcore/profile (%v, %d)", what, i, p.times[i], p.free[i], at, f)
		}
	}
}

// moldProfile against simcore/profile on random operation sequences with
// integer times (so breakpoints coincide often): the same answers from
// every query and the same steps after every change.
func TestMoldProfileMatchesProfile(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 6))
	for trial := range 300 {
		P := 1 + r.IntN(16)
		origin := float64(r.IntN(10))
		var ends []runEntry
		used := 0
		for used < P && r.IntN(4) > 0 {
			k := 1 + r.IntN(P-used)
			used += k
			ends = append(ends, runEntry{end: origin + float64(1+r.IntN(20)), node: k})
		}
		st := &moldState{P: P, running: ends}
		st.prepare(origin)
		var p moldProfile
		p.reset(P, origin, st.ends)
		q := profile.New(P, origin)
		for _, e := range ends {
			if err := q.Reserve(origin, e.end, e.node); err != nil {
				t.Fatal(err)
			}
		}
		sameProfile(t, "reset", &p, q)
		now := origin
		for op := range 150 {
			k := 1 + r.IntN(P)
			d := float64(1 + r.IntN(15))
			after := now + float64(r.IntN(3))
			want, _ := q.EarliestFit(k, d, after)
			if got := p.earliestFit(k, d, after); got != want {
				t.Fatalf("trial %d op %d: earliestFit(%d, %v, %v) = %v, want %v", trial, op, k, d, after, got, want)
			}
			if got, want := p.fitsAt(k, d, after), q.FitsAt(k, d, after); got != want {
				t.Fatalf("trial %d op %d: fitsAt = %v, want %v", trial, op, got, want)
			}
			D := after + float64(r.IntN(30))
			x, ok := p.earliestFitBy(k, d, after, D)
			if ok != (want+d <= D) || ok && x != want {
				t.Fatalf("trial %d op %d: earliestFitBy(%d, %v, %v, %v) = %v, %v; fit %v", trial, op, k, d, after, D, x, ok, want)
			}
			switch r.IntN(4) {
			case 0: // fitPlace
				if got := p.fitPlace(k, d, after); got != want {
					t.Fatalf("trial %d op %d: fitPlace = %v, want %v", trial, op, got, want)
				}
				if err := q.Reserve(want, want+d, k); err != nil {
					t.Fatal(err)
				}
			case 1: // fitByPlace
				x, ok := p.fitByPlace(k, d, after, D)
				if ok != (want+d <= D) || ok && x != want {
					t.Fatalf("trial %d op %d: fitByPlace = %v, %v; fit %v by %v", trial, op, x, ok, want, D)
				}
				if ok {
					if err := q.Reserve(want, want+d, k); err != nil {
						t.Fatal(err)
					}
				}
			case 2: // reserve at the fit
				p.reserve(want, want+d, k)
				if err := q.Reserve(want, want+d, k); err != nil {
					t.Fatal(err)
				}
			default: // advance
				now += float64(r.IntN(4))
				p.advance(now)
				q.Advance(now)
			}
			sameProfile(t, "after op", &p, q)
			if f := p.Free(after); f != q.Free(after) {
				t.Fatalf("Free(%v) = %d, want %d", after, f, q.Free(after))
			}
		}
	}
}
