package divisible

import "math"

// Cluster is the system model of Section 3 of the divisible-load paper
// (lin2007): a head node that sends data chunks one at a time to N
// identical processing nodes; transmitting x units of data takes x·Cms,
// computing them x·Cps.
type Cluster struct {
	N        int
	Cms, Cps float64
}

// Beta is β = Cps / (Cms + Cps).
// Eq. 8 of the divisible-load paper (lin2007).
func (c Cluster) Beta() float64 { return c.Cps / (c.Cms + c.Cps) }

// E is the execution time of a task of size sigma on n nodes that all start
// together under the optimal partitioning rule (OPR, all nodes finish
// together): E(σ, n) = σ(Cms + Cps)(1 − β)/(1 − βⁿ).
// Eq. 9 of the divisible-load paper (lin2007); docs/models/divisible.md A4 (the RTAS 2007
// paper's E, identical in rtgrid DivHomoSingle.computeCost).
func (c Cluster) E(sigma float64, n int) float64 {
	b := c.Beta()
	return sigma * (c.Cms + c.Cps) * (1 - b) / (1 - math.Pow(b, float64(n)))
}

// OPRFractions returns the OPR data distribution vector of n nodes:
// α_1 = (1 − β)/(1 − βⁿ), α_i = α_1·β^(i−1) (docs/models/divisible.md A4; the special case
// of Eq. 4–5 of lin2007 with all Cps_i = Cps).
func (c Cluster) OPRFractions(n int) []float64 {
	b := c.Beta()
	a := make([]float64, n)
	a[0] = (1 - b) / (1 - math.Pow(b, float64(n)))
	for i := 1; i < n; i++ {
		a[i] = a[i-1] * b
	}
	return a
}

// NMin returns the number of nodes a task of size sigma needs to finish by
// absolute deadline dl when its last node becomes available at time start:
// γ = 1 − σCms/(dl − start), ñ_min = ⌈ln γ / ln β⌉. ok is false when
// dl − start <= 0, γ <= 0 (not even the transmission fits) or ñ_min > N.
// Eq. 14 and the text below it of the divisible-load paper (lin2007); the
// same formula is n_min of OPR-MN (docs/models/divisible.md A5).
func (c Cluster) NMin(sigma, dl, start float64) (n int, ok bool) {
	return c.nMin(sigma, dl, start, math.Log(c.Beta()))
}

// nMin is NMin with ln β given (the schedulability test computes it once).
func (c Cluster) nMin(sigma, dl, start, logBeta float64) (n int, ok bool) {
	slack := dl - start
	if slack <= 0 {
		return 0, false
	}
	gamma := 1 - sigma*c.Cms/slack
	if gamma <= 0 {
		return 0, false
	}
	x := math.Ceil(math.Log(gamma) / logBeta)
	if x < 1 {
		x = 1
	}
	if x > float64(c.N) {
		return 0, false
	}
	return int(x), true
}

// DLTPartition partitions a task of size sigma over the n = len(r) nodes
// available at times r (ascending) with the heterogeneous model of Section
// 4.1.1 of the divisible-load paper (lin2007). It returns the fractions α
// and the execution time Ê from r_n; the estimated completion is r_n + Ê.
//
//	Cps_i = E/(E + r_n − r_i)·Cps, E = E(σ, n)             Eq. 1 (Cms_i = Cms, Eq. 2)
//	X_i = Cps_{i−1}/(Cms + Cps_i), i = 2..n                  Eq. 3 and below
//	α_1 = 1/(1 + Σ_{i=2..n} Π_{j=2..i} X_j)                  Eq. 4
//	α_i = α_1·Π_{j=2..i} X_j                                 Eq. 5
//	Ê = α_1σ(Cms + Cps_1) = σCms + α_nσCps                   Eq. 3, Eq. 6
func (c Cluster) DLTPartition(sigma float64, r []float64, alpha []float64) (ehat float64) {
	return c.dltPartition(sigma, r, alpha, false)
}

// dltPartition is DLTPartition; integer rounds E, every Cps_i and Ê up as
// the authors' simulator does (SchMN_IIT.recalculateTask,
// DivHeteroSingle.computeCost). Rounding Cps_i up only slows the model's
// nodes, so Theorem 4 still holds (Assertion 3 needs Cps_i >= its exact value).
func (c Cluster) dltPartition(sigma float64, r []float64, alpha []float64, integer bool) (ehat float64) {
	n := len(r)
	e := c.E(sigma, n)
	if integer {
		e = math.Ceil(e - 1e-9)
	}
	rn := r[n-1]
	cps := func(i int) float64 { // Eq. 1
		v := e / (e + rn - r[i]) * c.Cps
		if integer {
			v = min(math.Ceil(v-1e-9), c.Cps) // Cps_i <= Cps (Assertion 3)
		}
		return v
	}
	prev := cps(0)
	cps1 := prev
	alpha[0] = 1
	sum := 1.0
	for i := 1; i < n; i++ {
		cur := cps(i)
		alpha[i] = alpha[i-1] * prev / (c.Cms + cur) // X_i, Eq. 3
		sum += alpha[i]
		prev = cur
	}
	for i := range alpha[:n] {
		alpha[i] /= sum // Eq. 4–5
	}
	ehat = alpha[0] * sigma * (c.Cms + cps1) // Eq. 3, first line
	if integer {
		ehat = math.Ceil(ehat - 1e-9)
	}
	return ehat
}

// DLTExecute returns, for a task partitioned by alpha and started on nodes
// available at r, the actual transmission start s_i, transmission end and
// computation end of every node on the homogeneous cluster with sequential
// transmissions: s_i = max(r_i, end of transmission i−1) (proof of Theorem 4,
// lin2007 §4.1.1 C).
func (c Cluster) DLTExecute(sigma float64, r, alpha, start, txEnd, finish []float64) {
	prev := math.Inf(-1)
	for i := range r {
		s := max(r[i], prev)
		start[i] = s
		prev = s + alpha[i]*sigma*c.Cms
		txEnd[i] = prev
		finish[i] = prev + alpha[i]*sigma*c.Cps
	}
}

// SplitNMin is N_min of User-Split: the fewest nodes that meet relative
// deadline d when the task starts on arrival: ⌈σCps/(D − σCms − extra)⌉;
// ok is false when the denominator is not positive. extra is 0 in the paper
// and Cps in the authors' code (docs/models/divisible.md A10).
// Section 4.1.2 ("Derivation of N_min") of the divisible-load paper (lin2007).
func (c Cluster) SplitNMin(sigma, d, extra float64) (int, bool) {
	den := d - sigma*c.Cms - extra
	if den <= 0 {
		return 0, false
	}
	x := math.Ceil(sigma * c.Cps / den)
	if x < 1 {
		x = 1
	}
	if x > 1<<30 {
		x = 1 << 30
	}
	return int(x), true
}

// SplitSchedule computes the User-Split completion of a task of size sigma
// split into n = len(r) equal pieces on nodes available at r (ascending):
// s_1 = r_1, s_i = max(r_i, s_{i−1} + σCms/n), C_i = s_i + σ(Cms + Cps)/n,
// C = C_n. Eq. 15 of the divisible-load paper (lin2007), with the
// recursion's σCms/i read as σCms/n (docs/models/divisible.md A11, a misprint).
func (c Cluster) SplitSchedule(sigma float64, r, start, finish []float64) (completion float64) {
	return c.splitSchedule(sigma, r, start, finish, false)
}

// splitSchedule is SplitSchedule; integer rounds the piece's transmission
// and run times up.
func (c Cluster) splitSchedule(sigma float64, r, start, finish []float64, integer bool) (completion float64) {
	n := len(r)
	tx := sigma * c.Cms / float64(n)
	run := sigma * (c.Cms + c.Cps) / float64(n)
	if integer {
		tx, run = math.Ceil(tx-1e-9), math.Ceil(run-1e-9)
	}
	for i := range r {
		s := r[i]
		if i > 0 {
			s = max(r[i], start[i-1]+tx)
		}
		start[i] = s
		finish[i] = s + run
	}
	return finish[n-1]
}
