package sweep

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/google/uuid"

	"schedfarm/simcore"
)

// errStop ends a walk early without being an error of the sweep.
var errStop = errors.New("stop")

// countCap saturates counts: no sweep this large can be expanded, and it
// keeps products of axis sizes from overflowing.
const countCap = math.MaxInt64 / 4

func satMul(a, b int) int {
	if a == 0 || b == 0 {
		return 0
	}
	if a > countCap/b {
		return countCap
	}
	return a * b
}

func satAdd(a, b int) int { return min(a+b, countCap) }

// countList returns the number of points of a list of axes, ignoring
// exclusions: a product, since each axis's sub-axes nest inside it.
func countList(axes []*axis) int {
	n := 1
	for _, a := range axes {
		n = satMul(n, countAxis(a))
	}
	return n
}

func countAxis(a *axis) int {
	if a.when == nil {
		return len(a.points)
	}
	n := 0
	for i := range a.points {
		n = satAdd(n, countList(a.when[i]))
	}
	return n
}

// Count returns the number of jobs the sweep expands to. Without
// exclusions it is computed from the axis sizes; with exclusions every
// point is enumerated (without building jobs), which takes time in
// proportion to the sweep's size before exclusions.
func (s *Sweep) Count() (int, error) {
	n, _, err := s.countAtMost(context.Background(), countCap)
	return n, err
}

// enumBudget bounds how many points (excluded ones included) a limit check
// enumerates: a sweep must not be allowed to spin through 10^12 points that
// exclusions almost all drop.
func enumBudget(limit int) int { return max(1_000_000, satMul(limit, 16)) }

// countAtMost counts the sweep's jobs, stopping once the count exceeds
// limit or the enumeration exceeds enumBudget(limit) points; exact reports
// whether n is the exact count. Without exclusions it is exact and free.
func (s *Sweep) countAtMost(ctx context.Context, limit int) (n int, exact bool, err error) {
	upper := satMul(countList(s.axes), s.Replicates)
	if len(s.exclude) == 0 {
		return upper, upper < countCap, nil
	}
	points := 0
	budget := enumBudget(limit)
	w := s.newWalker(ctx)
	err = w.run(func(w *walker, vals []any) error {
		points++
		if satMul(points, s.Replicates) > limit {
			return errStop
		}
		return nil
	}, budget)
	if errors.Is(err, errStop) {
		return max(satMul(points, s.Replicates), limit+1), false, nil
	}
	if err != nil {
		return 0, false, err
	}
	return points * s.Replicates, true, nil
}

// fits reports whether the sweep has at most limit jobs, and a capacity
// for its job slice. It enumerates only when the bound before exclusions
// is over the limit.
func (s *Sweep) fits(ctx context.Context, limit int) (n int, exact bool, err error) {
	if upper := satMul(countList(s.axes), s.Replicates); upper <= limit {
		return upper, len(s.exclude) == 0, nil
	}
	return s.countAtMost(ctx, limit)
}

// Expand returns the sweep's jobs in expansion order: points in axis order
// (first axis outermost, each axis's "when" sub-axes right inside it), and
// for each point its replicates 0..R-1. Index counts from 0 in this order,
// after exclusions. maxJobs ≤ 0 means DefaultMaxJobs; a larger sweep is an
// error wrapping ErrTooManyJobs, found before any job is built.
func (s *Sweep) Expand(maxJobs int) ([]Job, error) {
	if maxJobs <= 0 {
		maxJobs = DefaultMaxJobs
	}
	ctx := context.Background()
	n, exact, err := s.fits(ctx, maxJobs)
	if err != nil {
		return nil, err
	}
	if n > maxJobs {
		return nil, s.tooMany(n, exact, maxJobs)
	}
	jobs := make([]Job, 0, n)
	return s.appendJobs(s.newWalker(ctx), jobs)
}

func (s *Sweep) tooMany(n int, exact bool, maxJobs int) error {
	count := fmt.Sprintf("%d", n)
	hint := fmt.Sprintf("pass --max-jobs %d", n)
	if !exact {
		upper := satMul(countList(s.axes), s.Replicates)
		count = fmt.Sprintf("more than %d (at most %d before exclusions)", maxJobs, upper)
		hint = fmt.Sprintf("pass --max-jobs %d", upper)
		if upper >= countCap {
			hint = "shrink the sweep"
		}
	}
	return &Error{File: s.File, Line: s.Line, Col: s.Col, Key: s.key,
		Msg:  fmt.Sprintf("sweep expands to %s jobs, over the limit of %d: %v", count, maxJobs, ErrTooManyJobs),
		Hint: hint, err: ErrTooManyJobs}
}

// Expand returns the jobs of every sweep of the file, in file order. The
// limit applies to the total; maxJobs ≤ 0 means DefaultMaxJobs.
func (f *File) Expand(maxJobs int) ([]Job, error) {
	return f.ExpandContext(context.Background(), maxJobs)
}

// ExpandContext is Expand that stops when ctx ends: the walk over the
// points looks at ctx every 1,024 points (excluded ones included) and
// returns an error wrapping ctx.Err(), and no job. The jobs, their order
// and IDs are Expand's.
func (f *File) ExpandContext(ctx context.Context, maxJobs int) ([]Job, error) {
	if maxJobs <= 0 {
		maxJobs = DefaultMaxJobs
	}
	total := 0
	exact := true
	for _, s := range f.Sweeps {
		n, ex, err := s.fits(ctx, maxJobs)
		if err != nil {
			return nil, err
		}
		if n > maxJobs {
			return nil, s.tooMany(n, ex, maxJobs)
		}
		total = satAdd(total, n)
		exact = exact && ex
		if total > maxJobs {
			break
		}
	}
	if total > maxJobs {
		count := fmt.Sprintf("%d", total)
		hint := fmt.Sprintf("pass --max-jobs %d", total)
		if !exact || total >= countCap {
			count = fmt.Sprintf("more than %d", maxJobs)
			hint = "pass a larger --max-jobs, or check each sweep with Count"
		}
		return nil, &Error{File: f.Path, Line: 1, Key: "", err: ErrTooManyJobs,
			Msg:  fmt.Sprintf("the file's sweeps expand to %s jobs, over the limit of %d: %v", count, maxJobs, ErrTooManyJobs),
			Hint: hint}
	}
	jobs := make([]Job, 0, total)
	for _, s := range f.Sweeps {
		var err error
		if jobs, err = s.appendJobs(s.newWalker(ctx), jobs); err != nil {
			return nil, err
		}
	}
	return jobs, nil
}

// Count returns the number of jobs the file's sweeps expand to, sweep by
// sweep and in all, under the same limit as Expand (an error wrapping
// ErrTooManyJobs over it), without building any job: from the axis sizes,
// or, with exclusions, by enumerating the points in constant memory.
func (f *File) Count(maxJobs int) (total int, perSweep []int, err error) {
	return f.CountContext(context.Background(), maxJobs)
}

// CountContext is Count that stops when ctx ends, as ExpandContext does.
func (f *File) CountContext(ctx context.Context, maxJobs int) (total int, perSweep []int, err error) {
	if maxJobs <= 0 {
		maxJobs = DefaultMaxJobs
	}
	for _, s := range f.Sweeps {
		n, exact, err := s.fits(ctx, maxJobs)
		if err != nil {
			return 0, nil, err
		}
		if n > maxJobs {
			return 0, nil, s.tooMany(n, exact, maxJobs)
		}
		if !exact {
			if n, _, err = s.countAtMost(ctx, countCap); err != nil {
				return 0, nil, err
			}
		}
		total = satAdd(total, n)
		perSweep = append(perSweep, n)
		if total > maxJobs {
			return 0, nil, &Error{File: f.Path, Line: 1, Key: "", err: ErrTooManyJobs,
				Msg:  fmt.Sprintf("the file's sweeps expand to more than %d jobs, over the limit of %d: %v", maxJobs, maxJobs, ErrTooManyJobs),
				Hint: "pass a larger --max-jobs"}
		}
	}
	return total, perSweep, nil
}

// appendJobs builds the sweep's jobs onto jobs, walking the points with
// w (a new walker of s).
func (s *Sweep) appendJobs(w *walker, jobs []Job) ([]Job, error) {
	version := s.model.Version()
	workload := s.schema.WorkloadParams()
	seen := map[uuid.UUID]int{} // point ID → point ordinal
	start := len(jobs)
	err := w.run(func(w *walker, vals []any) error {
		params := make(simcore.Params, len(vals))
		for i, v := range vals {
			params[s.schema.Params[i].Name] = v
		}
		canon := params.Canonical(nil)
		wcanon := params.Canonical(workload)
		// Duplicate points are detected on the parameters alone (the
		// replicate-0 ID without a seed), whatever the seeds.
		pointID := jobIDCanonical(s.Model, version, canon, 0, 0)
		if first, dup := seen[pointID]; dup {
			return s.duplicate(first, w)
		}
		seen[pointID] = w.ordinal
		for r := 0; r < s.Replicates; r++ {
			// The replicates of a point share one map (read-only, see
			// Job.Params): a coordinator holds every job of a submission
			// at once, and the map is most of a job's size.
			p := params
			seed := instanceSeedCanonical(s.Seed, r, wcanon)
			jobs = append(jobs, Job{
				ID:           jobIDCanonical(s.Model, version, canon, r, seed),
				Index:        len(jobs) - start,
				Sweep:        s.Name,
				Model:        s.Model,
				ModelVersion: version,
				Params:       p,
				Replicate:    r,
				Seed:         seed,
				Point:        w.ordinal,
			})
		}
		return nil
	}, 0)
	if err != nil {
		return nil, err
	}
	return jobs, nil
}

// duplicate reports two points with identical parameters, naming the axis
// values that led to each.
func (s *Sweep) duplicate(first int, w *walker) error {
	now := w.describe()
	var before string
	w2 := s.newWalker(w.ctx)
	err := w2.runAll(func(w2 *walker, _ []any) error {
		if w2.ordinal == first {
			before = w2.describe()
			return errStop
		}
		return nil
	})
	if err != nil && !errors.Is(err, errStop) {
		return err // ctx ended
	}
	line, col, key := s.Line, s.Col, s.key
	if len(w.path) > 0 {
		a := w.path[len(w.path)-1].a
		line, col, key = a.line, a.col, a.key
	}
	return &Error{File: s.File, Line: line, Col: col, Key: key,
		Msg:  fmt.Sprintf("duplicate point: %s gives the same parameters (and job IDs) as %s", now, before),
		Hint: "remove the repeated value or add an exclude entry"}
}

// cancelEvery is how many points (excluded ones included) a walk visits
// between two looks at its context: a look costs tens of nanoseconds, a
// point at least about a hundred, so a cancelled expansion stops within
// a few hundred microseconds at no measurable cost to one that is not.
const cancelEvery = 1024

// walker enumerates the points of a sweep.
type walker struct {
	ctx     context.Context // the walk stops with an error wrapping ctx.Err() once it ends
	s       *Sweep
	vals    []any // fixed and axis values of the current point
	out     []any // the complete point, handed to the visitor
	path    []step
	ordinal int // the current point's position, counting excluded points
	matched []bool
	key     []byte    // scratch for exclude lookups
	work    workCount // what this walk has done, for tests
}

// workCount counts a walk's work, for tests that bound it per point (by
// counting, never by time).
type workCount struct {
	excludeProbes int // exclude lookups: one per set of parameters per point
	evalSteps     int // derive expression nodes evaluated
}

type step struct {
	a *axis
	i int
}

func (s *Sweep) newWalker(ctx context.Context) *walker {
	w := &walker{ctx: ctx, s: s, vals: make([]any, len(s.fixed)), out: make([]any, len(s.fixed)), matched: make([]bool, len(s.exclude))}
	copy(w.vals, s.fixed)
	return w
}

// run calls visit with the complete parameter values of every point that
// no exclusion drops, in expansion order. An exclusion that drops nothing
// is an error: it is almost always a typo in a value. A point that several
// entries match counts for the first of them in file order. Checking a
// point takes one lookup per distinct set of parameters the entries name
// (at most maxExcludeKeySets), whatever the number of entries.
// A budget > 0 stops the walk with errStop after that many points.
func (w *walker) run(visit func(w *walker, vals []any) error, budget int) error {
	err := w.runAll(func(w *walker, vals []any) error {
		if budget > 0 && w.ordinal >= budget {
			return errStop
		}
		if len(w.s.exclude) > 0 {
			var i int
			if i, w.key = w.s.excl.match(vals, w.key, &w.work); i >= 0 {
				w.matched[i] = true
				return nil
			}
		}
		return visit(w, vals)
	})
	if err != nil {
		return err
	}
	for i, e := range w.s.exclude {
		if !w.matched[i] {
			return &Error{File: w.s.File, Line: e.line, Col: e.col, Key: e.key,
				Msg:  "exclusion matches no point of the sweep",
				Hint: "check its values against the axes (or remove it)"}
		}
	}
	return nil
}

// runAll is run without exclusions.
func (w *walker) runAll(visit func(w *walker, vals []any) error) error {
	return w.walk(w.s.axes, visit)
}

func (w *walker) walk(stack []*axis, visit func(w *walker, vals []any) error) error {
	if len(stack) == 0 {
		if w.ordinal%cancelEvery == 0 {
			if err := w.ctx.Err(); err != nil {
				return fmt.Errorf("sweep %s: expansion stopped at point %d: %w", w.s.Name, w.ordinal, err)
			}
		}
		if err := w.complete(); err != nil {
			return err
		}
		err := visit(w, w.out)
		w.ordinal++
		return err
	}
	a, rest := stack[0], stack[1:]
	for i, pt := range a.points {
		for j, slot := range a.slots {
			w.vals[slot] = pt[j]
		}
		w.path = append(w.path, step{a, i})
		next := rest
		if a.when != nil && len(a.when[i]) > 0 {
			next = make([]*axis, 0, len(a.when[i])+len(rest))
			next = append(append(next, a.when[i]...), rest...)
		}
		if err := w.walk(next, visit); err != nil {
			return err
		}
		w.path = w.path[:len(w.path)-1]
	}
	for _, slot := range a.slots {
		w.vals[slot] = nil
	}
	return nil
}

// complete fills w.out with the current point: fixed and axis values,
// defaults, then derived values in dependency order.
func (w *walker) complete() error {
	s := w.s
	copy(w.out, w.vals)
	for i := range w.out {
		if w.out[i] == nil {
			w.out[i] = s.defs[i]
		}
	}
	for _, d := range s.derived {
		w.out[d.slot] = nil
	}
	for _, d := range s.derived {
		for _, dep := range d.deps {
			if w.out[dep] == nil {
				return w.pointError(d, fmt.Sprintf("reads %q, which has no value at this point and no default", s.schema.Params[dep].Name))
			}
		}
		v, err := d.value(s.schema.Params[d.slot], d.expr.eval(w.out, &w.work.evalSteps))
		if err != nil {
			return w.pointError(d, err.Error())
		}
		w.out[d.slot] = v
	}
	for i, v := range w.out {
		if v == nil {
			p := s.schema.Params[i]
			return &Error{File: s.File, Line: s.Line, Col: s.Col, Key: s.key,
				Msg:  fmt.Sprintf("parameter %q is required but has no value at %s", p.Name, w.describe()),
				Hint: "set it under params, or in every branch of the axis that sets it"}
		}
	}
	return nil
}

func (w *walker) pointError(d *derivation, msg string) error {
	return &Error{File: w.s.File, Line: d.line, Col: d.col, Key: d.key,
		Msg: fmt.Sprintf("%s = %s: %s (at %s)", d.name, d.src, msg, w.describe())}
}

// value converts an expression result to the parameter's kind and checks it
// against the schema.
func (d *derivation) value(p simcore.Param, v exprValue) (any, error) {
	var raw any
	switch p.Kind {
	case simcore.Int:
		if math.IsNaN(v.num) || math.IsInf(v.num, 0) {
			return nil, fmt.Errorf("result %v is not a finite number", v.num)
		}
		// Float drift (0.29*100 is 28.999999999999996) must not make an
		// intended integer fail; anything further off is a real fraction.
		r := math.Round(v.num)
		if math.Abs(v.num-r) > rangeTol*math.Max(1, math.Abs(r)) {
			return nil, fmt.Errorf("result %s is not an integer, and %q is an int parameter; use round(), floor() or ceil()",
				simcore.FormatValue(v.num), p.Name)
		}
		raw = r
	case simcore.Float:
		if math.IsNaN(v.num) || math.IsInf(v.num, 0) {
			return nil, fmt.Errorf("result %v is not a finite number", v.num)
		}
		// Rounding to 15 significant digits keeps float drift (0.1*3 is
		// 0.30000000000000004) out of the parameters and so out of job IDs.
		raw = roundDigits(v.num, 15)
	case simcore.String:
		raw = v.str
	case simcore.Bool:
		raw = v.b
	}
	return p.Check(raw)
}

// describe names the axis values of the current point, with their lines.
func (w *walker) describe() string {
	if len(w.path) == 0 {
		return "the sweep's only point"
	}
	var parts []string
	for _, st := range w.path {
		for j, name := range st.a.names {
			parts = append(parts, fmt.Sprintf("%s=%s", name, label(st.a.points[st.i][j])))
		}
		parts[len(parts)-1] += fmt.Sprintf(" (line %d, value #%d)", st.a.line, st.i+1)
	}
	return strings.Join(parts, ", ")
}
