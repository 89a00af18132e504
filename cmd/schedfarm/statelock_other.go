//go:build !unix

package main

import (
	"fmt"
	"os"
)

// lockStateDir on systems without flock: the directory is only created;
// keep one `schedfarm run` per state dir by hand there.
func lockStateDir(dir string) (unlock func(), err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("state dir: %w", err)
	}
	return func() {}, nil
}
