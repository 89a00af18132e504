package main

import (
	"context"
	"os/exec"
	"strings"
	"sync"
	"time"

	"schedfarm/results"
)

// version is schedfarm's release version, recorded in every Parquet file
// when the build info carries none (a `go run` or a development build).
const version = "0.1.0-dev"

// provenanceOnce computes the build's provenance once per process.
type provenanceOnce struct {
	once sync.Once
	p    results.Provenance
}

// provenance returns what identifies this build: the Go build info, and
// where it lacks the VCS fields (`go run`, -buildvcs=false) the revision of
// the git checkout the command runs in, if any.
func (a *app) provenance() results.Provenance {
	a.prov.once.Do(func() {
		p := results.BuildProvenance()
		if p.Version == results.Unknown {
			p.Version = version
		}
		if p.VCSRevision == results.Unknown {
			if rev, ok := git("rev-parse", "HEAD"); ok {
				p.VCSRevision = rev
				if st, ok := git("status", "--porcelain", "--untracked-files=no"); ok {
					p.VCSModified = "false"
					if st != "" {
						p.VCSModified = "true"
					}
				}
			}
		}
		a.prov.p = p
	})
	return a.prov.p
}

func git(args ...string) (string, bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "git", args...).Output()
	if err != nil {
		return "", false
	}
	return strings.TrimSpace(string(out)), true
}
