package arenarun

// The default output (arenajob.md § "Without output"): a run whose job sets
// no output keeps its engine output on the workspace content volume, in
// arena/runs/<run> of the workspace's content subtree.
//
// Where the volume is. The operator mounts the workspace content volume at
// --workspace-content-path (Options.ContentRoot); <root>/<namespace> is a
// workspace's content subtree. A worker pod reaches the same subtree
// through the workspace content claim, workspace-<namespace>-content
// (ContentClaimName, the claim agentruntime.md names), whose root is that
// subtree. So a path relative to the subtree (status.source.contentPath,
// arena/runs/<run>) is the same path as a subPath of the claim.
//
// What the controller does, before the worker Job is created, when it has
// a content root and the run's namespace has the claim:
//   - the worker pods mount the claim: the run's snapshot
//     (status.source.contentPath) read-only at SourceMountPath, for every
//     output type;
//   - for the default output, it creates <root>/<namespace>/arena/runs/<run>
//     (mode 0777: the workers run as a user the operator does not know),
//     then marks the run with the annotation OutputAnnotation and the
//     finalizer OutputFinalizer, and the pods mount that directory
//     read-write at OutputMountPath (subPath arena/runs/<run>).
//
// Any failure on that path (no claim, the directory cannot be made, the
// run cannot be marked) is logged and the run goes on with its output on
// the worker's scratch space (ARENA_OUTPUT_TYPE=scratch,
// ARENA_OUTPUT_DIR=ScratchOutputDir, no mount). A claim that does not exist
// is not mounted at all: a pod naming a missing claim is never scheduled.
//
// Deleting a marked run (by hand, or by the ArenaJob's history limits) deletes
// its worker Job, removes the directory, then the finalizer. A removal that
// fails is retried (Warning event OutputRemovalFailed, backoff 1s to 1m)
// until Options.OutputRemovalTimeout (10 minutes) after the deletion; then
// the run is released anyway (Warning event OutputLeft) and the directory
// is left for the cluster operator to remove. A controller without a content
// root that finds the finalizer logs and releases the run, leaving the
// directory.
//
// The tenant writes its content subtree, so paths are built with care: the
// namespace and run names must be DNS names, and every file operation goes
// through an os.Root opened from <root> down one component at a time, each
// a real directory (source.OpenDirNoLinks): no symbolic link the tenant
// planted — <root>/<namespace> itself, or arena, or arena/runs — is
// followed, so the controller creates or removes nothing outside that
// workspace's subtree.

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/reconcile/arenaproject/source"
)

// +kubebuilder:rbac:groups=omnia.altairalabs.ai,resources=arenaruns,verbs=get;list;watch;patch
// +kubebuilder:rbac:groups=omnia.altairalabs.ai,resources=arenaruns/finalizers,verbs=update
// +kubebuilder:rbac:groups="",resources=persistentvolumeclaims,verbs=get

const (
	// OutputAnnotation marks a run whose default output is on the content
	// volume; its value is the directory, OutputDir(run).
	OutputAnnotation = "arena.omnia.altairalabs.ai/output"
	// OutputFinalizer holds a marked run until its directory is removed.
	OutputFinalizer = "arena.omnia.altairalabs.ai/output"
	// OutputMountPath is where the worker pods find their output directory
	// (the default output on the content volume, or a pvc output).
	OutputMountPath = "/arena-output"
	// SourceMountPath is where the worker pods find the run's snapshot,
	// read-only, when they mount the content claim.
	SourceMountPath = "/arena-source"
	// ScratchOutputDir is ARENA_OUTPUT_DIR of a default output that is not
	// on the content volume: the container's own filesystem, gone with the
	// pod.
	ScratchOutputDir = "/tmp/arena-output"
	// ContentVolumeName is the worker pod's volume of the content claim.
	ContentVolumeName = "workspace-content"
	// DefaultOutputRemovalTimeout: how long after a run's deletion a failing
	// removal of its directory is retried before the run is released.
	DefaultOutputRemovalTimeout = 10 * time.Minute
	// EventOutputRemovalFailed (Warning): the directory could not be
	// removed; retried.
	EventOutputRemovalFailed = "OutputRemovalFailed"
	// EventOutputLeft (Warning): the run was released with its directory
	// left on the volume.
	EventOutputLeft = "OutputLeft"
)

// ContentClaimName is the workspace content claim of namespace.
func ContentClaimName(namespace string) string { return "workspace-" + namespace + "-content" }

// OutputDir is a run's default output directory, relative to the workspace
// content subtree (and to the root of its content claim).
func OutputDir(run string) string { return "arena/runs/" + run }

// ContentVolume is what a worker pod mounts from the workspace content claim.
type ContentVolume struct {
	// Claim is the claim to mount; empty: the pod mounts no content volume.
	Claim string
	// Output mounts the run's directory read-write at OutputMountPath (the
	// run is marked); otherwise a default output goes to scratch.
	Output bool
}

// defaultOutput reports whether the template's output is the default one
// (no pvc, no s3).
func defaultOutput(t *v1alpha1.ArenaJobSpec) bool {
	out := t.Output
	return out == nil || !(out.Type == v1alpha1.ArenaJobOutputTypePVC && out.PVC != nil) && !(out.Type == v1alpha1.ArenaJobOutputTypeS3 && out.S3 != nil)
}

// outputMarked reports whether the run carries both halves of the marker.
func outputMarked(run *v1alpha1.ArenaRun) bool {
	return run.Annotations[OutputAnnotation] == OutputDir(run.Name) && controllerutil.ContainsFinalizer(run, OutputFinalizer)
}

// prepareOutput decides the run's content mounts for the worker Job about
// to be built, and before the Job exists makes the run's output directory
// and marks the run. Returned errors are retried: a failed read of the
// claim, a conflict marking the run (a stale read). Every other failure is
// logged and leaves the output on scratch.
func (r *Reconciler) prepareOutput(ctx context.Context, run *v1alpha1.ArenaRun, st *v1alpha1.ArenaRunStatus) (ContentVolume, error) {
	if r.opts.ContentRoot == "" {
		return ContentVolume{}, nil
	}
	claim := ContentClaimName(run.Namespace)
	if st.StartTime != nil {
		// The Job was created: its mounts were decided then. A marked run
		// had the claim.
		if outputMarked(run) {
			return ContentVolume{Claim: claim, Output: defaultOutput(&run.Spec.Template)}, nil
		}
		return ContentVolume{}, nil
	}
	log := logf.FromContext(ctx)
	// Read past the cache: the decision is made once, and a claim created
	// just before the run must count.
	pvc := &metav1.PartialObjectMetadata{}
	pvc.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("PersistentVolumeClaim"))
	if err := r.secrets.Get(ctx, client.ObjectKey{Namespace: run.Namespace, Name: claim}, pvc); err != nil {
		if !apierrors.IsNotFound(err) {
			return ContentVolume{}, fmt.Errorf("reading the workspace content claim %s: %w", claim, err)
		}
		log.Info("the workspace content claim does not exist: the workers mount no content and write their output to scratch", "claim", claim)
		return ContentVolume{}, nil
	}
	cv := ContentVolume{Claim: claim}
	if !defaultOutput(&run.Spec.Template) {
		return cv, nil
	}
	created, err := makeOutputDir(r.opts.ContentRoot, run.Namespace, run.Name)
	if err != nil {
		log.Error(err, "cannot create the run's output directory: the workers write their output to scratch", "dir", OutputDir(run.Name))
		return cv, nil
	}
	if !outputMarked(run) {
		if err := r.markOutput(ctx, run); err != nil {
			if apierrors.IsConflict(err) {
				return cv, err
			}
			log.Error(err, "cannot mark the run for its output directory: the workers write their output to scratch", "dir", OutputDir(run.Name))
			if created {
				// Nothing would remove it: the run has no finalizer.
				_ = removeOutputDir(r.opts.ContentRoot, run.Namespace, run.Name)
			}
			return cv, nil
		}
	}
	cv.Output = true
	return cv, nil
}

// markOutput adds the annotation and the finalizer (optimistic lock: a
// stale run conflicts), and copies them and the new resourceVersion into run.
func (r *Reconciler) markOutput(ctx context.Context, run *v1alpha1.ArenaRun) error {
	marked := run.DeepCopy()
	if marked.Annotations == nil {
		marked.Annotations = map[string]string{}
	}
	marked.Annotations[OutputAnnotation] = OutputDir(run.Name)
	controllerutil.AddFinalizer(marked, OutputFinalizer)
	if err := r.client.Patch(ctx, marked, client.MergeFromWithOptions(run, client.MergeFromWithOptimisticLock{})); err != nil {
		return err
	}
	run.Annotations, run.Finalizers, run.ResourceVersion = marked.Annotations, marked.Finalizers, marked.ResourceVersion
	return nil
}

// releaseOutput handles a run whose deletion has begun: a marked run's
// worker Job is deleted, its directory removed (retried, then given up: see
// outputRemovalRetry), and its finalizer removed.
func (r *Reconciler) releaseOutput(ctx context.Context, run *v1alpha1.ArenaRun) (ctrl.Result, error) {
	if !controllerutil.ContainsFinalizer(run, OutputFinalizer) {
		return ctrl.Result{}, nil
	}
	log := logf.FromContext(ctx)
	dir := OutputDir(run.Name)
	if r.opts.ContentRoot == "" {
		log.Info("releasing the deleted run: this controller has no workspace content volume (--workspace-content-path), so its output directory is left", "dir", dir)
		return ctrl.Result{}, r.dropOutputFinalizer(ctx, run)
	}
	// No worker may write (or, starting, recreate) the directory once it
	// is removed.
	job := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: JobName(run), Namespace: run.Namespace}}
	if err := r.client.Delete(ctx, job, client.PropagationPolicy(metav1.DeletePropagationBackground)); err != nil && !apierrors.IsNotFound(err) {
		return ctrl.Result{}, fmt.Errorf("deleting the worker Job: %w", err)
	}
	if err := removeOutputDir(r.opts.ContentRoot, run.Namespace, run.Name); err != nil {
		giveUp, after := outputRemovalRetry(run.DeletionTimestamp.Time, r.opts.Clock.Now(), r.opts.OutputRemovalTimeout)
		if !giveUp {
			log.Error(err, "cannot remove the deleted run's output directory; retrying", "dir", dir, "after", after)
			r.outputEvent(run, corev1.EventTypeWarning, EventOutputRemovalFailed,
				fmt.Sprintf("cannot remove the output directory %s: %v; retrying", dir, err))
			return ctrl.Result{RequeueAfter: after}, nil
		}
		log.Error(err, "giving up removing the deleted run's output directory; releasing the run", "dir", dir)
		r.outputEvent(run, corev1.EventTypeWarning, EventOutputLeft,
			fmt.Sprintf("gave up removing the output directory %s after %s (%v): the run is released and the directory is left on the workspace content volume", dir, r.opts.OutputRemovalTimeout, err))
	}
	return ctrl.Result{}, r.dropOutputFinalizer(ctx, run)
}

func (r *Reconciler) outputEvent(run *v1alpha1.ArenaRun, typ, reason, note string) {
	if r.recorder != nil {
		r.recorder.Eventf(run, nil, typ, reason, "Delete", "%s", note)
	}
}

// dropOutputFinalizer removes the finalizer (optimistic lock: another
// finalizer added meanwhile is kept; a conflict is retried).
func (r *Reconciler) dropOutputFinalizer(ctx context.Context, run *v1alpha1.ArenaRun) error {
	released := run.DeepCopy()
	controllerutil.RemoveFinalizer(released, OutputFinalizer)
	err := r.client.Patch(ctx, released, client.MergeFromWithOptions(run, client.MergeFromWithOptimisticLock{}))
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("removing the finalizer %s: %w", OutputFinalizer, err)
	}
	return nil
}

// outputRemovalRetry decides what follows a failed removal of a deleted
// run's directory at now: retry after a backoff that grows with the time
// since the deletion (1s to 1m) while that time is under timeout, then give
// up. Pure.
func outputRemovalRetry(deletedAt, now time.Time, timeout time.Duration) (giveUp bool, after time.Duration) {
	since := now.Sub(deletedAt)
	if since >= timeout {
		return true, 0
	}
	return false, min(max(since, time.Second), time.Minute)
}

// errNoSubtree: the content root has no directory for the namespace.
var errNoSubtree = errors.New("the workspace has no content subtree")

// workspaceRoot opens <root>/<namespace> through an os.Root of root, the
// namespace directory a real directory, never a symbolic link (one to
// another namespace's folder stays inside root, where os.Root would follow
// it: source.OpenDirNoLinks refuses it). create makes it when missing;
// otherwise a missing one is errNoSubtree (a missing root is an error of
// its own).
func workspaceRoot(root, namespace string, create bool) (*os.Root, error) {
	if errs := validation.IsDNS1123Label(namespace); len(errs) > 0 {
		return nil, fmt.Errorf("namespace %q: %s", namespace, strings.Join(errs, "; "))
	}
	top, err := os.OpenRoot(root)
	if err != nil {
		return nil, fmt.Errorf("opening the workspace content volume: %w", err)
	}
	defer func() { _ = top.Close() }()
	ws, err := source.OpenDirNoLinks(top, namespace, create)
	if !create && errors.Is(err, fs.ErrNotExist) {
		return nil, errNoSubtree
	}
	return ws, err
}

// runsDir opens arena/runs of a workspace subtree, each component a real
// directory (no link followed, even one inside the namespace).
func runsDir(ws *os.Root, create bool) (*os.Root, error) {
	return source.OpenDirNoLinks(ws, path.Dir(OutputDir("x")), create)
}

// outputRel is the run's directory relative to its workspace subtree, for a
// run name that is a DNS subdomain (no "..", no "/").
func outputRel(run string) (string, error) {
	if errs := validation.IsDNS1123Subdomain(run); len(errs) > 0 {
		return "", fmt.Errorf("run name %q: %s", run, strings.Join(errs, "; "))
	}
	return OutputDir(run), nil
}

// makeOutputDir makes the run's directory (mode 0777) in namespace's
// subtree of root; created reports whether it did not exist before. An
// existing directory is kept as it is; anything else in its place (a
// symbolic link included) is an error.
func makeOutputDir(root, namespace, run string) (created bool, err error) {
	if _, err := outputRel(run); err != nil {
		return false, err
	}
	ws, err := workspaceRoot(root, namespace, true)
	if err != nil {
		return false, err
	}
	defer func() { _ = ws.Close() }()
	runs, err := runsDir(ws, true)
	if err != nil {
		return false, err
	}
	defer func() { _ = runs.Close() }()
	err = runs.Mkdir(run, 0o755)
	created = err == nil
	if err != nil && !errors.Is(err, fs.ErrExist) {
		return false, err
	}
	fi, err := runs.Lstat(run)
	if err != nil {
		return false, err
	}
	if !fi.IsDir() {
		return false, fmt.Errorf("%s is not a directory", OutputDir(run))
	}
	if created {
		// The workers run as a user the operator does not know.
		if err := runs.Chmod(run, 0o777); err != nil {
			return false, err
		}
	}
	return created, nil
}

// removeOutputDir removes the run's directory from namespace's subtree of
// root. Nothing there (not even the subtree) is not an error.
func removeOutputDir(root, namespace, run string) error {
	if _, err := outputRel(run); err != nil {
		return err
	}
	ws, err := workspaceRoot(root, namespace, false)
	if errors.Is(err, errNoSubtree) {
		return nil
	}
	if err != nil {
		return err
	}
	defer func() { _ = ws.Close() }()
	runs, err := runsDir(ws, false)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer func() { _ = runs.Close() }()
	return runs.RemoveAll(run)
}
