// Package models builds the registry of every model of the farm: the one
// list that the binary, and tests that need every model, share.
package models

import (
	"schedfarm/simcore"
	"schedfarm/simcore/batch"
	"schedfarm/simcore/bench"
	"schedfarm/simcore/divisible"
	"schedfarm/simcore/dssp"
	"schedfarm/simcore/ptg"
	"schedfarm/simcore/stretch"
)

// All returns a registry of every built-in model; those that read input
// files (traces, PTG files, night files) open them from data.
func All(data simcore.DataDir) *simcore.Registry {
	reg, err := simcore.NewRegistry(bench.New(), divisible.New(), batch.New(data), dssp.New(data), ptg.New(data), stretch.New(data))
	if err != nil {
		panic(err) // two models with one name: a build mistake
	}
	return reg
}
