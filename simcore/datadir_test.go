package simcore_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"schedfarm/simcore"
)

// TestDirsOpenRegularOnly: a FIFO or a link to /dev/zero in a data
// directory is refused by its kind, without blocking or reading it; a
// regular file, through a link too, opens; a missing one is not found.
func TestDirsOpenRegularOnly(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "traces", "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "traces", "fifo.swf"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(dir, "traces", "zero.swf")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "traces", "ok.swf"), []byte("1 0 0 1 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("ok.swf", filepath.Join(dir, "traces", "link.swf")); err != nil {
		t.Fatal(err)
	}
	d := simcore.Dirs{dir}
	for name, want := range map[string]string{
		"traces/fifo.swf": "not a regular file (a named pipe)",
		"traces/zero.swf": "not a regular file (a device)",
		"traces/sub":      "not a regular file (a folder)",
	} {
		r, err := d.Open(name)
		if err == nil {
			r.Close()
		}
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: %v, want %q", name, err, want)
		}
	}
	for _, name := range []string{"traces/ok.swf", "traces/link.swf"} {
		r, err := d.Open(name)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		r.Close()
	}
	if _, err := d.Open("traces/none.swf"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing file: %v, want fs.ErrNotExist", err)
	}
}
