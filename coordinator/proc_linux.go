package coordinator

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// selfProcess returns what tells this process apart from any other,
// past or future, on this machine: the kernel's boot ID, this process's
// PID namespace and its start time in clock ticks since boot (Linux's
// /proc). Empty when /proc does not say.
func selfProcess() (boot, pidNS string, start uint64) {
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return "", "", 0
	}
	ns, err := os.Readlink("/proc/self/ns/pid")
	if err != nil {
		return "", "", 0
	}
	start, _, err = procStat(os.Getpid())
	if err != nil {
		return "", "", 0
	}
	return strings.TrimSpace(string(b)), ns, start
}

// processGone reports whether the process pid of this PID namespace, which
// started at start (clock ticks since boot), has ended: no process has that
// PID, or the one that has it started at another time (the PID was
// reused), or it is a zombie. A process this one may not look at (another
// user's, or /proc mounted with hidepid) counts as alive when signal 0
// says it exists.
func processGone(pid int, start uint64) (bool, string) {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return true, fmt.Sprintf("no process %d", pid)
	}
	got, state, err := procStat(pid)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		// Gone between the two looks, or hidden (hidepid): signal 0 again.
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			return true, fmt.Sprintf("no process %d", pid)
		}
		return false, ""
	case err != nil:
		return false, ""
	case got != start:
		return true, fmt.Sprintf("process %d started after the holder (its PID reused)", pid)
	case state == 'Z' || state == 'X':
		return true, fmt.Sprintf("process %d has exited (state %c)", pid, state)
	}
	return false, ""
}

// procStat returns the start time (clock ticks since boot) and state of
// process pid from /proc/<pid>/stat, whose second field, the command name
// in parentheses, may itself hold spaces and parentheses: the fields are
// counted from the last ')'.
func procStat(pid int) (start uint64, state byte, err error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, err
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0, fmt.Errorf("/proc/%d/stat: no command name", pid)
	}
	// After the name: field 3 (state) onwards; the start time is field 22.
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 || len(f[0]) != 1 {
		return 0, 0, fmt.Errorf("/proc/%d/stat: %d fields after the command name", pid, len(f))
	}
	start, err = strconv.ParseUint(f[19], 10, 64)
	if err != nil {
		return 0, 0, fmt.Errorf("/proc/%d/stat: start time: %w", pid, err)
	}
	return start, f[0][0], nil
}
