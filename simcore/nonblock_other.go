//go:build !unix

package simcore

// syscallNonblock is 0 where there is no O_NONBLOCK (nor FIFO to fear).
const syscallNonblock = 0
