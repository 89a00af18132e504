//go:build unix

package simcore

import "syscall"

// syscallNonblock opens without blocking on a FIFO swapped in after Stat.
const syscallNonblock = syscall.O_NONBLOCK
