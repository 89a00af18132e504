package batch

import (
	"fmt"

	"schedfarm/simcore"
	"schedfarm/simcore/workload"
)

// synthetic draws the workload: synthetic jobs: a log of `jobs` jobs for
// a machine of `nodes` nodes with the statistics of the source log
// (`trace`): the probabilistic model's Weibull rhythm and joint bins
// fitted on the log as its own machine ran it (conv, with MaxSize set to
// the source machine here), sizes mapped onto the target machine
// (synth_sizes), submit times scaled to the offered load synth_load (0:
// the source log's on its own machine). The synth_* parameters are
// outside the instance seed (Algorithm in the schema), like the
// generator settings of the other models, so existing sweeps keep their
// instances and a sweep over synth_load scales the same draws.
func (m *Model) synthetic(p simcore.Params, seed uint64, nodes int, conv workload.Conventions) ([]workload.Job, workload.Stats, error) {
	var st workload.Stats
	if a := p.String("arrivals"); a != workload.ArrivalsFit {
		return nil, st, fmt.Errorf("workload synthetic: arrivals %s applies to the probabilistic workloads; synthetic sets its rhythm with synth_load", a)
	}
	name := p.String("trace")
	t, err := m.trace(name, p.Bool("lenient"))
	if err != nil {
		return nil, st, err
	}
	src := int(p.Int("synth_source_nodes"))
	if src == 0 {
		src = workload.MachineSize(t.Header)
	}
	conv.MaxSize = src // 0 (unknown): keep every job, the widest sets it
	log, st, err := workload.Convert(t.Records, conv)
	if err != nil {
		return nil, st, fmt.Errorf("workload synthetic: %s: %w", name, err)
	}
	if src == 0 {
		for _, j := range log {
			src = max(src, j.Size)
		}
	}
	if len(log) == 0 || src == 0 {
		return nil, st, fmt.Errorf("workload synthetic: %s: no jobs to fit", name)
	}
	n := int(p.Int("jobs"))
	if n == 0 {
		n = len(log)
	}
	load := p.Float("synth_load")
	if load == 0 {
		load = workload.OfferedLoad(log, src)
	}
	method := p.String("weibull_fit")
	fm, err := m.fit(log, fmt.Sprintf("%s\x00%v\x00%+v\x00%s", name, p.Bool("lenient"), conv, method), method)
	if err != nil {
		return nil, st, err
	}
	jobs, err := fm.GenerateSynthetic(n, seed, workload.Synthetic{
		Gen:         workload.GenOptions{Values: p.String("bin_values"), RunPastRequest: p.Bool("run_past_request")},
		SourceNodes: src, Nodes: nodes, Sizes: p.String("synth_sizes"), Load: load,
	})
	if err != nil {
		return nil, st, fmt.Errorf("workload synthetic: %s: %w", name, err)
	}
	return jobs, workload.Stats{Jobs: n, TooWide: st.TooWide}, nil
}
