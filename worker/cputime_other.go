//go:build !linux

package worker

import "time"

// threadCPU reports no thread CPU clock on this OS: cpu_ms is null.
func threadCPU() (time.Duration, bool) { return 0, false }
