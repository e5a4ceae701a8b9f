package arenarun

import (
	"context"
	"errors"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// Resolution errors a SourceResolver returns (wrapped or not); each fails
// the run with the reason of the same name.
var (
	// ErrRefNotFound: the ref names nothing in the project's repository.
	ErrRefNotFound = errors.New(v1alpha1.ArenaRunReasonRefNotFound)
	// ErrSnapshotUnexportable: the commit cannot be exported as a snapshot.
	ErrSnapshotUnexportable = errors.New(v1alpha1.ArenaRunReasonSnapshotUnexportable)
	// ErrSourcePending: the answer is being fetched outside the reconcile
	// (ProjectResolver's fetcher); the run waits (SourceValid reason
	// SourceFetching) and is reconciled again when it is there. Neither a
	// failure nor an error to retry at once.
	ErrSourcePending = errors.New(v1alpha1.ArenaRunReasonSourceFetching)
)

// Resolved is what a run pins from its project: the commit (status.source)
// and what the arena file at that commit declares.
type Resolved struct {
	Source v1alpha1.ArenaRunSource
	// Scenarios are the scenario names (paths) of the arena file, before
	// the template's include/exclude filter.
	Scenarios []string
	// Providers are the arena file's provider IDs, used for the matrix when
	// the template sets no array-mode provider group.
	Providers []string
}

// SourceResolver resolves a run's ref on its ArenaProject. It is called once
// per run, after the project is Ready, and its answer is pinned.
//
// The operator wires ProjectResolver (projectresolver.go), built on the
// ArenaProject controller's go-git source package. A controller given no
// resolver (a test's choice) keeps a run whose project is Ready Pending
// (SourceValid=False, reason SourceResolverUnavailable).
type SourceResolver interface {
	// Resolve resolves ref (empty: the project's default branch) of the
	// project. arenaFile is the template's arena file.
	Resolve(ctx context.Context, project *v1alpha1.ArenaProject, ref, arenaFile string) (Resolved, error)
}

// SourceResolverFunc adapts a function to SourceResolver.
type SourceResolverFunc func(ctx context.Context, project *v1alpha1.ArenaProject, ref, arenaFile string) (Resolved, error)

// Resolve calls f.
func (f SourceResolverFunc) Resolve(ctx context.Context, project *v1alpha1.ArenaProject, ref, arenaFile string) (Resolved, error) {
	return f(ctx, project, ref, arenaFile)
}

// resolutionReason maps a resolver error to the run's failure reason; ""
// when the error is transient (retried).
func resolutionReason(err error) string {
	switch {
	case errors.Is(err, ErrRefNotFound):
		return v1alpha1.ArenaRunReasonRefNotFound
	case errors.Is(err, ErrSnapshotUnexportable):
		return v1alpha1.ArenaRunReasonSnapshotUnexportable
	}
	return ""
}
