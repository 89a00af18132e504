package decl

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"schedfarm/simcore"
	"schedfarm/sweep"
)

// ConfigLayout names the folders a configs/ tree may hold: a folder per
// paper, whose claim register (CLAIMS.md) quotes the paper for every
// claim of its sweep files, and folders of other files (goldens,
// published tables, bench sweeps) that declare no claims.
type ConfigLayout struct {
	// Papers are the paper keys (lin2007, …): each has its folder.
	Papers []string
	// Other are the folders without claims (bench, golden, published).
	Other []string
}

// Check checks the folders of configs (a configs/ tree) against the
// layout: every folder whose sweep files declare claims, or that holds a
// CLAIMS.md, keeps a claim register that covers its claims (Register.Check),
// and there is one such folder per paper. The error is a sweep.ErrorList
// of every problem, each naming its file (under configs) and line.
func (l ConfigLayout) Check(configs string, models *simcore.Registry) error {
	dirs, err := os.ReadDir(configs)
	if err != nil {
		return err
	}
	var errs sweep.ErrorList
	add := func(err error) {
		var list sweep.ErrorList
		if errors.As(err, &list) {
			errs = append(errs, list...)
		} else {
			errs = append(errs, &sweep.Error{File: configs, Msg: err.Error()})
		}
	}
	papers := 0
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		dir := filepath.Join(configs, d.Name())
		claims, err := FolderClaims(dir, models)
		if err != nil {
			add(err)
			continue
		}
		file := filepath.Join(dir, "CLAIMS.md")
		text, readErr := os.ReadFile(file)
		if len(claims) == 0 && errors.Is(readErr, os.ErrNotExist) {
			continue // not a paper's folder (bench, golden, published)
		}
		papers++
		if readErr != nil {
			errs = append(errs, &sweep.Error{File: dir, Msg: fmt.Sprintf("%d claims and no claim register: %v", len(claims), readErr)})
			continue
		}
		reg, err := ParseRegister(strings.NewReader(string(text)), file)
		if err != nil {
			add(err)
			continue
		}
		if err := reg.Check(claims); err != nil {
			add(err)
		}
	}
	if papers != len(l.Papers) {
		errs = append(errs, &sweep.Error{File: configs, Msg: fmt.Sprintf("%d paper folders, want the %d papers'", papers, len(l.Papers))})
	}
	if len(errs) > 0 {
		return errs
	}
	return nil
}
