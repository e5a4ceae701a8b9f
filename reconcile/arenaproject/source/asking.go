package source

// What the controllers ask an Opener that has a Fetcher: the answer if the
// Fetcher has it, ErrFetching (and the job queued) if not. See fetcher.go.

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/types"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// errFetching is wrapped by the error of a question whose answer is being
// fetched.
var errFetching = errors.New("queued or running in the operator's fetcher")

// IsFetching reports an Opener's answer that is not there yet: the job is
// queued (or the queue was full and the caller asks again later); the
// caller's controller is told (Fetcher.Events) when it ends.
func IsFetching(err error) bool { return errors.Is(err, errFetching) }

func fetching(queueErr error, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if queueErr != nil {
		msg += ": waiting for room in the operator's fetch queue"
	}
	return &Error{Reason: v1alpha1.ArenaProjectReasonFetching, Message: msg, Err: errFetching}
}

// hostOf is what the Fetcher's per-host limit counts for raw: its
// host[:port], lower case.
func hostOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	return strings.ToLower(u.Host)
}

// headFromFetcher answers Head through the Fetcher: an answer stored for
// this question is taken (the next look asks anew), otherwise a job is
// queued.
func (o *Opener) headFromFetcher(p *v1alpha1.ArenaProject, creds *Credentials) (Opened, error) {
	name := RepositoryName(p)
	f := o.Fetcher
	key := questionKey("head", p.Namespace, p.Name, string(p.UID), strconv.FormatInt(p.Generation, 10), name, f.credentialsID(creds))
	if r, ok := f.lookup(key, true); ok {
		opened, _ := r.value.(Opened)
		opened.Repository = name
		return opened, r.err
	}
	pc := p.DeepCopy()
	host, what := "", "reading the hosted repository"
	if pc.Spec.Git != nil {
		host, what = hostOf(name), "listing the refs of "+name
	}
	job := &fetchJob{
		key: key, namespace: pc.Namespace, host: host,
		owner:   types.NamespacedName{Namespace: pc.Namespace, Name: pc.Name},
		timeout: o.Config.ListTimeout,
		run: func(ctx context.Context) []keyedAnswer {
			out, err := o.head(ctx, pc, creds)
			return []keyedAnswer{{key: key, value: out, err: err, size: 256}}
		},
	}
	err := f.submit(job, KindArenaProject)
	return Opened{Repository: name}, fetching(err, "%s", what)
}

// listHead lists raw's refs and finds its default branch and commit.
func listHead(ctx context.Context, raw string, creds *Credentials, cfg Config) (Opened, error) {
	out := Opened{Repository: raw}
	refs, err := listRemote(ctx, raw, creds, cfg)
	if err != nil {
		return out, err
	}
	out.DefaultBranch, out.Commit, err = headOf(refs, raw)
	return out, err
}

// Snapshot is a run's pinned commit and its arena file, the snapshot
// exported: Opener.Snapshot's answer.
type Snapshot struct {
	Pin Pin
	// ArenaFile is the arena file's content at Pin.Commit.
	ArenaFile []byte
}

// SnapshotOptions shape Opener.Snapshot.
type SnapshotOptions struct {
	// MaxArenaFileBytes bounds the arena file read (0:
	// DefaultMaxReadFileBytes).
	MaxArenaFileBytes int64
	// Check, when set, judges the arena file before the snapshot is
	// exported; its error makes the commit SnapshotUnexportable.
	Check func(arenaFile []byte) error
}

// Snapshot resolves ref ("" the default branch) of p's repository, checks
// the commit exportable with arenaFile ("" config.arena.yaml), reads the
// arena file (and judges it with opts.Check), and, when the operator has a
// content root, exports the snapshot to
// <root>/<namespace>/<Pin.ContentPath> (OpenSnapshotsDir: no link
// followed). The ArenaRun controller's call.
//
// With a Fetcher, the work (the fetch, the export) is a job: Snapshot
// returns the answer stored for this question, kept ResultTTL and shared by
// whoever asks it (the answer also stands for the question asked with the
// commit as ref), or ErrFetching with the job queued. Without one (a test's
// or a tool's Opener) it does the work before it returns. Errors carry
// RefNotFound, SnapshotUnexportable, or one of the project's Ready reasons.
func (o *Opener) Snapshot(ctx context.Context, p *v1alpha1.ArenaProject, ref, arenaFile string, opts SnapshotOptions) (Snapshot, error) {
	if arenaFile == "" {
		arenaFile = DefaultArenaFile
	}
	var creds *Credentials
	if p.Spec.Git != nil {
		var err error
		if creds, err = o.credentials(ctx, p); err != nil {
			return Snapshot{}, err
		}
	}
	// The job works on its own copy: the caller's object may change.
	pc := p.DeepCopy()
	if o.Fetcher == nil {
		ctx, cancel := context.WithTimeout(ctx, o.Config.FetchTimeout)
		defer cancel()
		return o.snapshot(ctx, pc, creds, ref, arenaFile, opts)
	}
	f := o.Fetcher
	keyOf := func(ref string) string {
		return questionKey("snapshot", pc.Namespace, pc.Name, string(pc.UID), strconv.FormatInt(pc.Generation, 10),
			RepositoryName(pc), f.credentialsID(creds), ref, arenaFile)
	}
	key := keyOf(ref)
	if r, ok := f.lookup(key, false); ok {
		s, _ := r.value.(Snapshot)
		return s, r.err
	}
	host := ""
	if pc.Spec.Git != nil {
		host = hostOf(pc.Spec.Git.URL)
	}
	job := &fetchJob{
		key: key, namespace: pc.Namespace, host: host,
		owner:   types.NamespacedName{Namespace: pc.Namespace, Name: pc.Name},
		timeout: o.Config.FetchTimeout,
		run: func(ctx context.Context) []keyedAnswer {
			s, err := o.snapshot(ctx, pc, creds, ref, arenaFile, opts)
			size := int64(len(s.ArenaFile)) + 512
			answers := []keyedAnswer{{key: key, value: s, err: err, size: size}}
			if err == nil && s.Pin.Commit != ref {
				// A run pinned to this commit asks again with the commit
				// as its ref.
				byCommit := s
				byCommit.Pin.Ref = s.Pin.Commit
				answers = append(answers, keyedAnswer{key: keyOf(s.Pin.Commit), value: byCommit, size: size})
			}
			return answers
		},
	}
	err := f.submit(job, KindArenaRun)
	return Snapshot{}, fetching(err, "reading %s of ArenaProject %s", refName(ref), pc.Name)
}

func refName(ref string) string {
	if ref == "" {
		return "the default branch"
	}
	return "ref " + ref
}

// snapshot is Snapshot's work.
func (o *Opener) snapshot(ctx context.Context, p *v1alpha1.ArenaProject, creds *Credentials, ref, arenaFile string, opts SnapshotOptions) (Snapshot, error) {
	var r *Repository
	var err error
	if p.Spec.Git == nil {
		r, err = openHosted(o.Config, p.Namespace, p.Name)
	} else {
		r, err = Fetch(ctx, p.Spec.Git.URL, creds, o.Config)
	}
	if err != nil {
		return Snapshot{}, err
	}
	defer func() { _ = r.Close() }()
	pin, err := r.Pin(p.Name, ref, arenaFile)
	if err != nil {
		return Snapshot{}, err
	}
	data, err := r.ReadFile(pin.Commit, arenaFile, opts.MaxArenaFileBytes)
	if err != nil {
		return Snapshot{}, err
	}
	if opts.Check != nil {
		if err := opts.Check(data); err != nil {
			return Snapshot{}, newError(v1alpha1.ArenaRunReasonSnapshotUnexportable, nil, "arena file %s at commit %s: %v", arenaFile, shortCommit(pin.Commit), err)
		}
	}
	if root := o.Config.ContentRoot; root != "" {
		dest, err := OpenSnapshotsDir(root, p.Namespace, p.Name)
		if err != nil {
			return Snapshot{}, fmt.Errorf("exporting commit %s: %w", shortCommit(pin.Commit), err)
		}
		defer func() { _ = dest.Close() }()
		if err := r.Export(pin.Commit, arenaFile, dest, path.Base(pin.ContentPath)); err != nil {
			return Snapshot{}, err
		}
	}
	return Snapshot{Pin: pin, ArenaFile: data}, nil
}

func shortCommit(c string) string {
	if len(c) > 12 {
		return c[:12]
	}
	return c
}
