package sweep

import (
	"crypto/sha256"
	"encoding/binary"
	"strconv"
	"strings"

	"github.com/google/uuid"

	"schedfarm/simcore"
)

// Job is one simulation: a model at one point of a sweep, one replicate.
type Job struct {
	// ID identifies the job across submissions: a name-based (SHA-1) UUID
	// over the canonical encoding of (model, model version, parameters,
	// replicate, instance seed). Resubmitting a sweep maps to the same IDs;
	// two sweeps that differ only in their master seed run different
	// instances, so their jobs differ too.
	ID uuid.UUID `json:"id"`
	// Index is the job's position in its sweep's expansion order.
	Index int `json:"index"`
	// Sweep is the name of the sweep the job belongs to.
	Sweep        string `json:"sweep"`
	Model        string `json:"model"`
	ModelVersion string `json:"model_version"`
	// Params is complete: every parameter of the model's schema, defaults
	// filled in, derived parameters computed. The jobs Expand returns for
	// the replicates of one point share this map: treat it as read-only
	// (copy it with maps.Clone to change a job's parameters).
	Params    simcore.Params `json:"params"`
	Replicate int            `json:"replicate"`
	// Point is the job's point: its ordinal in the sweep's walk over the
	// axes (excluded points count too), the same for every replicate of
	// the point. Rounds of adaptive replicates name points by it. It is
	// not sent over the wire.
	Point int `json:"-"`
	// Seed is the instance seed: derived from the master seed, the replicate
	// and the workload parameters only (see InstanceSeed).
	Seed uint64 `json:"seed"`
}

// jobNamespace is the UUID namespace of job IDs. It must never change: it
// makes the IDs of resubmitted sweeps match earlier runs.
var jobNamespace = uuid.MustParse("6f1c1e4a-3c55-4b8e-9d1e-5c7a2b9e0d42")

// JobID returns the job ID of (model, version, params, replicate, seed).
func JobID(model, version string, params simcore.Params, replicate int, seed uint64) uuid.UUID {
	return jobIDCanonical(model, version, params.Canonical(nil), replicate, seed)
}

// jobIDCanonical is JobID over an already computed params.Canonical(nil):
// expansion encodes each point once and reuses it for every replicate.
func jobIDCanonical(model, version, canonical string, replicate int, seed uint64) uuid.UUID {
	var b strings.Builder
	b.Grow(len(model) + len(version) + len(canonical) + 72)
	b.WriteString("model=")
	b.WriteString(strconv.Quote(model))
	b.WriteString(";version=")
	b.WriteString(strconv.Quote(version))
	b.WriteString(";replicate=")
	b.WriteString(strconv.Itoa(replicate))
	b.WriteString(";seed=")
	b.WriteString(strconv.FormatUint(seed, 10))
	b.WriteString(";params{")
	b.WriteString(canonical)
	b.WriteString("}")
	return uuid.NewSHA1(jobNamespace, []byte(b.String()))
}

// InstanceSeed derives the seed of one instance from the sweep's master seed,
// the replicate number and the values of the workload parameters (those the
// schema does not mark Algorithm). Every algorithm at one point therefore
// schedules the identical instance (common random numbers), and adding an
// algorithm to a sweep changes no other job's seed.
func InstanceSeed(master uint64, replicate int, schema *simcore.Schema, params simcore.Params) uint64 {
	return instanceSeedCanonical(master, replicate, params.Canonical(schema.WorkloadParams()))
}

// instanceSeedCanonical is InstanceSeed over an already computed
// params.Canonical(schema.WorkloadParams()).
func instanceSeedCanonical(master uint64, replicate int, workload string) uint64 {
	h := sha256.New()
	var buf [16]byte
	binary.BigEndian.PutUint64(buf[:8], master)
	binary.BigEndian.PutUint64(buf[8:], uint64(replicate))
	h.Write(buf[:])
	h.Write([]byte(workload))
	sum := h.Sum(nil)
	return binary.BigEndian.Uint64(sum[:8])
}
