// Package rng gives models seeded random streams, one per purpose, and the
// distributions the papers need.
//
// A model derives every stream from its instance seed and a purpose name
// (New(seed).Stream("arrivals")), so adding a draw to one purpose never
// shifts the values another purpose sees. Every distribution is computed
// here from 64-bit uniform words of a PCG generator, never through the
// standard library's distribution methods, so values are identical across Go
// releases and machines.
package rng

import (
	"math"
	"math/bits"
	"math/rand/v2"
)

// Streams derives independent generators from one seed.
type Streams struct{ seed uint64 }

// New returns the streams of the given seed.
func New(seed uint64) Streams { return Streams{seed: seed} }

// Stream returns the generator of the named purpose. Two calls with one name
// return generators that produce the same sequence.
func (s Streams) Stream(name string) *Rand {
	h := fnv1a(name)
	return NewRand(mix(s.seed^mix(h)), mix(h+0x632be59bd9b4e019))
}

// Rand is one seeded generator. It is not safe for concurrent use.
type Rand struct{ src *rand.PCG }

// NewRand returns a generator seeded with the two words of a PCG state.
func NewRand(seed1, seed2 uint64) *Rand { return &Rand{src: rand.NewPCG(seed1, seed2)} }

// Uint64 returns a uniform 64-bit word.
func (r *Rand) Uint64() uint64 { return r.src.Uint64() }

// Float64 returns a uniform value in [0, 1) with 53 random bits.
func (r *Rand) Float64() float64 { return float64(r.src.Uint64()>>11) / (1 << 53) }

// open01 returns a uniform value in (0, 1).
func (r *Rand) open01() float64 {
	for {
		if u := r.Float64(); u > 0 {
			return u
		}
	}
}

// IntN returns a uniform integer in [0, n) (Lemire's multiply-and-reject,
// unbiased). It panics if n <= 0.
func (r *Rand) IntN(n int) int {
	if n <= 0 {
		panic("rng: IntN with n <= 0")
	}
	un := uint64(n)
	hi, lo := bits.Mul64(r.src.Uint64(), un)
	if lo < un {
		thresh := -un % un
		for lo < thresh {
			hi, lo = bits.Mul64(r.src.Uint64(), un)
		}
	}
	return int(hi)
}

// IntRange returns a uniform integer in [lo, hi], both ends included.
func (r *Rand) IntRange(lo, hi int) int {
	if hi < lo {
		panic("rng: IntRange with hi < lo")
	}
	return lo + r.IntN(hi-lo+1)
}

// Uniform returns a uniform value in [a, b).
func (r *Rand) Uniform(a, b float64) float64 { return a + (b-a)*r.Float64() }

// Exp returns an exponential value of the given mean (inversion).
func (r *Rand) Exp(mean float64) float64 { return -mean * math.Log(r.open01()) }

// Normal returns a normal value (Box–Muller; one value per two uniforms, no
// cached second value, so the stream position depends only on the number of
// calls).
func (r *Rand) Normal(mean, sd float64) float64 {
	u1 := r.open01()
	u2 := r.Float64()
	return mean + sd*math.Sqrt(-2*math.Log(u1))*math.Cos(2*math.Pi*u2)
}

// NormalAbove returns a normal value redrawn until it is greater than min
// (a normal truncated below by resampling). The caller must choose min so
// that the acceptance probability is not tiny.
func (r *Rand) NormalAbove(mean, sd, min float64) float64 {
	for {
		if x := r.Normal(mean, sd); x > min {
			return x
		}
	}
}

// Weibull returns a Weibull value with the given shape k and scale λ
// (inversion: λ·(−ln U)^(1/k)); its mean is λ·Γ(1 + 1/k).
func (r *Rand) Weibull(shape, scale float64) float64 {
	return scale * math.Pow(-math.Log(r.open01()), 1/shape)
}

// LogUniform returns a value whose logarithm is uniform on [ln a, ln b)
// (a, b > 0); its mean is (b − a)/ln(b/a).
func (r *Rand) LogUniform(a, b float64) float64 {
	return math.Exp(r.Uniform(math.Log(a), math.Log(b)))
}

func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

func fnv1a(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}
