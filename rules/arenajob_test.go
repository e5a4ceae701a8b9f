package rules

import (
	"context"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"
	"testing/fstest"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/licensing"
	"github.com/altairalabs/omnia/rules/schema"
)

func arenaJobInt32(v int32) *int32 { return &v }

// arenaJobValid is a job that every ArenaJob rule accepts: a scheduled load
// test with every threshold form, providers in both modes and a
// same-namespace providerRef.
func arenaJobValid() *v1alpha1.ArenaJob {
	return &v1alpha1.ArenaJob{
		TypeMeta:   metav1.TypeMeta{APIVersion: "omnia.altairalabs.ai/v1alpha1", Kind: "ArenaJob"},
		ObjectMeta: metav1.ObjectMeta{Name: "nightly-load", Namespace: "arena"},
		Spec: v1alpha1.ArenaJobSpec{
			SourceRef:   v1alpha1.LocalObjectReference{Name: "load-source"},
			ArenaFile:   "evals/config.arena.yaml",
			Type:        v1alpha1.ArenaJobTypeLoadTest,
			BudgetLimit: "25.00",
			LoadTest: &v1alpha1.ArenaJobLoadTest{
				Concurrency: arenaJobInt32(50),
				Duration:    "10m",
				Rate:        arenaJobInt32(20),
				Ramp:        &v1alpha1.ArenaJobLoadTestRamp{Up: "2m", Down: "30s"},
				Thresholds: []v1alpha1.ArenaJobLoadTestThreshold{
					{Metric: v1alpha1.ArenaJobMetricLatencyP95, Operator: v1alpha1.ArenaJobOperatorLess, Value: "3s"},
					{Metric: v1alpha1.ArenaJobMetricTTFTAvg, Operator: v1alpha1.ArenaJobOperatorLess, Value: "500ms"},
					{Metric: v1alpha1.ArenaJobMetricErrorRate, Operator: v1alpha1.ArenaJobOperatorLessEqual, Value: "0.01"},
					{Metric: v1alpha1.ArenaJobMetricPassRate, Operator: v1alpha1.ArenaJobOperatorGreaterEqual, Value: "1"},
					{Metric: v1alpha1.ArenaJobMetricArrivalLag, Operator: v1alpha1.ArenaJobOperatorLess, Value: "0"},
					{Metric: v1alpha1.ArenaJobMetricTotalCost, Operator: v1alpha1.ArenaJobOperatorLess, Value: "50.00"},
				},
			},
			Providers: map[string]v1alpha1.ArenaJobProviderGroup{
				"default": {Entries: []v1alpha1.ArenaJobProviderEntry{
					{ProviderRef: &v1alpha1.NamespacedObjectReference{Name: "gpt4-prod"}},
					{AgentRef: &v1alpha1.LocalObjectReference{Name: "my-agent"}},
				}},
				"judge": {ByProviderID: map[string]v1alpha1.ArenaJobProviderEntry{
					"primary": {ProviderRef: &v1alpha1.NamespacedObjectReference{Name: "claude-opus", Namespace: "arena"}},
				}},
			},
			Schedule: &v1alpha1.ArenaJobSchedule{
				Cron:              "0 2 * * *",
				Timezone:          "America/New_York",
				ConcurrencyPolicy: v1alpha1.ArenaJobConcurrencyForbid,
			},
		},
	}
}

// arenaJobLicensedFacts grant every licence feature, unlimited: the rules
// of this file are judged apart from the licence gates (license_test.go).
var arenaJobLicensedFacts = licenseTestFacts{license: enterpriseLicense(licensing.Limits{})}

// arenaRunOf wraps a job's spec as a run's frozen template.
func arenaRunOf(job *v1alpha1.ArenaJob) *v1alpha1.ArenaRun {
	return &v1alpha1.ArenaRun{
		TypeMeta:   metav1.TypeMeta{APIVersion: "omnia.altairalabs.ai/v1alpha1", Kind: "ArenaRun"},
		ObjectMeta: metav1.ObjectMeta{Name: job.Name + "-x7k2p", Namespace: job.Namespace},
		Spec: v1alpha1.ArenaRunSpec{
			JobRef:   v1alpha1.LocalObjectReference{Name: job.Name},
			Trigger:  v1alpha1.ArenaRunTriggerSchedule,
			Template: *job.Spec.DeepCopy(),
		},
	}
}

// arenaJobGot renders findings as "<rule ID> <field>", sorted.
func arenaJobGot(fs []Finding) []string {
	out := make([]string, 0, len(fs))
	for _, f := range fs {
		out = append(out, f.RuleID+" "+f.Field)
	}
	sort.Strings(out)
	return out
}

func arenaJobWant(want []string) []string {
	out := slices.Clone(want)
	if out == nil {
		out = []string{}
	}
	sort.Strings(out)
	return out
}

func setThreshold(metric v1alpha1.ArenaJobThresholdMetric, value string) func(*v1alpha1.ArenaJob) {
	return func(j *v1alpha1.ArenaJob) {
		j.Spec.LoadTest.Thresholds = []v1alpha1.ArenaJobLoadTestThreshold{{Metric: metric, Operator: v1alpha1.ArenaJobOperatorLess, Value: value}}
	}
}

func TestArenaJobRules(t *testing.T) {
	const (
		valueFormat  = "arenajob/threshold-value-format"
		rateDuration = "arenajob/loadtest-rate-needs-duration"
		durationBad  = "arenajob/loadtest-duration-invalid"
		rampBad      = "arenajob/loadtest-ramp-invalid"
		exactlyOne   = "arenajob/provider-entry-exactly-one"
		refNamespace = "arenajob/provider-ref-namespace"
		cronBad      = "arenajob/schedule-cron-invalid"
		tzBad        = "arenajob/schedule-timezone-invalid"
	)
	cases := []struct {
		name   string
		mutate func(*v1alpha1.ArenaJob)
		old    func(*v1alpha1.ArenaJob)
		want   []string
	}{
		{name: "valid job", mutate: func(*v1alpha1.ArenaJob) {}},
		{name: "minimal job", mutate: func(j *v1alpha1.ArenaJob) {
			j.Spec = v1alpha1.ArenaJobSpec{SourceRef: v1alpha1.LocalObjectReference{Name: "src"}}
		}},
		{name: "valid update", mutate: func(j *v1alpha1.ArenaJob) { j.Spec.Suspend = true }, old: func(*v1alpha1.ArenaJob) {}},

		// threshold value formats
		{name: "latency duration accepted", mutate: setThreshold(v1alpha1.ArenaJobMetricLatencyAvg, "1m30s")},
		{name: "latency without unit", mutate: setThreshold(v1alpha1.ArenaJobMetricLatencyP99, "3"),
			want: []string{valueFormat + " spec.loadTest.thresholds[0].value"}},
		{name: "ttft negative duration", mutate: setThreshold(v1alpha1.ArenaJobMetricTTFTP50, "-1s"),
			want: []string{valueFormat + " spec.loadTest.thresholds[0].value"}},
		{name: "latency given a ratio", mutate: setThreshold(v1alpha1.ArenaJobMetricLatencyP50, "0.5"),
			want: []string{valueFormat + " spec.loadTest.thresholds[0].value"}},
		{name: "rate limit ratio accepted", mutate: setThreshold(v1alpha1.ArenaJobMetricRateLimitRate, "0.05")},
		{name: "error rate above 1", mutate: setThreshold(v1alpha1.ArenaJobMetricErrorRate, "50"),
			want: []string{valueFormat + " spec.loadTest.thresholds[0].value"}},
		{name: "pass rate negative", mutate: setThreshold(v1alpha1.ArenaJobMetricPassRate, "-0.1"),
			want: []string{valueFormat + " spec.loadTest.thresholds[0].value"}},
		{name: "arrival lag NaN", mutate: setThreshold(v1alpha1.ArenaJobMetricArrivalLag, "NaN"),
			want: []string{valueFormat + " spec.loadTest.thresholds[0].value"}},
		{name: "error rate given a duration", mutate: setThreshold(v1alpha1.ArenaJobMetricErrorRate, "2s"),
			want: []string{valueFormat + " spec.loadTest.thresholds[0].value"}},
		{name: "total cost accepted", mutate: setThreshold(v1alpha1.ArenaJobMetricTotalCost, "120")},
		{name: "total cost with currency symbol", mutate: setThreshold(v1alpha1.ArenaJobMetricTotalCost, "$50"),
			want: []string{valueFormat + " spec.loadTest.thresholds[0].value"}},
		{name: "total cost infinite", mutate: setThreshold(v1alpha1.ArenaJobMetricTotalCost, "+Inf"),
			want: []string{valueFormat + " spec.loadTest.thresholds[0].value"}},
		{name: "empty value", mutate: setThreshold(v1alpha1.ArenaJobMetricLatencyP90, ""),
			want: []string{valueFormat + " spec.loadTest.thresholds[0].value"}},
		{name: "unknown metric left to the schema", mutate: setThreshold("latency_p42", "whatever")},
		{name: "second of several thresholds", mutate: func(j *v1alpha1.ArenaJob) {
			j.Spec.LoadTest.Thresholds[2].Value = "2%"
		}, want: []string{valueFormat + " spec.loadTest.thresholds[2].value"}},

		// rate needs duration
		{name: "duration without rate", mutate: func(j *v1alpha1.ArenaJob) { j.Spec.LoadTest.Rate = nil }},
		{name: "rate without duration", mutate: func(j *v1alpha1.ArenaJob) { j.Spec.LoadTest.Duration = "" },
			want: []string{rateDuration + " spec.loadTest.duration"}},

		// duration and ramp
		{name: "duration unparseable", mutate: func(j *v1alpha1.ArenaJob) { j.Spec.LoadTest.Duration = "10 minutes" },
			want: []string{durationBad + " spec.loadTest.duration"}},
		{name: "duration zero", mutate: func(j *v1alpha1.ArenaJob) { j.Spec.LoadTest.Duration = "0s" },
			want: []string{durationBad + " spec.loadTest.duration"}},
		{name: "ramp up only", mutate: func(j *v1alpha1.ArenaJob) { j.Spec.LoadTest.Ramp = &v1alpha1.ArenaJobLoadTestRamp{Up: "1h"} }},
		{name: "ramp up unparseable", mutate: func(j *v1alpha1.ArenaJob) { j.Spec.LoadTest.Ramp.Up = "2 min" },
			want: []string{rampBad + " spec.loadTest.ramp.up"}},
		{name: "ramp both bad", mutate: func(j *v1alpha1.ArenaJob) {
			j.Spec.LoadTest.Ramp = &v1alpha1.ArenaJobLoadTestRamp{Up: "fast", Down: "-30s"}
		}, want: []string{rampBad + " spec.loadTest.ramp.up", rampBad + " spec.loadTest.ramp.down"}},

		// providers: exactly one of providerRef / agentRef
		{name: "array entry with neither", mutate: func(j *v1alpha1.ArenaJob) {
			g := j.Spec.Providers["default"]
			g.Entries = append(g.Entries, v1alpha1.ArenaJobProviderEntry{})
			j.Spec.Providers["default"] = g
		}, want: []string{exactlyOne + " spec.providers[default][2]"}},
		{name: "array entry with both", mutate: func(j *v1alpha1.ArenaJob) {
			j.Spec.Providers["default"].Entries[0].AgentRef = &v1alpha1.LocalObjectReference{Name: "my-agent"}
		}, want: []string{exactlyOne + " spec.providers[default][0]"}},
		{name: "map entry with neither", mutate: func(j *v1alpha1.ArenaJob) {
			j.Spec.Providers["judge"].ByProviderID["secondary"] = v1alpha1.ArenaJobProviderEntry{}
		}, want: []string{exactlyOne + " spec.providers[judge][secondary]"}},
		{name: "map entry with both", mutate: func(j *v1alpha1.ArenaJob) {
			j.Spec.Providers["selfplay"] = v1alpha1.ArenaJobProviderGroup{ByProviderID: map[string]v1alpha1.ArenaJobProviderEntry{
				"user": {ProviderRef: &v1alpha1.NamespacedObjectReference{Name: "p"}, AgentRef: &v1alpha1.LocalObjectReference{Name: "a"}},
			}}
		}, want: []string{exactlyOne + " spec.providers[selfplay][user]"}},
		{name: "empty array group", mutate: func(j *v1alpha1.ArenaJob) {
			j.Spec.Providers["empty"] = v1alpha1.ArenaJobProviderGroup{Entries: []v1alpha1.ArenaJobProviderEntry{}}
		}},

		// providers: providerRef.namespace
		{name: "providerRef in another namespace (array)", mutate: func(j *v1alpha1.ArenaJob) {
			j.Spec.Providers["default"].Entries[0].ProviderRef.Namespace = "shared"
		}, want: []string{refNamespace + " spec.providers[default][0].providerRef.namespace"}},
		{name: "providerRef in another namespace (map)", mutate: func(j *v1alpha1.ArenaJob) {
			j.Spec.Providers["judge"].ByProviderID["primary"].ProviderRef.Namespace = "shared"
		}, want: []string{refNamespace + " spec.providers[judge][primary].providerRef.namespace"}},
		{name: "providerRef namespace with no object namespace", mutate: func(j *v1alpha1.ArenaJob) {
			j.Namespace = ""
			j.Spec.Providers["default"].Entries[0].ProviderRef.Namespace = "shared"
		}},

		// schedule
		{name: "cron descriptor", mutate: func(j *v1alpha1.ArenaJob) { j.Spec.Schedule.Cron = "@daily" }},
		{name: "cron with six fields", mutate: func(j *v1alpha1.ArenaJob) { j.Spec.Schedule.Cron = "0 0 2 * * *" },
			want: []string{cronBad + " spec.schedule.cron"}},
		{name: "cron out of range", mutate: func(j *v1alpha1.ArenaJob) { j.Spec.Schedule.Cron = "0 25 * * *" },
			want: []string{cronBad + " spec.schedule.cron"}},
		{name: "timezone unknown", mutate: func(j *v1alpha1.ArenaJob) { j.Spec.Schedule.Timezone = "Mars/Olympus_Mons" },
			want: []string{tzBad + " spec.schedule.timezone"}},
		{name: "timezone unknown on unscheduled job", mutate: func(j *v1alpha1.ArenaJob) {
			j.Spec.Schedule.Cron = ""
			j.Spec.Schedule.Timezone = "Mars/Olympus_Mons"
		}},
		{name: "bad schedule on update", mutate: func(j *v1alpha1.ArenaJob) { j.Spec.Schedule.Cron = "every night" },
			old:  func(*v1alpha1.ArenaJob) {},
			want: []string{cronBad + " spec.schedule.cron"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			job := arenaJobValid()
			tc.mutate(job)
			in := Input{Object: job, Facts: arenaJobLicensedFacts}
			if tc.old != nil {
				old := arenaJobValid()
				tc.old(old)
				in.Old = old
			}
			got := arenaJobGot(Default.Evaluate(kindArenaJob, in, Options{}))
			if want := arenaJobWant(tc.want); !slices.Equal(got, want) {
				t.Errorf("findings:\n got %q\nwant %q", got, want)
			}
		})
	}
}

func TestArenaJobRulesOnArenaRun(t *testing.T) {
	bad := func(j *v1alpha1.ArenaJob) {
		j.Spec.LoadTest.Duration = ""                                                                                           // rate without duration
		j.Spec.LoadTest.Thresholds[0].Value = "3"                                                                               // latency without unit
		j.Spec.Providers["default"].Entries[1].ProviderRef = &v1alpha1.NamespacedObjectReference{Name: "p", Namespace: "other"} // both, cross-namespace
		j.Spec.Schedule.Cron = "never"                                                                                          // not read on a run
	}
	want := []string{
		"arenajob/loadtest-rate-needs-duration spec.template.loadTest.duration",
		"arenajob/provider-entry-exactly-one spec.template.providers[default][1]",
		"arenajob/provider-ref-namespace spec.template.providers[default][1].providerRef.namespace",
		"arenajob/threshold-value-format spec.template.loadTest.thresholds[0].value",
	}

	valid := arenaRunOf(arenaJobValid())
	if got := Default.Evaluate(kindArenaRun, Input{Object: valid, Facts: arenaJobLicensedFacts}, Options{}); len(got) != 0 {
		t.Errorf("valid run: unexpected findings %v", got)
	}

	badJob := arenaJobValid()
	bad(badJob)
	run := arenaRunOf(badJob)
	if got := arenaJobGot(Default.Evaluate(kindArenaRun, Input{Object: run, Facts: arenaJobLicensedFacts}, Options{})); !slices.Equal(got, arenaJobWant(want)) {
		t.Errorf("create:\n got %q\nwant %q", got, arenaJobWant(want))
	}

	// Cancelling a run leaves its frozen template as it was: nothing to refuse.
	cancelled := run.DeepCopy()
	cancelled.Spec.Cancelled = true
	if got := Default.Evaluate(kindArenaRun, Input{Object: cancelled, Old: run, Facts: arenaJobLicensedFacts}, Options{}); len(got) != 0 {
		t.Errorf("update leaving the template unchanged: unexpected findings %v", got)
	}

	// An update that changes the template is judged like a create.
	oldRun := arenaRunOf(arenaJobValid())
	if got := arenaJobGot(Default.Evaluate(kindArenaRun, Input{Object: run, Old: oldRun, Facts: arenaJobLicensedFacts}, Options{})); !slices.Equal(got, arenaJobWant(want)) {
		t.Errorf("update changing the template:\n got %q\nwant %q", got, arenaJobWant(want))
	}
}

func TestArenaJobRuleMetadata(t *testing.T) {
	both := []string{kindArenaJob, kindArenaRun}
	want := map[string]Rule{
		"arenajob/arena-file-no-glob":           {Kinds: both, Stage: StageAdmission, Severity: SeverityDeny, Source: SourceSchema},
		"arenajob/loadtest-budgetlimit-removed": {Kinds: both, Stage: StageAdmission, Severity: SeverityDeny, Source: SourceGo},
		"arenajob/threshold-value-format":       {Kinds: both, Stage: StageAdmission, Severity: SeverityDeny, Source: SourceGo},
		"arenajob/loadtest-rate-needs-duration": {Kinds: both, Stage: StageAdmission, Severity: SeverityDeny, Source: SourceGo},
		"arenajob/loadtest-duration-invalid":    {Kinds: both, Stage: StageAdmission, Severity: SeverityDeny, Source: SourceGo},
		"arenajob/loadtest-ramp-invalid":        {Kinds: both, Stage: StageAdmission, Severity: SeverityDeny, Source: SourceGo},
		"arenajob/provider-entry-exactly-one":   {Kinds: both, Stage: StageAdmission, Severity: SeverityDeny, Source: SourceGo, Condition: "Ready", Reason: "InvalidProviderEntry"},
		"arenajob/provider-ref-namespace":       {Kinds: both, Stage: StageAdmission, Severity: SeverityWarn, Source: SourceGo, Condition: "JobCreated", Reason: "JobCreationFailed"},
		"arenajob/schedule-cron-invalid":        {Kinds: []string{kindArenaJob}, Stage: StageAdmission, Severity: SeverityWarn, Source: SourceGo, Condition: "Ready", Reason: "InvalidSchedule"},
		"arenajob/schedule-timezone-invalid":    {Kinds: []string{kindArenaJob}, Stage: StageAdmission, Severity: SeverityWarn, Source: SourceGo, Condition: "Ready", Reason: "InvalidSchedule"},
		// The licence gates (license_arenajob.go, table in license_test.go).
		"arenajob/license-load-testing":        {Kinds: both, Stage: StageAdmission, Severity: SeverityDeny, Source: SourceGo, Condition: "Ready", Reason: "LicenseViolation"},
		"arenajob/license-data-generation":     {Kinds: both, Stage: StageAdmission, Severity: SeverityDeny, Source: SourceGo, Condition: "Ready", Reason: "LicenseViolation"},
		"arenajob/license-scheduling":          {Kinds: []string{kindArenaJob}, Stage: StageAdmission, Severity: SeverityDeny, Source: SourceGo, Condition: "Ready", Reason: "LicenseViolation"},
		"arenajob/license-distributed-workers": {Kinds: both, Stage: StageAdmission, Severity: SeverityDeny, Source: SourceGo, Condition: "Ready", Reason: "LicenseViolation"},
		"arenajob/license-max-worker-replicas": {Kinds: both, Stage: StageAdmission, Severity: SeverityDeny, Source: SourceGo, Condition: "Ready", Reason: "LicenseViolation"},
		"arenajob/license-max-scenarios":       {Kinds: []string{kindArenaRun}, Stage: StageReconcile, Severity: SeverityDeny, Source: SourceGo, Condition: "Ready", Reason: "LicenseViolation"},
	}
	var registered []string
	for _, r := range Default.Rules() {
		if !strings.HasPrefix(r.ID, "arenajob/") {
			continue
		}
		registered = append(registered, r.ID)
		w, ok := want[r.ID]
		if !ok {
			t.Errorf("%s: registered but not listed in this test", r.ID)
			continue
		}
		if !slices.Equal(r.Kinds, w.Kinds) || r.Stage != w.Stage || r.Severity != w.Severity || r.Source != w.Source ||
			r.Condition != w.Condition || r.Reason != w.Reason {
			t.Errorf("%s: got kinds %v stage %s severity %s source %s condition %q reason %q; want %v %s %s %s %q %q",
				r.ID, r.Kinds, r.Stage, r.Severity, r.Source, r.Condition, r.Reason,
				w.Kinds, w.Stage, w.Severity, w.Source, w.Condition, w.Reason)
		}
		if !strings.HasPrefix(r.Spec, "arenajob.md#") {
			t.Errorf("%s: spec %q is not a section of arenajob.md", r.ID, r.Spec)
		}
	}
	if len(registered) != len(want) {
		t.Errorf("registered %d arenajob rules %v, want %d", len(registered), registered, len(want))
	}
	// The removed field cannot be on a typed object: the check finds nothing
	// and the finding comes from the schema evaluator's Pruned list.
	if got := Default.Evaluate(kindArenaJob, Input{Object: arenaJobValid(), Facts: arenaJobLicensedFacts}, Options{}); len(got) != 0 {
		t.Errorf("valid job: unexpected findings %v", got)
	}
}

// arenaJobSchema compiles just the ArenaJob and ArenaRun CRDs.
func arenaJobSchema(t *testing.T) *schema.Validator {
	t.Helper()
	fsys := fstest.MapFS{}
	for _, f := range []string{"omnia.altairalabs.ai_arenajobs.yaml", "omnia.altairalabs.ai_arenaruns.yaml"} {
		data, err := os.ReadFile("../config/crd/bases/" + f)
		if err != nil {
			t.Fatal(err)
		}
		fsys[f] = &fstest.MapFile{Data: data}
	}
	sv, err := schema.New(fsys)
	if err != nil {
		t.Fatal(err)
	}
	return sv
}

// TestArenaJobSchemaEnforced pins the rules this file leaves to the schema:
// if a marker goes, a Go rule is needed.
func TestArenaJobSchemaEnforced(t *testing.T) {
	sv := arenaJobSchema(t)
	cases := []struct {
		name   string
		kind   string
		mutate func(u map[string]any)
		want   []string
		pruned []string
	}{
		{name: "valid job", kind: kindArenaJob, mutate: func(map[string]any) {}},
		{name: "arenaFile glob", kind: kindArenaJob, mutate: func(u map[string]any) { arenaJobSpecMap(u)["arenaFile"] = "evals/*.arena.yaml" },
			want: []string{"arenajob/arena-file-no-glob spec.arenaFile"}},
		{name: "budgetLimit with currency symbol", kind: kindArenaJob, mutate: func(u map[string]any) { arenaJobSpecMap(u)["budgetLimit"] = "$25.00" },
			want: []string{"arenajob/schema:spec.budgetLimit:pattern spec.budgetLimit"}},
		{name: "threshold metric and operator", kind: kindArenaJob, mutate: func(u map[string]any) {
			th := arenaJobSpecMap(u)["loadTest"].(map[string]any)["thresholds"].([]any)[0].(map[string]any)
			th["metric"], th["operator"] = "latency_p42", "=="
		}, want: []string{
			"arenajob/schema:spec.loadTest.thresholds[].metric:enum spec.loadTest.thresholds[0].metric",
			"arenajob/schema:spec.loadTest.thresholds[].operator:enum spec.loadTest.thresholds[0].operator",
		}},
		{name: "dataGen csv", kind: kindArenaJob, mutate: func(u map[string]any) {
			arenaJobSpecMap(u)["dataGen"] = map[string]any{"format": "csv"}
		}, want: []string{"arenajob/schema:spec.dataGen.format:enum spec.dataGen.format"}},
		{name: "concurrencyPolicy", kind: kindArenaJob, mutate: func(u map[string]any) {
			arenaJobSpecMap(u)["schedule"].(map[string]any)["concurrencyPolicy"] = "Sometimes"
		}, want: []string{"arenajob/schema:spec.schedule.concurrencyPolicy:enum spec.schedule.concurrencyPolicy"}},
		{name: "removed loadTest.budgetLimit is pruned", kind: kindArenaJob, mutate: func(u map[string]any) {
			arenaJobSpecMap(u)["loadTest"].(map[string]any)["budgetLimit"] = "25.00"
		}, pruned: []string{"spec.loadTest.budgetLimit"}},
		{name: "valid run", kind: kindArenaRun, mutate: func(map[string]any) {}},
		{name: "run arenaFile glob", kind: kindArenaRun, mutate: func(u map[string]any) { arenaJobSpecMap(u)["arenaFile"] = "a?.yaml" },
			want: []string{"arenajob/arena-file-no-glob spec.template.arenaFile"}},
		{name: "run removed loadTest.budgetLimit is pruned", kind: kindArenaRun, mutate: func(u map[string]any) {
			arenaJobSpecMap(u)["loadTest"].(map[string]any)["budgetLimit"] = "25.00"
		}, pruned: []string{"spec.template.loadTest.budgetLimit"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var obj any = arenaJobValid()
			if tc.kind == kindArenaRun {
				obj = arenaRunOf(arenaJobValid())
			}
			u := toUnstructured(t, obj)
			tc.mutate(u)
			res, err := ValidateSchema(context.Background(), sv, u, nil)
			if err != nil {
				t.Fatal(err)
			}
			// The API server's own "some validation rules were not checked"
			// note after an enum error is not a rule this test pins.
			findings := slices.DeleteFunc(slices.Clone(res.Findings), func(f Finding) bool {
				return strings.HasSuffix(f.RuleID, ":object:incomplete")
			})
			if got, want := arenaJobGot(findings), arenaJobWant(tc.want); !slices.Equal(got, want) {
				t.Errorf("schema findings:\n got %q\nwant %q", got, want)
			}
			pruned := slices.Clone(res.Pruned)
			sort.Strings(pruned)
			if want := arenaJobWant(tc.pruned); !slices.Equal(append([]string{}, pruned...), want) {
				t.Errorf("pruned: got %q, want %q", pruned, want)
			}
		})
	}
}

// arenaJobSpecMap returns the ArenaJobSpec of an unstructured job or run.
func arenaJobSpecMap(u map[string]any) map[string]any {
	spec := u["spec"].(map[string]any)
	if tmpl, ok := spec["template"].(map[string]any); ok {
		return tmpl
	}
	return spec
}

// TestArenaJobPrunedBudgetLimit: the removed spec.loadTest.budgetLimit, which
// the API server prunes before any webhook sees it, is reported through Full
// (omniactl, the deploy API) at its path, refused (kubectl apply refuses it
// as an unknown field) with its own message and not also as a generic
// unknown field; a job without it has no such finding.
func TestArenaJobPrunedBudgetLimit(t *testing.T) {
	sv, err := schema.Default()
	if err != nil {
		t.Fatal(err)
	}
	loadTest := func(obj any, withBudget bool) map[string]any {
		u := toUnstructured(t, obj)
		spec := arenaJobSpecMap(u)
		spec["type"] = "loadtest"
		lt := map[string]any{"concurrency": int64(2)}
		if withBudget {
			lt["budgetLimit"] = "25.00"
		}
		spec["loadTest"] = lt
		return u
	}
	cases := []struct {
		name  string
		obj   map[string]any
		field string // "" when no finding is expected
	}{
		{"job without the removed field", loadTest(arenaJobValid(), false), ""},
		{"job setting spec.loadTest.budgetLimit", loadTest(arenaJobValid(), true), "spec.loadTest.budgetLimit"},
		{"run without the removed field", loadTest(arenaRunOf(arenaJobValid()), false), ""},
		{"run setting it in its template", loadTest(arenaRunOf(arenaJobValid()), true), "spec.template.loadTest.budgetLimit"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fs, err := Full(context.Background(), sv, Default, tc.obj, nil, NoFacts{}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range fs {
				if f.RuleID == ArenaJobPrunedBudgetLimitRuleID {
					got = append(got, f.Field)
					if f.Severity != SeverityDeny || !strings.Contains(f.Message, "spec.budgetLimit") {
						t.Errorf("finding = %+v, want a denial saying to move it to spec.budgetLimit", f)
					}
				}
				if strings.HasSuffix(f.RuleID, "/schema:"+UnknownFieldName) {
					t.Errorf("the removed field is also reported as a generic unknown field: %v", f)
				}
			}
			want := []string{}
			if tc.field != "" {
				want = append(want, tc.field)
			}
			if !slices.Equal(append([]string{}, got...), want) {
				t.Errorf("%s findings at %v, want %v", ArenaJobPrunedBudgetLimitRuleID, got, want)
			}
		})
	}
}
