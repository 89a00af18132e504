//go:build !linux

package coordinator

// selfProcess returns nothing where there is no Linux /proc: a holder of
// the lease is then never known dead, and its lease expires one TTL after
// its last renewal.
func selfProcess() (boot, pidNS string, start uint64) { return "", "", 0 }

// processGone is never called without selfProcess's identity.
func processGone(int, uint64) (bool, string) { return false, "" }
