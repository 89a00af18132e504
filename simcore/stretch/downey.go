package stretch

// DowneySpeedup is Downey's speedup model (Downey 1997; docs/models/stretch.md
// A1): A ≥ 1 the average parallelism, sigma ≥ 0 its variance
// parameter, n ≥ 1 processors. S(1) = 1, S is continuous, non-decreasing in
// n and never exceeds A.
func DowneySpeedup(A, sigma float64, n int) float64 {
	x := float64(n)
	if A <= 1 || n <= 1 {
		return 1
	}
	if sigma <= 1 {
		switch {
		case x <= A:
			return A * x / (A + sigma*(x-1)/2)
		case x <= 2*A-1:
			return A * x / (sigma*(A-0.5) + x*(1-sigma/2))
		default:
			return A
		}
	}
	if x <= A+A*sigma-sigma {
		return x * A * (sigma + 1) / (sigma*(x+A-1) + A)
	}
	return A
}

// DowneyTimes fills times[j-1] = p_{i,j} = T(1)/S(j) for j = 1..len(times),
// where T(1) = tp·S(p) keeps the logged run time tp on the logged size p
// (docs/models/stretch.md A2).
func DowneyTimes(times []float64, A, sigma float64, p int, tp float64) {
	t1 := tp * DowneySpeedup(A, sigma, p)
	for j := range times {
		times[j] = t1 / DowneySpeedup(A, sigma, j+1)
	}
	// Guard rounding: the model is non-decreasing in n, the table non-increasing.
	for j := 1; j < len(times); j++ {
		if times[j] > times[j-1] {
			times[j] = times[j-1]
		}
	}
}
