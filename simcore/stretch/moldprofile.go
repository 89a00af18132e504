package stretch

import (
	"fmt"

	"schedfarm/simcore/profile"
)

// The moldable planners' use of simcore/profile: the profile is rebuilt
// from the running tasks at every check (profile.Rebuild and Rise, no
// allocation once grown), and a reservation that does not fit is a bug (every caller
// reserves only what a query said fits), so it panics.

// resetProfile makes p the staircase of the running tasks' ends (sorted
// by end, all ending after origin): free rises at each distinct end time.
func resetProfile(p *profile.Profile, capacity int, origin float64, ends []runEntry) {
	used := 0
	for _, r := range ends {
		used += r.node
	}
	err := p.Rebuild(capacity, origin, used)
	for k := 0; k < len(ends) && err == nil; {
		e, freed := ends[k].end, 0
		for ; k < len(ends) && ends[k].end == e; k++ {
			freed += ends[k].node
		}
		err = p.Rise(e, freed)
	}
	if err != nil {
		panic(fmt.Sprintf("stretch: running tasks: %v", err))
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
