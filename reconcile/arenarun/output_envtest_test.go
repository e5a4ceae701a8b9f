package arenarun

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// The default output against the API server: the content controller
// (TestMain: ContentRoot a temporary directory, a fake clock) reconciles
// the runs labelled outputTestLabel=content; the default controller, with
// no content volume, every other run.

// outputTestLabel picks the controller of a run in these tests.
const outputTestLabel = "arena-test/output"

var (
	// contentRoot is the content controller's --workspace-content-path.
	contentRoot string
	// contentClock is the content controller's clock.
	contentClock = clocktesting.NewFakeClock(time.Now())
)

// contentClaim creates the namespace's workspace content claim.
func contentClaim(t *testing.T, ns string) {
	t.Helper()
	pvc := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: ContentClaimName(ns)},
		Spec: corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany},
			Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}}}}
	if err := direct.Create(context.Background(), pvc); err != nil {
		t.Fatal(err)
	}
}

// newRunFor creates a run for the controller named by label ("" : the
// default one), with meta's annotations and finalizers.
func newRunFor(t *testing.T, label, ns, name string, m metav1.ObjectMeta) *v1alpha1.ArenaRun {
	t.Helper()
	m.Namespace, m.Name = ns, name
	if label != "" {
		m.Labels = map[string]string{outputTestLabel: label}
	}
	run := &v1alpha1.ArenaRun{ObjectMeta: m, Spec: v1alpha1.ArenaRunSpec{JobRef: v1alpha1.LocalObjectReference{Name: "job"},
		Template: v1alpha1.ArenaJobSpec{SourceRef: v1alpha1.LocalObjectReference{Name: "proj"}}}}
	if err := direct.Create(context.Background(), run); err != nil {
		t.Fatal(err)
	}
	return run
}

// workerJob returns the run's worker Job: its volumes ("name=claim"), mounts
// ("volume:path:subPath:ro|rw") and environment.
func workerJob(t *testing.T, ns, name string) (volumes, mounts []string, env map[string]string) {
	t.Helper()
	job := &batchv1.Job{}
	if err := direct.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, job); err != nil {
		t.Fatal(err)
	}
	pod := job.Spec.Template.Spec
	for _, v := range pod.Volumes {
		if v.Name == WorkerTmpVolume {
			continue // every worker pod's /tmp (TestWorkerJobHardened)
		}
		volumes = append(volumes, v.Name+"="+v.PersistentVolumeClaim.ClaimName)
	}
	env = map[string]string{}
	for _, e := range pod.Containers[0].Env {
		env[e.Name] = e.Value
	}
	for _, m := range pod.Containers[0].VolumeMounts {
		if m.Name == WorkerTmpVolume {
			continue
		}
		mode := "rw"
		if m.ReadOnly {
			mode = "ro"
		}
		mounts = append(mounts, m.Name+":"+m.MountPath+":"+m.SubPath+":"+mode)
	}
	return volumes, mounts, env
}

// deleteAsPruned deletes the run as the ArenaJob controller's history
// pruning does (reconcile/arenajob prune), and waits until it is gone.
func deleteAsPruned(t *testing.T, run *v1alpha1.ArenaRun) {
	t.Helper()
	uid := run.UID
	if err := direct.Delete(context.Background(), run, client.Preconditions{UID: &uid},
		client.PropagationPolicy(metav1.DeletePropagationBackground)); err != nil {
		t.Fatal(err)
	}
	waitGone(t, run.Namespace, run.Name)
}

func waitGone(t *testing.T, ns, name string) {
	t.Helper()
	var last *v1alpha1.ArenaRun
	err := wait.PollUntilContextTimeout(context.Background(), 50*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		last = &v1alpha1.ArenaRun{}
		err := direct.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, last)
		return apierrors.IsNotFound(err), nil
	})
	if err != nil {
		t.Fatalf("run %s/%s never went away; finalizers %v", ns, name, last.Finalizers)
	}
}

func assertUnmarked(t *testing.T, run *v1alpha1.ArenaRun) {
	t.Helper()
	if _, ok := run.Annotations[OutputAnnotation]; ok || slices.Contains(run.Finalizers, OutputFinalizer) {
		t.Errorf("run marked: annotations %v finalizers %v", run.Annotations, run.Finalizers)
	}
}

const snapshotMount = "workspace-content:/arena-source:arena/sources/proj/.arena/versions/abababababababababababababababababababab:ro"

// With the content volume and the claim: the directory is made and the run
// marked before the Job, which mounts the directory read-write and the
// snapshot read-only; deleting the run (as history pruning does) removes
// the directory, the Job and then the run.
func TestDefaultOutputOnContentVolume(t *testing.T) {
	ns := namespace(t)
	readyProject(t, ns, "proj", nil)
	contentClaim(t, ns)
	newRunFor(t, "content", ns, "eval", metav1.ObjectMeta{})
	run := waitFor(t, ns, "eval", "Running", phaseIs(v1alpha1.ArenaRunPhaseRunning))
	if run.Annotations[OutputAnnotation] != "arena/runs/eval" || !slices.Contains(run.Finalizers, OutputFinalizer) {
		t.Fatalf("annotations %v finalizers %v", run.Annotations, run.Finalizers)
	}
	dir := filepath.Join(contentRoot, ns, "arena/runs/eval")
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o777 {
		t.Fatalf("output directory: %v %v", fi, err)
	}
	volumes, mounts, env := workerJob(t, ns, "eval")
	if !slices.Equal(volumes, []string{"workspace-content=" + ContentClaimName(ns)}) ||
		!slices.Equal(mounts, []string{snapshotMount, "workspace-content:/arena-output:arena/runs/eval:rw"}) {
		t.Fatalf("volumes %v mounts %v", volumes, mounts)
	}
	if env["ARENA_OUTPUT_TYPE"] != "default" || env["ARENA_OUTPUT_DIR"] != "/arena-output" || env["ARENA_SOURCE_DIR"] != "/arena-source" {
		t.Fatalf("env %v", env)
	}
	// A worker's results.
	if err := os.WriteFile(filepath.Join(dir, "results.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}

	deleteAsPruned(t, run)
	if _, err := os.Lstat(dir); !os.IsNotExist(err) {
		t.Errorf("output directory left: %v", err)
	}
	if err := direct.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "eval"}, &batchv1.Job{}); !apierrors.IsNotFound(err) {
		t.Errorf("worker Job left: %v", err)
	}
}

// The content volume but no claim in the namespace: nothing is mounted (a
// pod naming a missing claim is never scheduled), the run is not marked,
// and the output goes to scratch.
func TestDefaultOutputWithoutClaimIsScratch(t *testing.T) {
	ns := namespace(t)
	readyProject(t, ns, "proj", nil)
	newRunFor(t, "content", ns, "eval", metav1.ObjectMeta{})
	run := waitFor(t, ns, "eval", "Running", phaseIs(v1alpha1.ArenaRunPhaseRunning))
	assertUnmarked(t, run)
	if _, err := os.Lstat(filepath.Join(contentRoot, ns, "arena/runs/eval")); !os.IsNotExist(err) {
		t.Errorf("output directory made: %v", err)
	}
	volumes, mounts, env := workerJob(t, ns, "eval")
	if len(volumes)+len(mounts) != 0 || env["ARENA_OUTPUT_TYPE"] != "scratch" || env["ARENA_OUTPUT_DIR"] != ScratchOutputDir {
		t.Fatalf("volumes %v mounts %v env %v", volumes, mounts, env)
	}
}

// The directory cannot be made (a file in its place): the error is
// logged, the run is not marked, its output goes to scratch, and it runs.
func TestDefaultOutputDirectoryFailureIsScratch(t *testing.T) {
	ns := namespace(t)
	readyProject(t, ns, "proj", nil)
	contentClaim(t, ns)
	blocker := filepath.Join(contentRoot, ns, "arena/runs/eval")
	if err := os.MkdirAll(filepath.Dir(blocker), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(blocker, []byte("not a directory"), 0o644); err != nil {
		t.Fatal(err)
	}
	newRunFor(t, "content", ns, "eval", metav1.ObjectMeta{})
	run := waitFor(t, ns, "eval", "Running", phaseIs(v1alpha1.ArenaRunPhaseRunning))
	assertUnmarked(t, run)
	volumes, mounts, env := workerJob(t, ns, "eval")
	if !slices.Equal(volumes, []string{"workspace-content=" + ContentClaimName(ns)}) || !slices.Equal(mounts, []string{snapshotMount}) ||
		env["ARENA_OUTPUT_TYPE"] != "scratch" || env["ARENA_OUTPUT_DIR"] != ScratchOutputDir {
		t.Fatalf("volumes %v mounts %v env %v", volumes, mounts, env)
	}
	if b, err := os.ReadFile(blocker); err != nil || string(b) != "not a directory" {
		t.Errorf("the file in the directory's place changed: %q %v", b, err)
	}
	deleteAsPruned(t, run)
}

// A controller without a content volume marks no run; one that finds the
// finalizer on a deleted run (left by a controller that had the volume)
// releases it and leaves the directory.
func TestOutputWithoutContentVolume(t *testing.T) {
	ns := namespace(t)
	readyProject(t, ns, "proj", nil)
	contentClaim(t, ns)
	newRunFor(t, "", ns, "eval", metav1.ObjectMeta{})
	run := waitFor(t, ns, "eval", "Running", phaseIs(v1alpha1.ArenaRunPhaseRunning))
	assertUnmarked(t, run)
	volumes, mounts, env := workerJob(t, ns, "eval")
	if len(volumes)+len(mounts) != 0 || env["ARENA_OUTPUT_TYPE"] != "scratch" {
		t.Fatalf("volumes %v mounts %v env %v", volumes, mounts, env)
	}

	// A run marked by a controller that had the volume; its directory.
	dir := filepath.Join(contentRoot, ns, "arena/runs/marked")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	marked := newRunFor(t, "", ns, "marked", metav1.ObjectMeta{
		Annotations: map[string]string{OutputAnnotation: OutputDir("marked")}, Finalizers: []string{OutputFinalizer}})
	waitFor(t, ns, "marked", "Running", phaseIs(v1alpha1.ArenaRunPhaseRunning))
	deleteAsPruned(t, marked)
	if _, err := os.Stat(dir); err != nil {
		t.Errorf("the directory was not left: %v", err)
	}
}

// A removal that keeps failing (here the tenant replaced arena/runs with a
// link out of its subtree, which the controller refuses to follow) is
// retried with a Warning event, then given up after the timeout: the run is
// released with OutputLeft, and nothing outside the subtree is touched.
func TestOutputRemovalFailureReleasesAfterTimeout(t *testing.T) {
	ns := namespace(t)
	readyProject(t, ns, "proj", nil)
	contentClaim(t, ns)
	newRunFor(t, "content", ns, "eval", metav1.ObjectMeta{})
	run := waitFor(t, ns, "eval", "marked", func(r *v1alpha1.ArenaRun) bool {
		return r.Status.Phase == v1alpha1.ArenaRunPhaseRunning && outputMarked(r)
	})
	runs := filepath.Join(contentRoot, ns, "arena/runs")
	victim := filepath.Join(contentRoot, "victim-"+ns, "arena/runs/eval/results.json")
	if err := os.MkdirAll(filepath.Dir(victim), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(victim, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(runs); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../../victim-"+ns+"/arena/runs", runs); err != nil {
		t.Fatal(err)
	}

	if err := direct.Delete(context.Background(), run); err != nil {
		t.Fatal(err)
	}
	assertEvent(t, ns, "eval", EventOutputRemovalFailed)
	if r := get(t, ns, "eval"); !slices.Contains(r.Finalizers, OutputFinalizer) {
		t.Fatalf("released before the timeout: %v", r.Finalizers)
	}
	contentClock.SetTime(time.Now().Add(DefaultOutputRemovalTimeout + time.Minute))
	waitGone(t, ns, "eval")
	assertEvent(t, ns, "eval", EventOutputLeft)
	if _, err := os.Stat(victim); err != nil {
		t.Errorf("a file outside the subtree was touched: %v", err)
	}
}
