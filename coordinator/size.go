package coordinator

import (
	"encoding/json"
	"fmt"
)

// Sizes reserved in a run record beyond the submission itself: its other
// fields, and one packing choice (with its reason) per sweep, stored once
// the packing is decided.
const (
	recordOverhead  = 1024
	packingPerSweep = 512
	kib             = 1024
	mib             = 1024 * kib
)

// PayloadError is a sweep too large for the NATS server's message size
// limit (max_payload): the submission, which carries the sweep's text (a
// suite's bundle), and the run record the coordinator stores, which
// carries it too, must each fit in one message.
type PayloadError struct {
	File string
	// TextBytes is the size of the sweep's text (with the files a suite
	// includes); Need the largest message its submission takes.
	TextBytes, Need int
	// Limit is the server's max_payload.
	Limit int64
	// Embedded: the limit is that of the embedded server of `schedfarm
	// run`, which cannot be raised.
	Embedded bool
}

func (e *PayloadError) Error() string {
	server := "the NATS server's"
	if e.Embedded {
		server = "the embedded NATS server's"
	}
	msg := fmt.Sprintf("sweep %s is too large to submit: its text (with any files it includes) is %s, and submitted it takes messages of up to %s (JSON-escaped, with its run record), over %s max_payload of %s",
		e.File, bytesText(int64(e.TextBytes)), bytesText(int64(e.Need)), server, bytesText(e.Limit))
	if e.Embedded {
		return msg + ": split the sweep into several files and run each (or run it on a cluster whose NATS server has a larger max_payload)"
	}
	return msg + ": split the sweep into several files and submit each, or raise the server's max_payload (e.g. `max_payload: 16MB` in the config file of nats-server or of `schedfarm server --nats-config`; `schedfarm server` allows 8 MiB by default)"
}

// CheckSubmitSize returns a *PayloadError if a submission of req, a file
// of the given number of sweeps, would not fit in messages of limit bytes
// (the server's max_payload: broker.Farm.NC.MaxPayload()): neither the
// request nor the run record may exceed it, and the record also gets the
// run's packing choices, one per sweep, once they are decided. A limit of
// zero or less is not checked.
func CheckSubmitSize(req SubmitRequest, sweeps int, limit int64) error {
	if limit <= 0 {
		return nil
	}
	if req.Run == "" {
		req.Run = NewRunID() // the record carries one
	}
	data, err := json.Marshal(req)
	if err != nil {
		return err
	}
	need := len(data) + recordOverhead + max(sweeps, 1)*packingPerSweep
	if int64(need) <= limit {
		return nil
	}
	return &PayloadError{File: req.File, TextBytes: len(req.Text), Need: need, Limit: limit}
}

// bytesText writes a size in bytes with its binary unit.
func bytesText(n int64) string {
	switch {
	case n >= mib:
		return fmt.Sprintf("%.1f MiB (%d bytes)", float64(n)/mib, n)
	case n >= kib:
		return fmt.Sprintf("%.1f KiB (%d bytes)", float64(n)/kib, n)
	}
	return fmt.Sprintf("%d bytes", n)
}
