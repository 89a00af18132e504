//go:build !unix

package sweep

const syscallNonblock = 0
