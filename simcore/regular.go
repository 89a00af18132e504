package simcore

import (
	"fmt"
	"io/fs"
	"os"
)

// OpenRegular opens a regular file for reading; following links, as
// os.Open does. A FIFO, a device (/dev/zero), a socket or a folder is
// refused by its kind before it is opened, and the file is opened without
// blocking (O_NONBLOCK) and checked again, so a FIFO swapped in between
// neither blocks the open nor a read: a path given by mistake or by an
// attacker cannot hang or flood its reader. Its errors wrap the os
// package's (fs.ErrNotExist for a missing file).
func OpenRegular(path string) (*os.File, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file (%s)", path, KindOf(st.Mode()))
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscallNonblock, 0)
	if err != nil {
		return nil, err
	}
	if st, err = f.Stat(); err != nil || !st.Mode().IsRegular() {
		f.Close()
		if err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("%s: not a regular file (%s)", path, KindOf(st.Mode()))
	}
	return f, nil
}

// KindOf names a file mode's kind for an error: "a folder", "a named
// pipe", "a device", "a socket", else the mode's type.
func KindOf(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeDevice != 0, m&fs.ModeCharDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return m.Type().String()
}
