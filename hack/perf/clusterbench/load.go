package clusterbench

import "github.com/altairalabs/omnia/hack/perf/perfreport"

// ControllerLoad is, per controller, what the operator's own metrics say
// about its work so far: reconciles, seconds spent reconciling, and the
// number of workers (max concurrent reconciles). Seconds over workers is
// the least wall time that work could take.
type ControllerLoad struct {
	Reconciles, Seconds, Workers float64
}

// ControllerLoads reads controller_runtime_reconcile_total,
// controller_runtime_reconcile_time_seconds_sum and
// controller_runtime_max_concurrent_reconciles by controller.
func ControllerLoads(body string) (map[string]*ControllerLoad, error) {
	out := map[string]*ControllerLoad{}
	get := func(name string) *ControllerLoad {
		if out[name] == nil {
			out[name] = &ControllerLoad{}
		}
		return out[name]
	}
	for _, m := range []struct {
		metric string
		add    func(l *ControllerLoad, v float64)
	}{
		{"controller_runtime_reconcile_total", func(l *ControllerLoad, v float64) { l.Reconciles += v }},
		{"controller_runtime_reconcile_time_seconds_sum", func(l *ControllerLoad, v float64) { l.Seconds += v }},
		{"controller_runtime_max_concurrent_reconciles", func(l *ControllerLoad, v float64) { l.Workers = v }},
	} {
		samples, err := perfreport.Samples(body, m.metric)
		if err != nil {
			return nil, err
		}
		for _, s := range samples {
			m.add(get(s.Labels["controller"]), s.Value)
		}
	}
	return out, nil
}
