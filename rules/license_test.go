package rules

import (
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/licensing"
)

// licenseTestFacts answer a licence, a Workspace and a run's scenario count.
type licenseTestFacts struct {
	NoFacts
	license   License
	workspace *v1alpha1.Workspace
	scenarios int // 0: unknown
}

func (f licenseTestFacts) License() License { return f.license }

func (f licenseTestFacts) Workspace(ns string) (*v1alpha1.Workspace, bool) {
	if f.workspace != nil && f.workspace.Spec.Namespace.Name == ns {
		return f.workspace, true
	}
	return nil, false
}

func (f licenseTestFacts) ArenaRunScenarioCount(string, string) (int, bool) {
	return f.scenarios, f.scenarios > 0
}

// enterpriseLicense grants every feature with the given limits.
func enterpriseLicense(limits licensing.Limits) License {
	features := map[string]bool{}
	for _, f := range licensing.AllFeatures {
		features[f] = true
	}
	return License{Tier: licensing.TierEnterprise, Customer: "test", Features: features, Limits: &limits}
}

func licensedWith(features ...string) License {
	l := License{Tier: licensing.TierEnterprise, Features: map[string]bool{}, Limits: &licensing.Limits{}}
	for _, f := range features {
		l.Features[f] = true
	}
	return l
}

func arenaJobWorkspace(maxWorkers int32) *v1alpha1.Workspace {
	return &v1alpha1.Workspace{
		ObjectMeta: metav1.ObjectMeta{Name: "arena-ws"},
		Spec: v1alpha1.WorkspaceSpec{
			Namespace: v1alpha1.WorkspaceNamespace{Name: "arena"},
			Quotas:    &v1alpha1.WorkspaceQuotas{Arena: &v1alpha1.WorkspaceArenaQuota{MaxWorkersPerJob: &maxWorkers}},
		},
	}
}

// licenseEvalJob is an evaluation job without schedule: nothing to license.
func licenseEvalJob(mutate func(*v1alpha1.ArenaJob)) *v1alpha1.ArenaJob {
	j := &v1alpha1.ArenaJob{
		TypeMeta:   metav1.TypeMeta{APIVersion: "omnia.altairalabs.ai/v1alpha1", Kind: "ArenaJob"},
		ObjectMeta: metav1.ObjectMeta{Name: "eval", Namespace: "arena"},
		Spec: v1alpha1.ArenaJobSpec{
			SourceRef: v1alpha1.LocalObjectReference{Name: "src"},
			Type:      v1alpha1.ArenaJobTypeEvaluation,
		},
	}
	if mutate != nil {
		mutate(j)
	}
	return j
}

func withWorkers(n int32) func(*v1alpha1.ArenaJob) {
	return func(j *v1alpha1.ArenaJob) { j.Spec.Workers = &v1alpha1.ArenaJobWorkers{Replicas: &n} }
}

func TestLicenseGates(t *testing.T) {
	const (
		loadTest    = "arenajob/license-load-testing"
		dataGen     = "arenajob/license-data-generation"
		scheduling  = "arenajob/license-scheduling"
		distributed = "arenajob/license-distributed-workers"
		maxWorkers  = "arenajob/license-max-worker-replicas"
		maxScen     = "arenajob/license-max-scenarios"
		analysis    = "agentruntime/rollout-analysis-license"
		customFac   = "agentruntime/custom-facade-license"
		gitSource   = ArenaProjectGitSourceLicenseRuleID
	)
	openCore := licenseTestFacts{license: licensing.OpenCore()}
	loadtest := func(j *v1alpha1.ArenaJob) {
		j.Spec.Type = v1alpha1.ArenaJobTypeLoadTest
		j.Spec.LoadTest = &v1alpha1.ArenaJobLoadTest{Concurrency: arenaJobInt32(5)}
	}
	datagen := func(j *v1alpha1.ArenaJob) { j.Spec.Type = v1alpha1.ArenaJobTypeDataGen }
	scheduled := func(j *v1alpha1.ArenaJob) {
		j.Spec.Schedule = &v1alpha1.ArenaJobSchedule{Cron: "0 2 * * *", Timezone: "UTC"}
	}
	analysisAgent := func() *v1alpha1.AgentRuntime {
		ar := agentRuntimeBase()
		ar.Spec.Rollout = &v1alpha1.AgentRuntimeRollout{Steps: []v1alpha1.AgentRuntimeRolloutStep{
			{SetWeight: agentRuntimeInt32(10)},
			{Analysis: &v1alpha1.AgentRuntimeRolloutAnalysis{TemplateName: "quality"}},
		}}
		return ar
	}
	customAgent := func() *v1alpha1.AgentRuntime {
		ar := agentRuntimeBase()
		agentRuntimeCustomFacade(ar)
		return ar
	}

	project := func(url string) *v1alpha1.ArenaProject {
		p := &v1alpha1.ArenaProject{ObjectMeta: metav1.ObjectMeta{Name: "evals", Namespace: "arena"}}
		if url != "" {
			p.Spec.Git = &v1alpha1.ArenaProjectGitSource{URL: url}
		}
		return p
	}

	cases := []struct {
		name  string
		kind  string
		obj   runtime.Object
		old   runtime.Object
		facts licenseTestFacts
		want  []string
	}{
		{name: "evaluation job on open-core", kind: kindArenaJob, obj: licenseEvalJob(nil), facts: openCore},

		{name: "load test licensed", kind: kindArenaJob, obj: licenseEvalJob(loadtest), facts: licenseTestFacts{license: licensedWith(licensing.FeatureLoadTesting)}},
		{name: "load test on open-core", kind: kindArenaJob, obj: licenseEvalJob(loadtest), facts: openCore,
			want: []string{loadTest + " spec.type"}},
		{name: "load test run on open-core", kind: kindArenaRun, obj: arenaRunOf(licenseEvalJob(loadtest)), facts: openCore,
			want: []string{loadTest + " spec.template.type"}},

		{name: "datagen licensed", kind: kindArenaJob, obj: licenseEvalJob(datagen), facts: licenseTestFacts{license: licensedWith(licensing.FeatureDataGeneration)}},
		{name: "datagen licensed for load tests only", kind: kindArenaJob, obj: licenseEvalJob(datagen), facts: licenseTestFacts{license: licensedWith(licensing.FeatureLoadTesting)},
			want: []string{dataGen + " spec.type"}},

		{name: "schedule licensed", kind: kindArenaJob, obj: licenseEvalJob(scheduled), facts: licenseTestFacts{license: licensedWith(licensing.FeatureScheduling)}},
		{name: "schedule on open-core", kind: kindArenaJob, obj: licenseEvalJob(scheduled), facts: openCore,
			want: []string{scheduling + " spec.schedule.cron"}},
		{name: "unparsable cron on open-core schedules nothing", kind: kindArenaJob, obj: licenseEvalJob(func(j *v1alpha1.ArenaJob) {
			j.Spec.Schedule = &v1alpha1.ArenaJobSchedule{Cron: "every night", Timezone: "UTC"}
		}), facts: openCore},
		{name: "empty cron on open-core runs once", kind: kindArenaJob, obj: licenseEvalJob(func(j *v1alpha1.ArenaJob) {
			j.Spec.Schedule = &v1alpha1.ArenaJobSchedule{Timezone: "UTC"}
		}), facts: openCore},

		{name: "one worker on open-core", kind: kindArenaJob, obj: licenseEvalJob(withWorkers(1)), facts: openCore},
		{name: "three workers licensed", kind: kindArenaJob, obj: licenseEvalJob(withWorkers(3)), facts: licenseTestFacts{license: licensedWith(licensing.FeatureDistributedWorkers)}},
		{name: "three workers on open-core", kind: kindArenaJob, obj: licenseEvalJob(withWorkers(3)), facts: openCore,
			want: []string{distributed + " spec.workers.replicas", maxWorkers + " spec.workers.replicas"}},
		{name: "three workers licensed without a worker limit", kind: kindArenaJob, obj: licenseEvalJob(withWorkers(3)),
			facts: licenseTestFacts{license: licensedWith(licensing.FeatureDistributedWorkers)}},
		{name: "three workers capped to one by the workspace on open-core", kind: kindArenaJob, obj: licenseEvalJob(withWorkers(3)),
			facts: licenseTestFacts{license: licensing.OpenCore(), workspace: arenaJobWorkspace(1)}},

		{name: "workers within the licence limit", kind: kindArenaJob, obj: licenseEvalJob(withWorkers(4)),
			facts: licenseTestFacts{license: enterpriseLicense(licensing.Limits{MaxWorkerReplicas: 4})}},
		{name: "workers over the licence limit", kind: kindArenaJob, obj: licenseEvalJob(withWorkers(5)),
			facts: licenseTestFacts{license: enterpriseLicense(licensing.Limits{MaxWorkerReplicas: 4})},
			want:  []string{maxWorkers + " spec.workers.replicas"}},
		{name: "workers over the licence limit, capped under it by the workspace", kind: kindArenaJob, obj: licenseEvalJob(withWorkers(10)),
			facts: licenseTestFacts{license: enterpriseLicense(licensing.Limits{MaxWorkerReplicas: 4}), workspace: arenaJobWorkspace(3)}},
		{name: "workers over the licence limit on a run", kind: kindArenaRun, obj: arenaRunOf(licenseEvalJob(withWorkers(5))),
			facts: licenseTestFacts{license: enterpriseLicense(licensing.Limits{MaxWorkerReplicas: 4})},
			want:  []string{maxWorkers + " spec.template.workers.replicas"}},
		{name: "unlimited workers", kind: kindArenaJob, obj: licenseEvalJob(withWorkers(100)),
			facts: licenseTestFacts{license: enterpriseLicense(licensing.Limits{})}},

		{name: "scenarios within the open-core limit", kind: kindArenaRun, obj: arenaRunOf(licenseEvalJob(nil)),
			facts: licenseTestFacts{license: licensing.OpenCore(), scenarios: 10}},
		{name: "scenarios over the open-core limit", kind: kindArenaRun, obj: arenaRunOf(licenseEvalJob(nil)),
			facts: licenseTestFacts{license: licensing.OpenCore(), scenarios: 11},
			want:  []string{maxScen + " spec.template.scenarios"}},
		{name: "scenarios unlimited by the licence", kind: kindArenaRun, obj: arenaRunOf(licenseEvalJob(nil)),
			facts: licenseTestFacts{license: enterpriseLicense(licensing.Limits{}), scenarios: 500}},
		{name: "scenario count unknown", kind: kindArenaRun, obj: arenaRunOf(licenseEvalJob(nil)), facts: openCore},

		{name: "analysis step on enterprise", kind: kindAgentRuntime, obj: analysisAgent(), facts: licenseTestFacts{license: licensedWith()}},
		{name: "analysis step on open-core", kind: kindAgentRuntime, obj: analysisAgent(), facts: openCore,
			want: []string{analysis + " spec.rollout.steps[1].analysis"}},

		{name: "custom facade licensed", kind: kindAgentRuntime, obj: customAgent(), facts: licenseTestFacts{license: licensedWith(licensing.FeatureCustomFacade)}},
		{name: "custom facade on open-core", kind: kindAgentRuntime, obj: customAgent(), facts: openCore,
			want: []string{customFac + " spec.facades[0].type"}},

		{name: "hosted project on open-core", kind: kindArenaProject, obj: project(""), facts: openCore},
		{name: "external project licensed", kind: kindArenaProject, obj: project("https://git.example.com/evals.git"),
			facts: licenseTestFacts{license: licensedWith(licensing.FeatureGitSource)}},
		{name: "external project on open-core", kind: kindArenaProject, obj: project("https://git.example.com/evals.git"), facts: openCore,
			want: []string{gitSource + " spec.git"}},
		{name: "external project licensed for oci and s3 only", kind: kindArenaProject, obj: project("https://git.example.com/evals.git"),
			facts: licenseTestFacts{license: licensedWith(licensing.FeatureOCISource, licensing.FeatureS3Source)},
			want:  []string{gitSource + " spec.git"}},
	}
	gates := []string{loadTest, dataGen, scheduling, distributed, maxWorkers, maxScen, analysis, customFac, gitSource}
	covered := map[string][2]bool{}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, f := range Default.Evaluate(tc.kind, Input{Object: tc.obj, Old: tc.old, Facts: tc.facts}, Options{}) {
				if slices.Contains(gates, f.RuleID) {
					got = append(got, f.RuleID+" "+f.Field)
					if f.Message == "" {
						t.Errorf("%s: empty message", f.RuleID)
					}
				}
			}
			if want := arenaJobWant(tc.want); !slices.Equal(arenaJobWant(got), want) {
				t.Errorf("findings:\n got %q\nwant %q", got, want)
			}
		})
		for _, w := range tc.want {
			id, _, _ := strings.Cut(w, " ")
			c := covered[id]
			c[1] = true
			covered[id] = c
		}
	}
	// Each gate has a refused case above; its accepted case is the
	// licensed twin.
	for _, g := range gates {
		if !covered[g][1] {
			t.Errorf("gate %s has no refused case", g)
		}
	}
}

func TestLicenseGateMetadata(t *testing.T) {
	for _, id := range []string{
		"arenajob/license-load-testing", "arenajob/license-data-generation", "arenajob/license-scheduling",
		"arenajob/license-distributed-workers", "arenajob/license-max-worker-replicas", "arenajob/license-max-scenarios",
		ArenaProjectGitSourceLicenseRuleID,
	} {
		r, ok := Default.Lookup(id)
		if !ok {
			t.Fatalf("%s not registered", id)
		}
		if r.Reason != v1alpha1.ArenaRunReasonLicenseViolation || r.Condition != "Ready" || r.Severity != SeverityDeny {
			t.Errorf("%s: reason %q condition %q severity %s; want LicenseViolation on Ready, deny", id, r.Reason, r.Condition, r.Severity)
		}
	}
	if r, ok := Default.Lookup("agentruntime/rollout-analysis-license"); !ok || r.Stage != StageAdmission || r.Severity != SeverityDeny {
		t.Errorf("agentruntime/rollout-analysis-license: %+v", r)
	}
}

func TestLicenseFactsFollowTheSource(t *testing.T) {
	store := licensing.NewStore()
	f := LicenseFacts{Source: store}
	if f.License().Has(FeatureCustomFacade) {
		t.Fatal("empty store grants customFacade")
	}
	store.Set(licensing.State{License: licensedWith(FeatureCustomFacade), Verified: true})
	if !f.License().Has(FeatureCustomFacade) {
		t.Fatal("the facts did not follow the store")
	}
	if CurrentLicense(nil).MaxWorkerReplicas() != licensing.OpenCoreMaxWorkerReplicas {
		t.Fatal("a nil source is not open-core")
	}
}
