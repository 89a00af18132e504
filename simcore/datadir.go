package simcore

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Dirs is a DataDir that looks a name up in each directory in turn and opens
// the first match (the farm's default is DefaultDataDirs).
type Dirs []string

// DataDirName is the name of the data directory: "data" relative to the
// working directory, and the folder of the same name in the user's cache.
const DataDirName = "data"

// DefaultDataDirs is the farm's default data-directory list: "data"
// relative to the working directory, then schedfarm/data in the user's
// cache directory ($XDG_CACHE_HOME, else ~/.cache on Linux; the OS's cache
// folder elsewhere), when the OS has one.
func DefaultDataDirs() Dirs {
	d := Dirs{DataDirName}
	if cache, err := os.UserCacheDir(); err == nil && cache != "" {
		d = append(d, filepath.Join(cache, "schedfarm", DataDirName))
	}
	return d
}

// Open opens name from the first directory that has it. Absolute names and
// names that climb out of the directory ("..") are refused so that a sweep
// file cannot read arbitrary files on a worker; so is a name that is not a
// regular file there (a folder, a FIFO, a device), by its kind, before it
// is opened.
func (d Dirs) Open(name string) (io.ReadCloser, error) {
	clean := filepath.Clean(filepath.FromSlash(name))
	if name == "" || clean == "." || filepath.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) {
		return nil, fmt.Errorf("data file %q: must be a file path relative to the data directory", name)
	}
	for _, dir := range d {
		// Regular files only: a FIFO or a link to /dev/zero would block
		// or flood the model (OpenRegular).
		f, err := OpenRegular(filepath.Join(dir, clean))
		if err == nil {
			return f, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("data file %q: %w", name, err)
		}
	}
	return nil, fmt.Errorf("data file %q not found in %s: %w", name, strings.Join(d, ", "), fs.ErrNotExist)
}
