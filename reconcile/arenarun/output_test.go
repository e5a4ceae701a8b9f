package arenarun

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	cradmission "sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	webhook "github.com/altairalabs/omnia/admission"
	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/rules"
)

func TestOutputRemovalRetry(t *testing.T) {
	del := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		name   string
		since  time.Duration
		giveUp bool
		after  time.Duration
	}{
		{"right after the deletion: 1s", 0, false, time.Second},
		{"a clock behind the API server's: 1s", -5 * time.Second, false, time.Second},
		{"grows with the time since the deletion", 20 * time.Second, false, 20 * time.Second},
		{"capped at a minute", 5 * time.Minute, false, time.Minute},
		{"just under the timeout: still retried", 10*time.Minute - time.Second, false, time.Minute},
		{"at the timeout: given up", 10 * time.Minute, true, 0},
		{"long after: given up", time.Hour, true, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			giveUp, after := outputRemovalRetry(del, del.Add(c.since), 10*time.Minute)
			if giveUp != c.giveUp || after != c.after {
				t.Errorf("got (%v, %s), want (%v, %s)", giveUp, after, c.giveUp, c.after)
			}
		})
	}
}

func TestDefaultOutput(t *testing.T) {
	cases := []struct {
		name string
		out  *v1alpha1.ArenaJobOutput
		want bool
	}{
		{"no output", nil, true},
		{"pvc", &v1alpha1.ArenaJobOutput{Type: "pvc", PVC: &v1alpha1.ArenaJobOutputPVC{ClaimName: "c"}}, false},
		{"s3", &v1alpha1.ArenaJobOutput{Type: "s3", S3: &v1alpha1.ArenaJobOutputS3{Bucket: "b"}}, false},
		{"pvc type without its block (the builder writes no pvc mount)", &v1alpha1.ArenaJobOutput{Type: "pvc"}, true},
	}
	for _, c := range cases {
		if got := defaultOutput(&v1alpha1.ArenaJobSpec{Output: c.out}); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

// TestOutputDirOnDisk: the directory is made (0777) and removed inside the
// namespace's subtree only, whatever the names or the links in the tree.
func TestOutputDirOnDisk(t *testing.T) {
	type layout func(t *testing.T, root string)
	file := func(rel string) layout {
		return func(t *testing.T, root string) {
			p := filepath.Join(root, rel)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	link := func(rel, target string) layout {
		return func(t *testing.T, root string) {
			p := filepath.Join(root, rel)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, p); err != nil {
				t.Fatal(err)
			}
		}
	}
	cases := []struct {
		name      string
		ns, run   string
		before    []layout
		makeErr   bool
		created   bool
		removeErr bool
		// kept must still exist after both calls.
		kept []string
	}{
		{name: "a new workspace subtree and directory", ns: "team", run: "eval-1", created: true},
		{name: "an existing directory is kept, its files removed on removal", ns: "team", run: "eval-1",
			before: []layout{file("team/arena/runs/eval-1/results.json")}, created: false},
		{name: "a file in the directory's place", ns: "team", run: "eval-1",
			before: []layout{file("team/arena/runs/eval-1")}, makeErr: true},
		{name: "arena/runs linked out of the subtree: nothing made or removed there", ns: "team", run: "eval-1",
			before:  []layout{file("other/arena/runs/eval-1/results.json"), link("team/arena/runs", "../../other/arena/runs")},
			makeErr: true, removeErr: true, kept: []string{"other/arena/runs/eval-1/results.json"}},
		{name: "the run's directory is a link inside the subtree: refused, only the link removed", ns: "team", run: "eval-1",
			before:  []layout{file("team/keep/results.json"), link("team/arena/runs/eval-1", "../../keep")},
			makeErr: true, kept: []string{"team/keep/results.json"}},
		{name: "the namespace folder linked to another namespace's, inside the root: nothing made or removed there", ns: "team", run: "eval-1",
			before:  []layout{file("other/arena/runs/eval-1/results.json"), link("team", "other")},
			makeErr: true, removeErr: true, kept: []string{"other/arena/runs/eval-1/results.json"}},
		{name: "arena linked to another namespace's arena: nothing made or removed there", ns: "team", run: "eval-1",
			before:  []layout{file("other/arena/runs/eval-1/results.json"), link("team/arena", "../other/arena")},
			makeErr: true, removeErr: true, kept: []string{"other/arena/runs/eval-1/results.json"}},
		{name: "arena/runs linked inside the subtree: refused, nothing removed through it", ns: "team", run: "eval-1",
			before:  []layout{file("team/keep/eval-1/results.json"), link("team/arena/runs", "../keep")},
			makeErr: true, removeErr: true, kept: []string{"team/keep/eval-1/results.json"}},
		{name: "a run name that is no DNS name", ns: "team", run: "../other", makeErr: true, removeErr: true},
		{name: "a namespace that is no DNS label", ns: "..", run: "eval-1", makeErr: true, removeErr: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			for _, l := range c.before {
				l(t, root)
			}
			dir := filepath.Join(root, c.ns, "arena/runs", c.run)
			created, err := makeOutputDir(root, c.ns, c.run)
			if (err != nil) != c.makeErr {
				t.Fatalf("makeOutputDir: %v, want error %v", err, c.makeErr)
			}
			if err == nil {
				fi, statErr := os.Lstat(dir)
				if statErr != nil || !fi.IsDir() || created != c.created {
					t.Fatalf("directory %v %v, created %v (want %v)", fi, statErr, created, c.created)
				}
				if c.created && fi.Mode().Perm() != 0o777 {
					t.Errorf("mode %v, want 0777", fi.Mode().Perm())
				}
			}
			err = removeOutputDir(root, c.ns, c.run)
			if (err != nil) != c.removeErr {
				t.Fatalf("removeOutputDir: %v, want error %v", err, c.removeErr)
			}
			if err == nil {
				if _, statErr := os.Lstat(dir); !os.IsNotExist(statErr) {
					t.Errorf("%s still there: %v", dir, statErr)
				}
			}
			for _, k := range c.kept {
				if _, err := os.Stat(filepath.Join(root, k)); err != nil {
					t.Errorf("%s: %v", k, err)
				}
			}
		})
	}
	t.Run("no subtree: nothing to remove; no content root: an error", func(t *testing.T) {
		root := t.TempDir()
		if err := removeOutputDir(root, "team", "eval-1"); err != nil {
			t.Errorf("no subtree: %v", err)
		}
		if err := removeOutputDir(filepath.Join(root, "missing"), "team", "eval-1"); err == nil {
			t.Error("a missing content root removed nothing without an error")
		}
	})
}

// TestWebhookAdmitsOutputMarking: the ArenaRun webhook never refuses the
// controller's metadata writes: marking a run (annotation and finalizer) and
// removing the finalizer of a deleted run, even from a run the catalog now
// refuses (here: a load test under the open-core licence).
func TestWebhookAdmitsOutputMarking(t *testing.T) {
	scheme := runtime.NewScheme()
	_ = v1alpha1.AddToScheme(scheme)
	h := webhook.Handlers(scheme, &webhook.Config{Catalog: rules.Default, Mode: webhook.ModeEnforce,
		Facts: rules.LicenseFacts{}, Metrics: webhook.NewMetrics(prometheus.NewRegistry())})["ArenaRun"]
	stored := &v1alpha1.ArenaRun{
		TypeMeta:   metav1.TypeMeta{APIVersion: v1alpha1.GroupVersion.String(), Kind: "ArenaRun"},
		ObjectMeta: metav1.ObjectMeta{Name: "load", Namespace: "team", Generation: 1},
		Spec: v1alpha1.ArenaRunSpec{JobRef: v1alpha1.LocalObjectReference{Name: "load"},
			Template: v1alpha1.ArenaJobSpec{Type: v1alpha1.ArenaJobTypeLoadTest, SourceRef: v1alpha1.LocalObjectReference{Name: "proj"}}},
	}
	marked := stored.DeepCopy()
	marked.Annotations = map[string]string{OutputAnnotation: OutputDir("load")}
	marked.Finalizers = []string{OutputFinalizer}
	deleting := marked.DeepCopy()
	deleting.DeletionTimestamp = &metav1.Time{Time: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	released := deleting.DeepCopy()
	released.Finalizers = nil

	raw := func(o *v1alpha1.ArenaRun) runtime.RawExtension {
		b, err := json.Marshal(o)
		if err != nil {
			t.Fatal(err)
		}
		return runtime.RawExtension{Raw: b}
	}
	cases := []struct {
		name    string
		op      admissionv1.Operation
		obj     *v1alpha1.ArenaRun
		old     *v1alpha1.ArenaRun
		allowed bool
	}{
		{"the run created is refused (the licence gate denies)", admissionv1.Create, stored, nil, false},
		{"marking it (annotation and finalizer) is admitted", admissionv1.Update, marked, stored, true},
		{"removing the finalizer of the deleted run is admitted", admissionv1.Update, released, deleting, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req := cradmission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
				UID: "u", Operation: c.op, Namespace: "team", Name: "load",
				Kind:   metav1.GroupVersionKind{Group: v1alpha1.GroupVersion.Group, Version: v1alpha1.GroupVersion.Version, Kind: "ArenaRun"},
				Object: raw(c.obj)}}
			if c.old != nil {
				req.OldObject = raw(c.old)
			}
			resp := h.Handle(t.Context(), req)
			if resp.Allowed != c.allowed {
				t.Fatalf("allowed %v, want %v: %+v", resp.Allowed, c.allowed, resp.Result)
			}
			if !c.allowed && (resp.Result == nil || resp.Result.Code != http.StatusUnprocessableEntity ||
				!strings.Contains(resp.Result.Message, "arenajob/license-load-testing")) {
				t.Fatalf("refusal %+v", resp.Result)
			}
		})
	}
}
