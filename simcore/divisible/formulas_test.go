package divisible

import (
	"math"
	"testing"
)

func approx(t *testing.T, name string, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol {
		t.Errorf("%s = %.10g, want %.10g", name, got, want)
	}
}

// Worked values of docs/models/divisible.md A4–A5 (baseline N=16, Cms=1, Cps=100, σ=200).
func TestOPRBaselineValues(t *testing.T) {
	c := Cluster{N: 16, Cms: 1, Cps: 100}
	approx(t, "β", c.Beta(), 100.0/101, 1e-12)
	approx(t, "E(200,1)", c.E(200, 1), 20200, 1e-6)
	approx(t, "E(200,16)", c.E(200, 16), 1358.9, 0.05)
	n, ok := c.NMin(200, 2*c.E(200, 16), 0)
	if !ok || n != 8 {
		t.Errorf("n_min = %d, %v; want 8", n, ok)
	}
	a := c.OPRFractions(16)
	sum := 0.0
	for i, x := range a {
		sum += x
		// OPR: every node ends at E (transmissions back to back from 0).
		tx := 0.0
		for _, y := range a[:i+1] {
			tx += y * 200 * c.Cms
		}
		approx(t, "OPR node finish", tx+x*200*c.Cps, c.E(200, 16), 1e-6)
	}
	approx(t, "Σα", sum, 1, 1e-12)
}

// A hand-computed two-node case of Eq. 1–6 and of the Theorem 4 execution:
// Cms = 1, Cps = 3, σ = 4, r = (0, 2). β = 3/4, E(4,2) = 64/7,
// Cps_1 = (64/7)/(64/7+2)·3 = 32/13, Cps_2 = 3, X_2 = (32/13)/4 = 8/13,
// α = (13/21, 8/21), Ê = α_1·4·(1 + 32/13) = 60/7 = σCms + α_2σCps.
func TestDLTPartitionByHand(t *testing.T) {
	c := Cluster{N: 2, Cms: 1, Cps: 3}
	approx(t, "E(4,2)", c.E(4, 2), 64.0/7, 1e-12)
	r := []float64{0, 2}
	alpha := make([]float64, 2)
	ehat := c.DLTPartition(4, r, alpha)
	approx(t, "α1", alpha[0], 13.0/21, 1e-12)
	approx(t, "α2", alpha[1], 8.0/21, 1e-12)
	approx(t, "Ê (Eq. 3)", ehat, 60.0/7, 1e-12)
	approx(t, "Ê (Eq. 6)", 4*c.Cms+alpha[1]*4*c.Cps, 60.0/7, 1e-12)
	start, tx, fin := make([]float64, 2), make([]float64, 2), make([]float64, 2)
	c.DLTExecute(4, r, alpha, start, tx, fin)
	approx(t, "s2", start[1], 52.0/21, 1e-12)
	approx(t, "finish1", fin[0], 208.0/21, 1e-12)
	approx(t, "finish2", fin[1], 180.0/21, 1e-12)
	if est := r[1] + ehat; fin[0] > est || fin[1] > est {
		t.Errorf("Theorem 4: finishes %v exceed estimate %v", fin, est)
	}
	// Equal availability: the heterogeneous model reduces to OPR.
	ehat = c.DLTPartition(4, []float64{5, 5}, alpha)
	approx(t, "Ê with r1 = r2", ehat, c.E(4, 2), 1e-12)
}

// Eq. 14: Cms = 1, Cps = 3, σ = 4, deadline 10 from 0: γ = 0.6,
// ln 0.6 / ln 0.75 = 1.776 → 2; and E(4,2) = 9.14 <= 10 < E(4,1) = 16.
func TestNMinByHand(t *testing.T) {
	c := Cluster{N: 4, Cms: 1, Cps: 3}
	if n, ok := c.NMin(4, 10, 0); !ok || n != 2 {
		t.Errorf("n_min = %d, %v; want 2", n, ok)
	}
	if _, ok := c.NMin(4, 10, 6); ok {
		t.Error("γ = 0 accepted")
	}
	if _, ok := c.NMin(4, 10, 10); ok {
		t.Error("no slack accepted")
	}
	if _, ok := (Cluster{N: 1, Cms: 1, Cps: 3}).NMin(4, 10, 0); ok {
		t.Error("n_min above N accepted")
	}
}

// Eq. 15 and User-Split N_min: σ = 6 in 3 pieces, Cms = 1, Cps = 2,
// r = (0, 0, 5): piece transmission 2, piece run 6; s = (0, 2, 5), C = 11.
func TestUserSplitByHand(t *testing.T) {
	c := Cluster{N: 3, Cms: 1, Cps: 2}
	start, fin := make([]float64, 3), make([]float64, 3)
	if got := c.SplitSchedule(6, []float64{0, 0, 5}, start, fin); got != 11 {
		t.Errorf("C = %v, want 11", got)
	}
	if start[1] != 2 || fin[0] != 6 || fin[1] != 8 {
		t.Errorf("starts %v finishes %v", start, fin)
	}
	if n, ok := c.SplitNMin(6, 10, 0); !ok || n != 3 { // ⌈12/(10−6)⌉
		t.Errorf("N_min = %d, %v; want 3", n, ok)
	}
	if n, ok := c.SplitNMin(6, 10, 2); !ok || n != 6 { // code: ⌈12/(10−6−2)⌉
		t.Errorf("N_min (code) = %d, %v; want 6", n, ok)
	}
	if _, ok := c.SplitNMin(6, 6, 0); ok {
		t.Error("D = σCms accepted")
	}
}
