package stretch

import (
	"fmt"

	"schedfarm/simcore/profile"
)

// The moldable planners' use of simcore/profile: the profile is rebuilt
// from the running tasks at every check (profile.Rebuild, no allocation
// once grown), and a reservation that does not fit is a bug (every caller
// reserves only what a query said fits), so it panics.

// resetProfile makes p the staircase of the running tasks' ends (sorted
// by end, all ending after origin): free rises at each distinct end time.
func resetProfile(p *profile.Profile, capacity int, origin float64, ends []runEntry) {
	if err := p.Rebuild(capacity, origin, len(ends), func(i int) (float64, int) { return ends[i].end, ends[i].node }); err != nil {
		panic(fmt.Sprintf("stretch: %v", err))
	}
}

// mustReserve is p.Reserve that panics when the reservation does not fit.
func mustReserve(p *profile.Profile, start, end float64, k int) {
	if err := p.Reserve(start, end, k); err != nil {
		panic(fmt.Sprintf("stretch: %v", err))
	}
}

// mustPlace is p.Place that panics when there is no fit.
func mustPlace(p *profile.Profile, k int, d, after float64) float64 {
	t, err := p.Place(k, d, after)
	if err != nil {
		panic(fmt.Sprintf("stretch: %v", err))
	}
	return t
}
