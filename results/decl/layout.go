package decl

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"schedfarm/simcore"
	"schedfarm/sweep"
)

// ConfigLayout names the folders a configs/ tree may hold: a folder per
// paper, whose claim register (CLAIMS.md) quotes the paper for every
// claim of its sweep files; the studies, configs/studies/<name>/, whose
// registers name a source instead (StudyRegister); and folders of other
// files (goldens, published tables, bench sweeps) that declare no claims.
type ConfigLayout struct {
	// Papers are the paper keys (lin2007, …): each has its folder.
	Papers []string
	// Other are the folders without claims (bench, golden, published).
	Other []string
}

// Check checks the folders of configs (a configs/ tree) against the
// layout: every paper has its folder, and each paper's folder and each
// study's keeps a claim register of its kind (FolderKind) that covers the
// claims of its sweep files (Register.Check); a study is a folder of
// configs/studies/ with claims; the other folders declare no claims; any
// other folder is an error that says where a study goes. Files directly
// under configs (suites, the smoke sweep) are not checked. The error is a
// sweep.ErrorList of every problem, each naming its file (under configs)
// and line.
func (l ConfigLayout) Check(configs string, models *simcore.Registry) error {
	dirs, err := os.ReadDir(configs)
	if err != nil {
		return err
	}
	var errs sweep.ErrorList
	seen := map[string]bool{}
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		name, dir := d.Name(), filepath.Join(configs, d.Name())
		seen[name] = true
		switch {
		case slices.Contains(l.Papers, name):
			errs = append(errs, checkRegisterFolder(dir, models)...)
		case name == StudiesDir:
			errs = append(errs, checkStudies(dir, models)...)
		case slices.Contains(l.Other, name):
			claims, err := FolderClaims(dir, models)
			errs = append(errs, asList(dir, err)...)
			_, regErr := os.Stat(filepath.Join(dir, "CLAIMS.md"))
			if len(claims) > 0 || regErr == nil {
				errs = append(errs, &sweep.Error{File: dir, Msg: fmt.Sprintf("a folder without claims holds %d claims or a CLAIMS.md", len(claims)),
					Hint: "claims go in a paper's folder, or in a study: configs/" + StudiesDir + "/<name>/ (" + StudyGuide + ")"})
			}
		default:
			known := append(append(slices.Clone(l.Papers), l.Other...), StudiesDir)
			hint := "a study (sweeps with claims that quote no paper) goes in configs/" + StudiesDir + "/" + name + "/ with a CLAIMS.md whose entries name their source (" + StudyGuide + ")"
			if dym := sweep.DidYouMean(name, known); dym != "" {
				hint = dym + " " + hint
			}
			errs = append(errs, &sweep.Error{File: dir, Msg: fmt.Sprintf("not a paper's folder (%s), nor %s/, nor one of the folders without claims (%s)",
				strings.Join(l.Papers, ", "), StudiesDir, strings.Join(l.Other, ", ")), Hint: hint})
		}
	}
	for _, p := range l.Papers {
		if !seen[p] {
			errs = append(errs, &sweep.Error{File: filepath.Join(configs, p), Msg: "the paper's folder is missing"})
		}
	}
	if len(errs) > 0 {
		return errs
	}
	return nil
}

// checkStudies checks configs/studies/: every entry is a study's folder
// (a README.md may stand beside them) with claims and their register.
func checkStudies(dir string, models *simcore.Registry) sweep.ErrorList {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return asList(dir, err)
	}
	var errs sweep.ErrorList
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		switch {
		case e.IsDir():
			errs = append(errs, checkRegisterFolder(p, models)...)
		case e.Name() != "README.md":
			errs = append(errs, &sweep.Error{File: p, Msg: "a file directly under " + StudiesDir + "/",
				Hint: "a study is a folder, configs/" + StudiesDir + "/<name>/, of its sweep files and its CLAIMS.md (" + StudyGuide + ")"})
		}
	}
	return errs
}

// checkRegisterFolder checks a paper's or a study's folder: it declares
// claims, and its CLAIMS.md, of the folder's kind, covers them.
func checkRegisterFolder(dir string, models *simcore.Registry) sweep.ErrorList {
	claims, err := FolderClaims(dir, models)
	if err != nil {
		return asList(dir, err)
	}
	kind := FolderKind(dir)
	what, guide := "the paper's folder", "list the paper's statements there, each with its quote"
	if kind == StudyRegister {
		what, guide = "a study", "state there what each claim checks, with its source ("+StudyGuide+")"
	}
	file := filepath.Join(dir, "CLAIMS.md")
	text, err := os.ReadFile(file)
	switch {
	case errors.Is(err, os.ErrNotExist) && len(claims) == 0:
		return sweep.ErrorList{{File: dir, Msg: what + " declares no claims and keeps no CLAIMS.md",
			Hint: "declare the claims its sweeps check and list them in a CLAIMS.md (" + StudyGuide + ")"}}
	case errors.Is(err, os.ErrNotExist):
		return sweep.ErrorList{{File: dir, Msg: fmt.Sprintf("%d claims and no claim register (CLAIMS.md)", len(claims)), Hint: guide}}
	case err != nil:
		return asList(dir, err)
	}
	reg, err := kind.Parse(strings.NewReader(string(text)), file)
	if err != nil {
		return asList(dir, err)
	}
	return asList(dir, reg.Check(claims))
}

// asList returns err as a sweep.ErrorList, a plain error as one about dir.
func asList(dir string, err error) sweep.ErrorList {
	if err == nil {
		return nil
	}
	var list sweep.ErrorList
	if errors.As(err, &list) {
		return list
	}
	return sweep.ErrorList{{File: dir, Msg: err.Error()}}
}
