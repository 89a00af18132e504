package dssp

import "fmt"

// Reward is a completion-reward function (§5.1).
type Reward string

// The reward functions of §5.1, plus unit rewards (§4's analysis).
const (
	Linear Reward = "linear" // R = 500 − priority
	Size   Reward = "size"   // R = T1 (CPU-hours)
	Banded Reward = "banded" // 100000 / 1000 / 10 / 1 for priority < 100 / < 200 / < 300 / otherwise
	Unit   Reward = "unit"   // R = 1 (Theorems 3 and 4)
)

// Rewards lists the reward functions in schema order.
var Rewards = []string{string(Linear), string(Size), string(Banded), string(Unit)}

// Value returns R_j for a job of the given priority and total demand t1.
func (r Reward) Value(priority int, t1 float64) float64 {
	switch r {
	case Linear:
		return float64(500 - priority)
	case Size:
		return t1
	case Banded:
		switch {
		case priority < 100:
			return 100000
		case priority < 200:
			return 1000
		case priority < 300:
			return 10
		}
		return 1
	case Unit:
		return 1
	}
	panic(fmt.Sprintf("dssp: unknown reward %q", string(r)))
}

// ProfitScale is the factor that turns the rewards of r into the integer
// profits DP by profits needs: 1 for the integer-valued rewards, 60 for
// size-dependent rewards (CPU-minutes, docs/models/dssp.md A7).
func (r Reward) ProfitScale() float64 {
	if r == Size {
		return 60
	}
	return 1
}

// ParseReward checks a reward name.
func ParseReward(s string) (Reward, error) {
	for _, n := range Rewards {
		if n == s {
			return Reward(s), nil
		}
	}
	return "", fmt.Errorf("reward %q: want one of %v", s, Rewards)
}
