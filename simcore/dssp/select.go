package dssp

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
)

// Item is one candidate of the selection knapsack (§3.1, Eqs. 1–2): the
// job's reward, its processing demand (T1 or its estimate) and its team.
type Item struct {
	Reward float64
	Weight float64
	Team   int
}

// capTol absorbs the rounding of summed weights when comparing with a
// capacity (CPU-hours).
const capTol = 1e-9

func fits(used, w, capacity float64) bool { return used+w <= capacity+capTol*max(1, capacity) }

// Ties says how greedy selection orders jobs of equal R/T1. It decides the
// whole selection under size-dependent rewards (R = T1: every ratio is 1).
type Ties string

// The tie rules of greedy selection.
const (
	// TiesLarge takes the larger job first (first-fit decreasing): the
	// model's default, the one rule under which size-dependent rewards
	// keep greedy within §5.2's 3% of the optimum on the synthetic trace.
	TiesLarge Ties = "large"
	// TiesNight keeps the night's job order (a stable sort of the
	// submission list).
	TiesNight Ties = "night"
	// TiesSmall takes the smaller job first (docs/models/dssp.md A6).
	TiesSmall Ties = "small"
)

// TieRules lists the tie rules in schema order.
var TieRules = []string{string(TiesLarge), string(TiesNight), string(TiesSmall)}

// ratioOrder returns the item indexes by non-increasing R/T1, ties by
// smaller weight (docs/models/dssp.md A6), then index.
func ratioOrder(items []Item) []int { return ratioOrderTies(items, TiesSmall) }

// ratioOrderTies returns the item indexes by non-increasing R/T1 with the
// given tie rule, then index.
func ratioOrderTies(items []Item, ties Ties) []int {
	idx := make([]int, len(items))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool {
		ia, ib := items[idx[a]], items[idx[b]]
		// Compare R_a/W_a with R_b/W_b without dividing (weights > 0).
		l, r := ia.Reward*ib.Weight, ib.Reward*ia.Weight
		if l != r {
			return l > r
		}
		if ia.Weight != ib.Weight && ties != TiesNight {
			return (ia.Weight < ib.Weight) == (ties == TiesSmall)
		}
		return idx[a] < idx[b]
	})
	return idx
}

// Greedy is the classic greedy knapsack heuristic of §3.1: visit the items
// by non-increasing R/T1 (equal ratios by the tie rule) and take each one
// that still fits. O(n log n).
func Greedy(items []Item, capacity float64, ties Ties) []bool {
	sel := make([]bool, len(items))
	used := 0.0
	for _, i := range ratioOrderTies(items, ties) {
		if fits(used, items[i].Weight, capacity) {
			sel[i] = true
			used += items[i].Weight
		}
	}
	return sel
}

// MaxDPCells bounds the choice table of DP by profits (items × profit
// sum, one bit each: 64 MiB).
const MaxDPCells = 1 << 29

// ErrDPTooLarge is returned when DP by profits would need more than
// MaxDPCells cells; reward scaling (epsilon > 0) shrinks the table.
var ErrDPTooLarge = errors.New("DP by profits table too large")

// DPProfits solves the selection knapsack exactly by dynamic programming
// over profits (§3.1 solver 2; Kellerer, Pferschy, Pisinger §2.3): for each
// total profit q it keeps the least weight that reaches q. profits are the
// items' rewards as non-negative integers. With epsilon > 0 profits are
// first scaled down by K = epsilon·max profit / n (the FPTAS of [28, p. 41]):
// the selection is then within a factor (1 − epsilon) of optimal. Time and
// memory O(n · Σ profits).
func DPProfits(items []Item, profits []int64, capacity, epsilon float64) ([]bool, error) {
	return dpProfits(items, profits, capacity, epsilon, true)
}

// dpProfits is DPProfits; prune enables the lower-bound pruning (the
// tests compare it with the full table).
func dpProfits(items []Item, profits []int64, capacity, epsilon float64, prune bool) ([]bool, error) {
	n := len(items)
	sel := make([]bool, n)
	if len(profits) != n {
		return nil, fmt.Errorf("dp: %d profits for %d items", len(profits), n)
	}
	p := make([]int64, n)
	var pmax int64
	for i, v := range profits {
		if v < 0 {
			return nil, fmt.Errorf("dp: negative profit %d", v)
		}
		if fits(0, items[i].Weight, capacity) {
			p[i] = v
			pmax = max(pmax, v)
		}
	}
	if epsilon > 0 && n > 0 {
		k := epsilon * float64(pmax) / float64(n)
		if k > 1 {
			for i := range p {
				p[i] = int64(math.Floor(float64(p[i]) / k))
			}
		}
	}
	// Items in increasing profit: the reachable profit range grows slowly,
	// so the scans are short for all but the last items.
	order := make([]int, 0, n)
	var total int64
	for i := range p {
		if p[i] > 0 {
			order = append(order, i)
			total += p[i]
		}
	}
	sort.SliceStable(order, func(a, b int) bool { return p[order[a]] < p[order[b]] })
	if total > 0 && float64(len(order))*float64(total+1) > MaxDPCells {
		return nil, fmt.Errorf("dp: %d items × profit sum %d: %w; set dp_epsilon > 0 (FPTAS reward scaling) or use selector bnb", len(order), total, ErrDPTooLarge)
	}
	minW := make([]float64, total+1)
	for q := range minW {
		minW[q] = math.Inf(1)
	}
	minW[0] = 0
	words := (total + 64) / 64
	take := make([]uint64, int64(len(order))*words)
	// reach is the largest profit reachable within the capacity so far:
	// entries above it stay +Inf, so the scan starts at reach + p_i, and an
	// entry that would exceed the capacity is never written (it could only
	// grow heavier later).
	limit := capacity + capTol*max(1, capacity)
	// Pruning by a lower bound lb on the optimal profit (a feasible
	// selection's): the backtracking from the best profit q* >= lb visits,
	// at item k, a profit of at least q* minus the profits of the items
	// after k, so the cells below lb − suffix(k) are never read by it, nor
	// by any cell it reads (a cell at k reads cells at k−1 that are at most
	// p_k lower, and the bound falls by p_k too). Skipping them leaves every
	// other cell, every take bit the backtracking reads, and the answer as
	// the full table has them.
	var lb int64
	if prune {
		lb = lowerBound(items, p, order, limit)
	}
	suffix := total // Σ p of the items after the current one
	var reach int64
	for k, i := range order {
		pi, wi := p[i], items[i].Weight
		suffix -= pi
		row := take[int64(k)*words : int64(k+1)*words]
		// q runs from reach + p_i down to p_i: dst[j] is minW[q], src[j]
		// is minW[q − p_i] with j = q − p_i. Descending j reads each src
		// entry before this item can have written it (0/1 knapsack); the
		// two equal-length slices let the compiler drop the bounds checks.
		dst := minW[pi : reach+pi+1]
		src := minW[:len(dst)]
		lo := max(0, lb-suffix-pi) // q >= lb − suffix
		newReach := reach
		for j := int64(len(dst)) - 1; j >= lo; j-- {
			if w := src[j] + wi; w < dst[j] && w <= limit {
				dst[j] = w
				q := int64(j) + pi
				row[q>>6] |= 1 << uint(q&63)
				newReach = max(newReach, q)
			}
		}
		reach = newReach
	}
	best := int64(0)
	for q := total; q > 0; q-- {
		if fits(0, minW[q], capacity) {
			best = q
			break
		}
	}
	for k := len(order) - 1; k >= 0 && best > 0; k-- {
		if take[int64(k)*words+best>>6]&(1<<uint(best&63)) != 0 {
			i := order[k]
			sel[i] = true
			best -= p[i]
		}
	}
	return sel, nil
}

// lowerBound returns the profit of a greedy selection (decreasing p/w)
// whose weight, summed in DP order (order) as the table sums it, is within
// limit: the table then holds a weight within limit at that profit, so the
// optimum is at least that. 0 if the check fails.
func lowerBound(items []Item, p []int64, order []int, limit float64) int64 {
	byRatio := slices.Clone(order)
	slices.SortStableFunc(byRatio, func(a, b int) int {
		// p_a/w_a > p_b/w_b first, without dividing by a zero weight.
		x, y := float64(p[a])*items[b].Weight, float64(p[b])*items[a].Weight
		switch {
		case x > y:
			return -1
		case x < y:
			return 1
		}
		return 0
	})
	take := make([]bool, len(items))
	used := 0.0
	for _, i := range byRatio {
		if w := items[i].Weight; used+w <= limit*(1-1e-9) {
			take[i] = true
			used += w
		}
	}
	var lb int64
	w := 0.0
	for _, i := range order {
		if take[i] {
			w += items[i].Weight
			lb += p[i]
		}
	}
	if !(w <= limit) {
		return 0
	}
	return lb
}

// ErrBnBLimit is returned when branch and bound exceeds its node limit.
var ErrBnBLimit = errors.New("branch and bound node limit reached")

// BranchAndBound solves the selection knapsack exactly with side
// constraints: Σ T1 ≤ capacity overall and, for every team t with an entry
// in teamCaps, Σ T1 of its selected jobs ≤ teamCaps[t] (the fair-share side
// constraint of §1, which the paper's MIP handles; §3.1 solver 3). Depth
// first in R/T1 order, taking an item before leaving it; the bound is the
// fractional greedy over the remaining items under the remaining overall
// and per-team capacities, which is the exact LP relaxation (laminar
// capacities form a polymatroid). It gives up with ErrBnBLimit after
// nodeLimit nodes.
func BranchAndBound(items []Item, capacity float64, teamCaps map[int]float64, nodeLimit int) ([]bool, error) {
	order := ratioOrder(items)
	n := len(items)
	teamIdx := map[int]int{}
	var caps []float64
	team := make([]int, n) // index into caps, −1 when uncapped
	for k, i := range order {
		team[k] = -1
		if c, ok := teamCaps[items[i].Team]; ok {
			ti, seen := teamIdx[items[i].Team]
			if !seen {
				ti = len(caps)
				teamIdx[items[i].Team] = ti
				caps = append(caps, c)
			}
			team[k] = ti
		}
	}
	r := make([]float64, n)
	w := make([]float64, n)
	for k, i := range order {
		r[k], w[k] = items[i].Reward, items[i].Weight
	}
	usedTeam := make([]float64, len(caps))
	scratch := make([]float64, len(caps))
	bound := func(from int, used, value float64) float64 {
		copy(scratch, usedTeam)
		b := value
		for k := from; k < n && used < capacity; k++ {
			room := capacity - used
			if t := team[k]; t >= 0 {
				room = min(room, caps[t]-scratch[t])
			}
			if room <= 0 {
				continue
			}
			f := min(1, room/w[k])
			b += f * r[k]
			used += f * w[k]
			if t := team[k]; t >= 0 {
				scratch[t] += f * w[k]
			}
		}
		return b
	}
	cur := make([]bool, n)
	best := make([]bool, n)
	bestVal := -1.0
	nodes := 0
	var dfs func(k int, used, value float64) error
	dfs = func(k int, used, value float64) error {
		nodes++
		if nodes > nodeLimit {
			return ErrBnBLimit
		}
		if value > bestVal {
			bestVal = value
			copy(best, cur)
		}
		if k == n {
			return nil
		}
		if bound(k, used, value) <= bestVal*(1+1e-12) {
			return nil
		}
		t := team[k]
		if fits(used, w[k], capacity) && (t < 0 || fits(usedTeam[t], w[k], caps[t])) {
			cur[k] = true
			if t >= 0 {
				usedTeam[t] += w[k]
			}
			err := dfs(k+1, used+w[k], value+r[k])
			cur[k] = false
			if t >= 0 {
				usedTeam[t] -= w[k]
			}
			if err != nil {
				return err
			}
		}
		return dfs(k+1, used, value)
	}
	if err := dfs(0, 0, 0); err != nil {
		return nil, fmt.Errorf("bnb: %d items, %d nodes: %w; raise bnb_node_limit or use selector dp (no side constraints)", n, nodeLimit, err)
	}
	sel := make([]bool, n)
	for k, i := range order {
		sel[i] = best[k]
	}
	return sel, nil
}

// Value returns Σ R and Σ W of the selected items.
func Value(items []Item, sel []bool) (reward, weight float64) {
	for i, s := range sel {
		if s {
			reward += items[i].Reward
			weight += items[i].Weight
		}
	}
	return reward, weight
}
